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
    │   ├── TransientError               timeout, 5xx, connection          (retryable)
    │   └── MalformedResponseError       the service sent something malformed (not retryable)
    ├── ToolError                        a tool could not be used
    │   ├── UnknownToolError             the model called a tool that does not exist
    │   ├── ToolCallRefused              middleware refused a call (the model is told)
    │   └── ToolServerError              a tool server (MCP) cannot be reached or died
    ├── RunAbortedError                  must end the run even from inside a tool call
    ├── StructuredOutputError            the model's output does not parse into the type
    └── RunStateError                    a session / resume / approval mismatch

Retry, fallback and rate-limit middleware look only at these classes and at
``retryable`` / ``retry_after``, never at provider exceptions; the provider's
exception stays available as ``__cause__``.

An adapter over HTTP maps an error status with :func:`error_for_status` and reads
``Retry-After`` headers with :func:`retry_after_seconds`; :func:`stream_error` maps an
error event reported inside a stream (no status) by its code.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping

__all__ = [
    "AgentcoreError",
    "AuthenticationError",
    "ChatClientError",
    "ContentFilteredError",
    "ContextLengthExceededError",
    "InvalidRequestError",
    "MalformedResponseError",
    "ModelNotFoundError",
    "RateLimitedError",
    "RunAbortedError",
    "RunStateError",
    "StructuredOutputError",
    "ToolCallRefused",
    "ToolError",
    "ToolServerError",
    "TransientError",
    "UnknownToolError",
    "error_class_from_text",
    "error_for_status",
    "retry_after_seconds",
    "stream_error",
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


class MalformedResponseError(ChatClientError):
    """The service answered with something the adapter cannot read.

    Invalid JSON in a body or an event, a missing or mistyped field, an event larger
    than the adapter accepts: the message names the provider, the event (or body) and
    what was wrong. The same request would get the same answer, so it is not
    retryable; an answer cut short because the connection broke is a
    :class:`TransientError` instead.
    """


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


class ToolServerError(ToolError):
    """A server that provides tools (an MCP server) cannot be reached, or it died.

    ``server`` and ``transport`` name it; the transport's own exception is the
    ``__cause__``. One exception, never an exception group.
    """

    def __init__(self, message: str, *, server: str, transport: str) -> None:
        super().__init__(message)
        self.server = server
        self.transport = transport


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


# -- mapping an HTTP error status --------------------------------------------------------

_CONTEXT_LENGTH_CODES = frozenset(
    {"context_length_exceeded", "string_above_max_length", "exceed_context_size_error"}
)
# How services word it: OpenAI and vLLM ("maximum context length"), llama.cpp ("context
# size"), Anthropic ("prompt is too long"), and the "context window" of several.
_CONTEXT_LENGTH_PHRASES = (
    "context length",
    "context_length_exceeded",
    "context size",
    "context window",
    "prompt is too long",
)
_CONTENT_FILTER_CODES = frozenset(
    {"content_filter", "content_policy_violation", "image_content_policy_violation"}
)


def error_for_status(
    status: int,
    message: str,
    *,
    provider: str,
    headers: Mapping[str, str] | None = None,
    code: str | None = None,
) -> ChatClientError:
    """The taxonomy's error for an HTTP error status. It is returned, not raised::

        raise error_for_status(status, text, provider="my-service", headers=headers) from exc

    ::

        401, 403                                     AuthenticationError
        404                                          ModelNotFoundError
        429                                          RateLimitedError
        408, 409, 5xx                                TransientError
        400, 413, 422 saying the prompt is too long  ContextLengthExceededError
        400, 413, 422 with a content-filter code     ContentFilteredError
        other 4xx                                    InvalidRequestError
        1xx to 3xx                                   ChatClientError

    ``message`` (the service's error text, or its whole error body) becomes the
    error's message. A prompt is too long when ``code`` says so
    (``context_length_exceeded``, ...) or ``message`` does in one of the services'
    wordings ("maximum context length", "context size", "prompt is too long", ...);
    the content-filter codes are ``content_filter``, ``content_policy_violation`` and
    ``image_content_policy_violation``. ``retry_after`` comes from ``headers`` for
    every status (services send it with 429 and 503; see :func:`retry_after_seconds`).
    A ``status`` that is not an ``int`` raises ``TypeError``; one outside the HTTP
    range (100 to 599) raises ``ValueError``.
    """
    if isinstance(status, bool) or not isinstance(status, int):
        raise TypeError(f"status must be an int HTTP status code, got {status!r}")
    if not 100 <= status <= 599:
        raise ValueError(f"status must be an HTTP status code from 100 to 599, got {status}")
    cls = _class_for_status(status, message, code.lower() if code else None)
    return cls(
        message,
        status_code=status,
        provider=provider,
        retry_after=retry_after_seconds(headers),
    )


def _class_for_status(status: int, message: str, code: str | None) -> type[ChatClientError]:
    if status in (401, 403):
        return AuthenticationError
    if status == 404:
        return ModelNotFoundError
    if status == 429:
        return RateLimitedError
    if status in (408, 409) or status >= 500:
        return TransientError
    if status < 400:
        return ChatClientError
    if status in (400, 413, 422):
        return error_class_from_text(message, code=code) or InvalidRequestError
    return InvalidRequestError


def error_class_from_text(
    message: str, *, code: str | None = None
) -> type[ContextLengthExceededError] | type[ContentFilteredError] | None:
    """The error a service's error ``code`` or ``message`` names whatever its status:
    :class:`ContextLengthExceededError` or :class:`ContentFilteredError`, else ``None``.

    For errors that arrive without a status (inside a stream); the codes and wordings
    are those :func:`error_for_status` recognises.
    """
    code = code.lower() if code else None
    lowered = message.lower()
    if code in _CONTEXT_LENGTH_CODES or any(p in lowered for p in _CONTEXT_LENGTH_PHRASES):
        return ContextLengthExceededError
    if code in _CONTENT_FILTER_CODES:
        return ContentFilteredError
    return None


_STREAM_CODE_CLASSES: tuple[tuple[str, type[ChatClientError]], ...] = (
    ("rate_limit", RateLimitedError),
    ("overloaded", TransientError),
    ("server_error", TransientError),
    ("api_error", TransientError),
    ("internal", TransientError),
    ("timeout", TransientError),
    ("unavailable", TransientError),
    ("authentication", AuthenticationError),
    ("permission", AuthenticationError),
    ("model_not_found", ModelNotFoundError),
    ("not_found", InvalidRequestError),
    ("invalid_request", InvalidRequestError),
)


def stream_error(
    message: str, *, code: str | None = None, provider: str | None = None
) -> ChatClientError:
    """The error for an error event a service reported inside a stream (no status).

    The ``code`` (``"rate_limit_exceeded"``, ``"overloaded_error"``,
    ``"server_error"``, ...) or the wording picks the class, so retry middleware
    sees ``retryable`` as for the same error given with a status; an unknown code
    gives a plain, not retryable :class:`ChatClientError`.
    """
    cls: type[ChatClientError] | None = error_class_from_text(message, code=code)
    if cls is None and code:
        lowered = code.lower()
        cls = next((c for part, c in _STREAM_CODE_CLASSES if part in lowered), None)
    shown = f"{message} (code {code})" if code else message
    return (cls or ChatClientError)(f"error in the model's stream: {shown}", provider=provider)


def retry_after_seconds(
    headers: Mapping[str, str] | None, *, now: float | None = None
) -> float | None:
    """How many seconds a response's headers ask a client to wait, or ``None``.

    ``retry-after-ms`` (milliseconds, as OpenAI and Anthropic send it) wins over
    ``retry-after``, which is seconds or an HTTP date; a date gives the seconds from
    ``now`` (``time.time()`` by default), never fewer than zero. Header names match in
    any case. A value that is negative, not a number or not a date counts as absent.
    """
    if not headers:
        return None
    millis = _number(_header(headers, "retry-after-ms"))
    if millis is not None:
        return millis / 1000.0
    value = _header(headers, "retry-after")
    if value is None:
        return None
    seconds = _number(value)
    if seconds is not None:
        return seconds
    # Imported here: email.utils costs a few milliseconds of import time, and most
    # services send seconds.
    import datetime
    import email.utils

    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:  # "-0000", or no zone at all: HTTP dates are in GMT
        when = when.replace(tzinfo=datetime.timezone.utc)
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def _header(headers: Mapping[str, str], name: str) -> str | None:
    """``headers[name]``, matching the name in any case (``name`` is lowercase)."""
    value = headers.get(name)
    if value is None:
        value = next((v for k, v in headers.items() if k.lower() == name), None)
    return value


def _number(value: str | None) -> float | None:
    """A finite, non-negative number, or ``None``."""
    if value is None:
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return number if math.isfinite(number) and number >= 0 else None
