"""ModelFallback: when the model call fails, ask the next client of a list.

A retryable failure (rate limit, timeout, 5xx) or a context-length error of the
current client sends the same messages and options to the next client. In a
streaming run the switch is possible only until the first update has reached the
caller, as with :class:`~agentcore_contrib.retry.Retry`.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Sequence
from typing import Any, cast

from agentcore import (
    ChatContext,
    ChatResponse,
    ChatResponseUpdate,
    ResponseStream,
    SupportsGetResponse,
)
from agentcore.errors import ChatClientError, ContextLengthExceededError
from agentcore.middleware import CallNext

__all__ = ["ModelFallback"]

ChatStream = ResponseStream[ChatResponseUpdate, ChatResponse[Any]]


def _falls_back(error: ChatClientError) -> bool:
    return error.retryable or isinstance(error, ContextLengthExceededError)


def _checked_clients(clients: object) -> tuple[SupportsGetResponse[Any], ...]:
    if isinstance(clients, (str, bytes)) or not isinstance(clients, Sequence):
        raise TypeError(f"ModelFallback takes a list of chat clients, got {type(clients).__name__}")
    items = cast("Sequence[object]", clients)
    if not items:
        raise ValueError("ModelFallback needs at least one client to fall back to")
    checked: list[SupportsGetResponse[Any]] = []
    for position, client in enumerate(items):
        if not callable(getattr(client, "get_response", None)):
            raise TypeError(
                f"clients[{position}] is not a chat client (it needs "
                f"get_response(messages, *, options, stream)): {client!r}"
            )
        checked.append(cast("SupportsGetResponse[Any]", client))
    return tuple(checked)


class ModelFallback:
    """Chat middleware that tries ``clients`` in order after the call's own client fails.

    The switch happens on a retryable :class:`~agentcore.errors.ChatClientError`
    or a :class:`~agentcore.errors.ContextLengthExceededError`; other errors, and
    the last client's error, propagate. The middleware inside this one run again
    for each client (it sets ``context.client``), so a :class:`Retry` placed
    inside retries each client before falling back. Every model call of a run
    starts with the agent's own client again. The options are sent unchanged,
    so leave ``model`` unset when the clients serve different models.
    ``context.metadata["fallback_index"]`` records which client answered
    (0 for the call's own client, 1 for ``clients[0]``, ...).
    """

    def __init__(self, clients: Sequence[SupportsGetResponse[Any]]) -> None:
        self.clients: tuple[SupportsGetResponse[Any], ...] = _checked_clients(clients)

    async def process(self, context: ChatContext, call_next: CallNext) -> None:
        """Call inward with each client in turn until one answers."""
        chain = _Chain(self.clients, context, call_next)
        await chain.first()
        result = context.result
        if context.stream and isinstance(result, ResponseStream):
            relay = _Switching(result, chain)
            context.result = ResponseStream(
                relay.updates(), finalizer=ChatResponse.from_updates, final=relay.final
            )


class _Switching:
    """Relays the current client's stream; fails over while nothing was delivered.

    (``Retry`` has the same shape; contrib middlewares do not import each other.)
    """

    def __init__(self, stream: ChatStream, chain: _Chain) -> None:
        self.stream = stream
        self._chain = chain

    async def updates(self) -> AsyncGenerator[ChatResponseUpdate, None]:
        while True:
            updates = self.stream.__aiter__()
            try:
                first = await anext(updates)
            except StopAsyncIteration:
                return
            except ChatClientError as error:
                await updates.aclose()
                answer = await self._chain.restart(error)
                self.stream = (
                    answer
                    if isinstance(answer, ResponseStream)
                    else ResponseStream.from_response(answer)
                )
                continue
            try:
                yield first
                async for update in updates:
                    yield update
            finally:
                await updates.aclose()
            return

    async def final(self) -> ChatResponse[Any]:
        # Read unchanged to the end: the final value of the client that answered.
        return await self.stream.get_final_response()


class _Chain:
    """The clients still to try for one model call."""

    def __init__(
        self,
        clients: tuple[SupportsGetResponse[Any], ...],
        context: ChatContext,
        call_next: CallNext,
    ) -> None:
        self._clients = clients
        self._context = context
        self._call_next = call_next
        self._messages = list(context.messages)
        self._options = dict(context.options)
        self.index = 0

    async def first(self) -> None:
        self._context.metadata["fallback_index"] = 0
        await self._attempt()

    async def restart(self, error: ChatClientError) -> ChatStream | ChatResponse[Any]:
        self._next_or_raise(error)
        await self._attempt()
        result = self._context.result
        return ChatResponse() if result is None else result

    async def _attempt(self) -> None:
        while True:
            try:
                await self._call_next()
            except ChatClientError as error:
                self._next_or_raise(error)
            else:
                return

    def _next_or_raise(self, error: ChatClientError) -> None:
        if not _falls_back(error) or self.index >= len(self._clients):
            raise error
        self.index += 1
        context = self._context
        context.client = self._clients[self.index - 1]
        context.messages = list(self._messages)
        context.options = dict(self._options)
        context.result = None
        context.metadata["fallback_index"] = self.index
