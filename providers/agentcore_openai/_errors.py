"""OpenAI SDK exceptions mapped onto :mod:`agentcore.errors`, and rate-limit headers.

::

    openai.APIStatusError                        -> agentcore.errors.error_for_status
        (401 / 403, 404, 429, 408 / 409 / 5xx, context length, content filter,
        other 4xx; retry_after from retry-after-ms / retry-after), except:
        404 with a code other than model_not_found -> InvalidRequestError
        429 insufficient_quota                     -> RateLimitedError, retryable False
    openai.APIConnectionError / APITimeoutError  -> TransientError
    openai.APIError (an error inside a stream)   -> by its code, else ChatClientError

Nothing here is specific to one OpenAI API: the Chat Completions, Responses and
Embeddings clients all use it (an OpenAI-compatible provider could too).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

import openai

from agentcore.errors import (
    ChatClientError,
    InvalidRequestError,
    RateLimitedError,
    TransientError,
    error_class_from_text,
    error_for_status,
)

__all__ = ["PROVIDER", "body_error", "map_error", "rate_limit_info"]

PROVIDER = "openai"

_RATE_LIMIT_HEADERS = {
    "x-ratelimit-remaining-requests": "remaining_requests",
    "x-ratelimit-remaining-tokens": "remaining_tokens",
    "x-ratelimit-limit-requests": "limit_requests",
    "x-ratelimit-limit-tokens": "limit_tokens",
    "x-ratelimit-reset-requests": "reset_requests",
    "x-ratelimit-reset-tokens": "reset_tokens",
}


def rate_limit_info(headers: Mapping[str, str]) -> dict[str, Any] | None:
    """The ``x-ratelimit-*`` headers as a dict (numbers as ints), or ``None``."""
    info: dict[str, Any] = {}
    for header, key in _RATE_LIMIT_HEADERS.items():
        value = headers.get(header)
        if value is not None:
            info[key] = int(value) if value.isdigit() else value
    return info or None


def _json_object(value: object) -> Mapping[str, object] | None:
    return cast("Mapping[str, object]", value) if isinstance(value, Mapping) else None


def _error_fields(exc: openai.APIError) -> tuple[str | None, str]:
    """The error code and message, read from the body when the SDK left them out."""
    code = exc.code
    message = exc.message
    body = _json_object(exc.body)
    inner = _json_object(body.get("error", body)) if body is not None else None
    if inner is not None:
        raw_code = inner.get("code")
        raw_message = inner.get("message")
        if code is None and raw_code is not None:
            code = str(raw_code)
        if isinstance(raw_message, str) and raw_message:
            message = raw_message
    return code, message


def _by_code(code: str | None, message: str) -> type[ChatClientError] | None:
    """An error inside a stream has no status: it is mapped by its code and message."""
    known = error_class_from_text(message, code=code)
    if known is not None:
        return known
    if code == "rate_limit_exceeded":
        return RateLimitedError
    if code == "server_error":
        return TransientError
    return None


def _status_error(exc: openai.APIStatusError) -> ChatClientError:
    status = exc.status_code
    code, message = _error_fields(exc)
    text = f"OpenAI API error {status}: {message}"
    if status == 404 and code not in (None, "model_not_found"):
        # Something else is missing (a previous response, a file, ...), not the model.
        return InvalidRequestError(text, status_code=status, provider=PROVIDER)
    error = error_for_status(
        status, text, provider=PROVIDER, headers=exc.response.headers, code=code
    )
    if code == "insufficient_quota":
        error.retryable = False  # the quota will not come back by waiting
    return error


def map_error(exc: BaseException) -> BaseException:
    """The agentcore error for an OpenAI SDK exception; other exceptions unchanged.

    Raise the result ``from exc`` so the SDK's exception stays the ``__cause__``.
    """
    if isinstance(exc, openai.APIStatusError):
        return _status_error(exc)
    if isinstance(exc, openai.APITimeoutError):
        return TransientError(f"OpenAI request timed out: {exc.message}", provider=PROVIDER)
    if isinstance(exc, openai.APIConnectionError):
        return TransientError(f"could not reach the OpenAI API: {exc.message}", provider=PROVIDER)
    if isinstance(exc, openai.APIResponseValidationError):
        return ChatClientError(
            f"the OpenAI API answered with an unexpected body: {exc.message}",
            status_code=exc.status_code,
            provider=PROVIDER,
        )
    if isinstance(exc, openai.APIError):
        code, message = _error_fields(exc)
        cls = _by_code(code, message) or ChatClientError
        return cls(f"OpenAI API error: {message}", provider=PROVIDER)
    return exc


def body_error(error: Mapping[str, Any]) -> ChatClientError:
    """The error for an ``{"error": {...}}`` sent with a success status (or in a stream):
    mapped by its code and message, as an error inside a stream is."""
    raw_code = error.get("code")
    code = str(raw_code) if raw_code is not None else None
    raw_message = error.get("message")
    message = raw_message if isinstance(raw_message, str) and raw_message else str(dict(error))
    cls = _by_code(code, message) or ChatClientError
    return cls(f"OpenAI API error: {message}", provider=PROVIDER)
