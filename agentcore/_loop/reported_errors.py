"""Errors a service reports inside a response, raised as the typed errors they are.

Adapters turn a service's in-stream error event into an update holding an
:class:`~agentcore.ErrorContent` with ``finish_reason="error"``. That is a failed
model call, never an answer: the loop raises it (nothing of the run is committed).
A non-streaming call raises it inside the chat middleware, so retry middleware sees
it; in a stream, retry middleware checks the first update itself (a check on every
update would cost each chunk of every stream).
"""

from __future__ import annotations

from typing import Any

from agentcore._types.contents import ErrorContent
from agentcore._types.responses import ChatResponse
from agentcore.errors import ChatClientError, stream_error

__all__ = ["raise_reported_error"]


def _error_of(contents: tuple[Any, ...]) -> ChatClientError:
    found = next((c for c in contents if isinstance(c, ErrorContent)), None)
    if found is None:
        return ChatClientError("the model call ended with finish_reason 'error'")
    return stream_error(found.message, code=found.code)


def raise_reported_error(response: ChatResponse[Any]) -> None:
    """Raise the error a response with ``finish_reason="error"`` reports."""
    if response.finish_reason == "error":
        raise _error_of(tuple(c for m in response.messages for c in m.contents))
