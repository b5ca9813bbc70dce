"""Anthropic SDK exceptions -> agentcore's error taxonomy, and rate-limit headers.

::

    status errors                                   -> agentcore.errors.error_for_status
        401 authentication_error, 403 permission_error  AuthenticationError
        404 not_found_error                             ModelNotFoundError
        429 rate_limit_error                            RateLimitedError (retry_after)
        400 "prompt is too long" / context window       ContextLengthExceededError
        400, 413 request_too_large, 422, other 4xx      InvalidRequestError
        5xx incl. 529 overloaded_error, 408, 409        TransientError
    timeouts (no bytes within the read timeout),
    connection and transport failures               -> TransientError
    bodies or events that are not JSON, lack a
    field or have one of the wrong type, events
    past max_event_size                             -> MalformedResponseError
    an error body sent with a success status        -> by its type, as error_for_status
    missing credentials                             -> AuthenticationError
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import anthropic
import httpx2

from agentcore.errors import (
    AuthenticationError,
    ChatClientError,
    MalformedResponseError,
    TransientError,
    error_for_status,
)
from agentcore_anthropic._options import PROVIDER

__all__ = ["READ_ERRORS", "body_error", "malformed", "map_error", "rate_limit_headers"]

READ_ERRORS = (KeyError, AttributeError, TypeError, ValueError, IndexError, LookupError)
"""What reading a body or event of the wrong shape raises."""

# The status each of the API's error types comes with, for one sent with a 200.
_ERROR_TYPE_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "overloaded_error": 529,
}


def malformed(what: str, problem: object) -> MalformedResponseError:
    """The error for a body or event the adapter cannot read: what it was, what was wrong."""
    return MalformedResponseError(
        f"Anthropic sent a malformed {what}: {problem}", provider=PROVIDER
    )


def body_error(error: Mapping[str, Any]) -> ChatClientError:
    """The error for an ``{"type": "error", "error": {...}}`` body sent with a success
    status: mapped as if it had come with the status its ``type`` goes with."""
    kind = str(error.get("type") or "")
    message = f"Anthropic API error ({kind or 'unknown'}): {error.get('message') or dict(error)}"
    status = _ERROR_TYPE_STATUS.get(kind)
    if status is None:
        return ChatClientError(message, provider=PROVIDER)
    return error_for_status(status, message, provider=PROVIDER)


_RATE_LIMIT_HEADERS = {
    "anthropic-ratelimit-requests-remaining": "remaining_requests",
    "anthropic-ratelimit-tokens-remaining": "remaining_tokens",
    "anthropic-ratelimit-requests-limit": "limit_requests",
    "anthropic-ratelimit-tokens-limit": "limit_tokens",
    "anthropic-ratelimit-requests-reset": "reset_requests",
    "anthropic-ratelimit-tokens-reset": "reset_tokens",
}
_MISSING_KEY = (
    "no Anthropic credentials: pass api_key= to AnthropicChatClient or set the "
    "ANTHROPIC_API_KEY environment variable"
)


def rate_limit_headers(headers: Mapping[str, str]) -> dict[str, str] | None:
    """The ``anthropic-ratelimit-*`` headers under the keys the rate limiter reads."""
    found = {key: headers[name] for name, key in _RATE_LIMIT_HEADERS.items() if name in headers}
    return found or None


def _status_message(exc: anthropic.APIStatusError) -> str:
    detail = exc.api_message or exc.message
    return f"Anthropic API error {exc.status_code} ({exc.type or 'unknown'}): {detail}"


def map_error(exc: BaseException) -> BaseException:
    """The agentcore error for an SDK/transport exception; other exceptions come back as is.

    Raise the result ``from exc`` so the original stays the ``__cause__``.
    """
    if isinstance(exc, anthropic.APIStatusError):
        message, headers = _status_message(exc), exc.response.headers
        return error_for_status(exc.status_code, message, provider=PROVIDER, headers=headers)
    if isinstance(exc, anthropic.APITimeoutError):
        return TransientError("the Anthropic API timed out", provider=PROVIDER)
    if isinstance(exc, anthropic.APIConnectionError):
        return TransientError(f"could not reach the Anthropic API: {exc}", provider=PROVIDER)
    if isinstance(exc, json.JSONDecodeError):
        return malformed("body", f"not JSON ({exc})")
    if isinstance(exc, MalformedResponseError) and exc.provider is None:
        return malformed("stream", exc.message)  # from agentcore.sse: an event too large
    if isinstance(exc, httpx2.TimeoutException):
        return TransientError(
            "the Anthropic stream timed out: no bytes arrived within the read timeout",
            provider=PROVIDER,
        )
    if isinstance(exc, httpx2.TransportError):
        return TransientError(
            f"the connection to the Anthropic API failed mid-response: {exc!r}", provider=PROVIDER
        )
    if isinstance(exc, anthropic.CredentialsError):
        return AuthenticationError(f"{_MISSING_KEY} ({exc})", provider=PROVIDER)
    if isinstance(exc, TypeError) and "authentication method" in str(exc):
        return AuthenticationError(_MISSING_KEY, provider=PROVIDER)
    if isinstance(exc, anthropic.APIError):
        return ChatClientError(f"Anthropic API error: {exc}", provider=PROVIDER)
    return exc
