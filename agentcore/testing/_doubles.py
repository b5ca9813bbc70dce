"""Scripted and function-driven chat clients."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any, TypeAlias, cast

import attrs

from agentcore._streams.stream import ResponseStream
from agentcore._types.contents import Content, FunctionCallContent, TextContent, UsageContent
from agentcore._types.messages import Message
from agentcore._types.options import ChatOptions
from agentcore._types.responses import ChatResponse, ChatResponseUpdate
from agentcore.adapters import (
    GetResponseResult,
    get_response_method,
    option_keys,
    warn_unknown_options,
)

__all__ = [
    "ChatRequest",
    "FunctionChatClient",
    "ScriptExhaustedError",
    "ScriptedChatClient",
    "chunk_response",
]

ScriptItem: TypeAlias = ChatResponse[Any] | BaseException | Sequence[ChatResponseUpdate] | str
"""A response, an exception to raise, a list of updates to stream, or plain text."""


class ScriptExhaustedError(AssertionError):
    """The client was called more times than its script has entries."""


@attrs.frozen
class ChatRequest:
    """One request a test double received."""

    messages: tuple[Message, ...]
    options: Mapping[str, Any]
    stream: bool


def chunk_response(response: ChatResponse[Any], *, size: int = 4) -> list[ChatResponseUpdate]:
    """Split a response into the updates a streaming provider might send.

    Text is cut into ``size``-character pieces and function-call arguments into
    ``size``-character pieces (the first piece of each call carries its name);
    usage comes last. Folding the result gives ``response`` back.
    """
    updates: list[ChatResponseUpdate] = []
    for message in response.messages:
        for content in message.contents:
            pieces: list[Content]
            if isinstance(content, TextContent) and not content.annotations and content.text:
                text = content.text
                pieces = [TextContent(text[i : i + size]) for i in range(0, len(text), size)]
            elif isinstance(content, FunctionCallContent) and isinstance(content.arguments, str):
                args = content.arguments
                chunks = [args[i : i + size] for i in range(0, len(args), size)] or [""]
                pieces = [
                    FunctionCallContent(
                        call_id=content.call_id,
                        name=content.name if i == 0 else "",
                        arguments=chunk,
                        index=content.index,
                    )
                    for i, chunk in enumerate(chunks)
                ]
            else:
                pieces = [content]
            for piece in pieces:
                updates.append(
                    ChatResponseUpdate(
                        contents=(piece,),
                        role=message.role,
                        message_id=message.message_id,
                        author_name=message.author_name,
                        response_id=response.response_id,
                        model=response.model,
                        conversation_id=response.conversation_id,
                    )
                )
    tail: list[Content] = [UsageContent(response.usage)] if response.usage is not None else []
    updates.append(
        ChatResponseUpdate(
            contents=tuple(tail),
            finish_reason=response.finish_reason,
            response_id=response.response_id,
            model=response.model,
            conversation_id=response.conversation_id,
            created_at=response.created_at,
        )
    )
    return updates


async def _replay(
    updates: Iterable[ChatResponseUpdate], error: BaseException | None = None
) -> AsyncIterator[ChatResponseUpdate]:
    for update in updates:
        yield update
    if error is not None:
        raise error


def _check_item(item: object, index: int) -> None:
    if isinstance(item, (ChatResponse, str, BaseException)):
        return
    if isinstance(item, Sequence) and not isinstance(item, (bytes, bytearray)):
        for position, update in enumerate(cast("Sequence[object]", item)):
            if not isinstance(update, ChatResponseUpdate):
                raise TypeError(
                    f"script entry {index} of a ScriptedChatClient is a list holding a "
                    f"{type(update).__name__} at position {position}; a list entry is the "
                    "ChatResponseUpdate objects of one streamed answer"
                )
        return
    raise TypeError(
        f"script entry {index} of a ScriptedChatClient is a {type(item).__name__}; an entry "
        "is a str (the answer's text), a ChatResponse, an exception to raise, or a list of "
        "ChatResponseUpdate (for an OpenAI-style dict, build a ChatResponse with its text)"
    )


def _as_response(item: ChatResponse[Any] | str) -> ChatResponse[Any]:
    if isinstance(item, str):
        return ChatResponse(
            messages=(Message("assistant", (TextContent(item),)),), finish_reason="stop"
        )
    return item


class _RecordingClient:
    """Shared request recording and option checking; not part of the protocol."""

    def __init__(self, options_type: type[Any] | None) -> None:
        self.requests: list[ChatRequest] = []
        self._option_keys = None if options_type is None else option_keys(options_type)
        self._options_type = "" if options_type is None else options_type.__name__

    def _record(
        self, messages: Sequence[Message], options: Mapping[str, Any] | None, stream: bool
    ) -> None:
        if options and self._option_keys is not None:
            warn_unknown_options(
                type(self).__name__,
                options,
                self._option_keys,
                options_type=f"{self._options_type} (or pass options_type= to accept others)",
                passthrough=None,
                sent=True,
            )
        self.requests.append(ChatRequest(tuple(messages), dict(options or {}), stream))


class ScriptedChatClient(_RecordingClient):
    """Replays ``script`` one entry per request and records each request.

    An entry is a :class:`ChatResponse` (or a ``str``, an assistant text answer),
    an exception (raised), or a list of updates (streamed when ``stream=True``,
    folded when not). A response is chunked with :func:`chunk_response` when a
    streaming request meets it. Calling past the end raises
    :class:`ScriptExhaustedError`; an entry of another type is refused here.

    Like a real adapter, it warns (``UserWarning``) about an option key its
    ``options_type`` (a ``TypedDict``, :class:`~agentcore.ChatOptions` by default)
    lacks, naming the closest known key, and records it all the same; pass an
    adapter's options type to accept its keys too, or ``None`` to accept any key.
    """

    def __init__(
        self, script: Iterable[ScriptItem], *, options_type: type[Any] | None = ChatOptions
    ) -> None:
        super().__init__(options_type)
        self.script: list[ScriptItem] = list(script)
        for index, item in enumerate(self.script):
            _check_item(item, index)
        self._position = 0

    @property
    def remaining(self) -> int:
        """How many script entries are left."""
        return len(self.script) - self._position

    def _next(self) -> ScriptItem:
        if self._position >= len(self.script):
            raise ScriptExhaustedError(
                f"ScriptedChatClient was called {self._position + 1} times but its script has "
                f"{len(self.script)} entries"
            )
        item = self.script[self._position]
        self._position += 1
        return item

    @get_response_method
    def get_response(
        self,
        messages: Sequence[Message],
        *,
        options: Mapping[str, Any] | None = None,
        stream: bool = False,
    ) -> GetResponseResult:
        self._record(messages, options, stream)
        item = self._next()
        if stream:
            return _stream_item(item)
        return _respond(item)


async def _respond(item: ScriptItem) -> ChatResponse[Any]:
    if isinstance(item, BaseException):
        raise item
    if isinstance(item, (ChatResponse, str)):
        return _as_response(item)
    return ChatResponse.from_updates(item)


def _stream_item(item: ScriptItem) -> ResponseStream[ChatResponseUpdate, ChatResponse[Any]]:
    if isinstance(item, BaseException):
        return ResponseStream(_replay((), item), finalizer=ChatResponse.from_updates)
    updates = chunk_response(_as_response(item)) if isinstance(item, (ChatResponse, str)) else item
    return ResponseStream(_replay(updates), finalizer=ChatResponse.from_updates)


ResponderResult: TypeAlias = ChatResponse[Any] | str | Sequence[ChatResponseUpdate]
Responder: TypeAlias = Callable[
    [Sequence[Message], Mapping[str, Any]], ResponderResult | Awaitable[ResponderResult]
]


class FunctionChatClient(_RecordingClient):
    """Asks ``fn(messages, options)`` for each response and records each request.

    ``fn`` may be sync or async and returns what a :class:`ScriptedChatClient`
    entry may be (a response, a ``str``, or a list of updates); raising from
    ``fn`` fails the request. ``options_type`` is as for :class:`ScriptedChatClient`.
    """

    def __init__(self, fn: Responder, *, options_type: type[Any] | None = ChatOptions) -> None:
        super().__init__(options_type)
        self.fn = fn

    @get_response_method
    def get_response(
        self,
        messages: Sequence[Message],
        *,
        options: Mapping[str, Any] | None = None,
        stream: bool = False,
    ) -> GetResponseResult:
        self._record(messages, options, stream)
        if stream:
            return ResponseStream.from_awaitable(self._stream(messages, options or {}))
        return self._get(messages, options or {})

    async def _ask(
        self, messages: Sequence[Message], options: Mapping[str, Any]
    ) -> ResponderResult:
        result = self.fn(list(messages), options)
        if inspect.isawaitable(result):
            result = await result
        return result

    async def _get(
        self, messages: Sequence[Message], options: Mapping[str, Any]
    ) -> ChatResponse[Any]:
        return await _respond(await self._ask(messages, options))

    async def _stream(
        self, messages: Sequence[Message], options: Mapping[str, Any]
    ) -> ResponseStream[ChatResponseUpdate, ChatResponse[Any]]:
        return _stream_item(await self._ask(messages, options))
