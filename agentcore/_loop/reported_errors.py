"""Errors a service reports inside a response, raised as the typed errors they are.

Adapters turn a service's in-stream error event into an update holding an
:class:`~agentcore.ErrorContent` with ``finish_reason="error"``. That is a failed
model call, never an answer: the loop raises it (nothing of the run is committed),
and inside the chat middleware it is raised while the stream is read, so a retry
middleware sees it before any update has reached the caller.
"""

from __future__ import annotations

from typing import Any

from agentcore._streams.stream import ResponseStream
from agentcore._types.contents import ErrorContent
from agentcore._types.responses import ChatResponse, ChatResponseUpdate
from agentcore.errors import ChatClientError, stream_error

__all__ = ["raise_reported_error", "raising_reported_errors"]


def _error_of(contents: tuple[Any, ...]) -> ChatClientError:
    found = next((c for c in contents if isinstance(c, ErrorContent)), None)
    if found is None:
        return ChatClientError("the model call ended with finish_reason 'error'")
    return stream_error(found.message, code=found.code)


def raise_reported_error(response: ChatResponse[Any]) -> None:
    """Raise the error a response with ``finish_reason="error"`` reports."""
    if response.finish_reason == "error":
        raise _error_of(tuple(c for m in response.messages for c in m.contents))


def _check(update: ChatResponseUpdate) -> ChatResponseUpdate:
    # Adapters put the ErrorContent first in the update that reports the error (a
    # replayed response may carry it in an update before the finish reason).
    contents = update.contents
    if update.finish_reason == "error" or (contents and type(contents[0]) is ErrorContent):
        raise _error_of(contents)
    return update


def raising_reported_errors(
    stream: ResponseStream[ChatResponseUpdate, ChatResponse[Any]],
) -> ResponseStream[ChatResponseUpdate, ChatResponse[Any]]:
    """``stream``, raising the reported error in place of the update that carries it."""
    return stream.map(_check)
