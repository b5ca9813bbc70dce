"""The error taxonomy every adapter maps its SDK's exceptions onto.

::

    AgentcoreError
    ├── ChatClientError                  a model service call failed
    │   ├── AuthenticationError          bad or missing credentials        (not retryable)
    │   ├── RateLimitedError             429; ``retry_after`` when known    (retryable)
    │   ├── ContextLengthExceededError   the request is too long           (not retryable)
    │   ├── ContentFilteredError         the service refused the content   (not retryable)
    │   ├── InvalidRequestError          the service rejected the request  (not retryable)
    │   ├── ModelNotFoundError           unknown model or deployment       (not retryable)
    │   └── TransientError               timeout, 5xx, connection          (retryable)
    ├── ToolError                        a tool could not be used
    │   ├── UnknownToolError             the model called a tool that does not exist
    │   └── ToolCallRefused              middleware refused a call (the model is told)
    ├── RunAbortedError                  must end the run even from inside a tool call
    ├── StructuredOutputError            the model's output does not parse into the type
    └── RunStateError                    a session / resume / approval mismatch

Retry, fallback and rate-limit middleware look only at these classes and at
``retryable`` / ``retry_after``, never at provider exceptions; the provider's
exception stays available as ``__cause__``.
"""

from __future__ import annotations

__all__ = [
    "AgentcoreError",
    "AuthenticationError",
    "ChatClientError",
    "ContentFilteredError",
    "ContextLengthExceededError",
    "InvalidRequestError",
    "ModelNotFoundError",
    "RateLimitedError",
    "RunAbortedError",
    "RunStateError",
    "StructuredOutputError",
    "ToolCallRefused",
    "ToolError",
    "TransientError",
    "UnknownToolError",
]


class AgentcoreError(Exception):
    """Base class of every error agentcore raises on purpose."""


class ChatClientError(AgentcoreError):
    """A call to a model service failed.

    ``retryable`` says whether the same request may succeed later;
    ``status_code`` and ``provider`` say where it came from when known.
    """

    retryable: bool = False

    def __init__(
        self,
        message: str,
        *,
        status_code: int | None = None,
        provider: str | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status_code = status_code
        self.provider = provider
        self.retry_after = retry_after


class AuthenticationError(ChatClientError):
    """The credentials are missing, wrong or lack permission (401/403)."""


class RateLimitedError(ChatClientError):
    """Too many requests (429). ``retry_after`` is in seconds when the service said."""

    retryable = True


class ContextLengthExceededError(ChatClientError):
    """The request does not fit the model's context window."""


class ContentFilteredError(ChatClientError):
    """The service's content policy refused the request or the response."""


class InvalidRequestError(ChatClientError):
    """The service rejected the request as malformed (400/422)."""


class ModelNotFoundError(ChatClientError):
    """The model or deployment does not exist or is not available to this key."""


class TransientError(ChatClientError):
    """A timeout, a connection failure or a 5xx: the same request may work later."""

    retryable = True


class ToolError(AgentcoreError):
    """A tool could not be declared or called."""


class UnknownToolError(ToolError):
    """The model called a tool the run does not have (``terminate_on_unknown_calls``)."""

    def __init__(self, name: str, available: list[str]) -> None:
        listing = ", ".join(sorted(available)) or "none"
        super().__init__(f"the model called an unknown tool {name!r}; available tools: {listing}")
        self.name = name


class ToolCallRefused(ToolError):
    """Raise it from function middleware (or a tool) to refuse one call.

    The model receives the message as an error result and the run goes on; the
    refusal counts as an error toward ``max_consecutive_errors_per_request``.
    """


class RunAbortedError(AgentcoreError):
    """Base for errors that must end the run even when raised inside a tool call.

    The tool loop turns other exceptions raised by a tool into error results the
    model sees; subclasses of this one propagate to the caller even from inside the
    tool (a guardrail that cannot run, an audit log that cannot be written).
    """


class StructuredOutputError(AgentcoreError):
    """The model's output could not be parsed into the requested type.

    ``raw_text`` is what the model said, so nothing is lost.
    """

    def __init__(self, message: str, *, raw_text: str) -> None:
        super().__init__(message)
        self.raw_text = raw_text


class RunStateError(AgentcoreError):
    """A run cannot go on as asked (a session in use, a stale resume state, ...)."""
