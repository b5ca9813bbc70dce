"""Streams made of a finished response or of another stream: the primitives middleware need.

- a replay: a finished :class:`~agentcore.ChatResponse` or :class:`~agentcore.AgentResponse`
  as the updates that fold back into it (``ResponseStream.from_response``);
- a relay: another stream's updates, passed through a transform or an observer, with
  that stream's own final value when the consumer saw exactly what was relayed
  (``ResponseStream.relay``);
- an end hook that sees the stream complete, fail or be closed early, once
  (``ResponseStream.on_end``).

The relay and the end hook delegate to the inner stream (see
:class:`~agentcore._streams.reader.Delegate`): its updates are read in place by whoever
reads the outer stream, so neither adds a generator step per update. This module
never names ``ResponseStream``: the stream module builds the streams from its parts.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, Generic, Literal, Protocol, TypeVar, cast

import anyio
import attrs

from agentcore._equality import fields_eq, fields_hash
from agentcore._repr import fields_repr
from agentcore._streams.reader import NOT_KNOWN, Delegate, Readable, maybe_await, refinalize
from agentcore._types.contents import UsageContent
from agentcore._types.responses import (
    AgentResponse,
    AgentResponseUpdate,
    ChatResponse,
    ChatResponseUpdate,
)

__all__ = ["Relay", "StreamEnd", "replay_updates"]

FinalT = TypeVar("FinalT")


@attrs.frozen
class StreamEnd(Generic[FinalT]):
    """How a stream ended, as an end hook (:meth:`ResponseStream.on_end`) sees it.

    ``how`` is ``"completed"`` (read to its end; ``final`` is its final value),
    ``"failed"`` (its source or a transform raised ``error``) or ``"closed"`` (the
    consumer left early or was cancelled; ``error`` is what closed it: the
    cancellation exception, or ``GeneratorExit`` for ``aclose()``).
    """

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    how: Literal["completed", "failed", "closed"]
    final: FinalT | None = None
    error: BaseException | None = None


class _Inner(Readable, Protocol):
    """What a relay uses of the stream it relays (a ``ResponseStream``)."""

    async def aclose(self) -> None: ...


EndHook = Callable[[StreamEnd[Any]], "Awaitable[None] | None"]


def replay_updates(
    response: ChatResponse[Any] | AgentResponse[Any],
) -> list[ChatResponseUpdate] | list[AgentResponseUpdate]:
    """The updates a finished response is made of: its events (agent responses), one
    update per message, then one with the usage, finish reason and the rest."""
    if isinstance(response, AgentResponse):
        return _agent_updates(response)  # pyright: ignore[reportUnknownArgumentType]  # isinstance on a generic
    return _chat_updates(response)


def _chat_updates(response: ChatResponse[Any]) -> list[ChatResponseUpdate]:
    updates = [
        ChatResponseUpdate(
            contents=message.contents,
            role=message.role,
            author_name=message.author_name,
            message_id=message.message_id,
            response_id=response.response_id,
            model=response.model,
            conversation_id=response.conversation_id,
        )
        for message in response.messages
    ]
    updates.append(
        ChatResponseUpdate(
            contents=(UsageContent(response.usage),) if response.usage is not None else (),
            finish_reason=response.finish_reason,
            response_id=response.response_id,
            created_at=response.created_at,
            additional_properties=response.additional_properties,
        )
    )
    return updates


def _agent_updates(response: AgentResponse[Any]) -> list[AgentResponseUpdate]:
    name = response.agent_name
    updates = [AgentResponseUpdate(event=event, agent_name=name) for event in response.events]
    updates.extend(
        AgentResponseUpdate(
            contents=message.contents,
            role=message.role,
            author_name=message.author_name,
            message_id=message.message_id,
            agent_name=name,
            response_id=response.response_id,
        )
        for message in response.messages
    )
    updates.append(
        AgentResponseUpdate(
            contents=(UsageContent(response.usage),) if response.usage is not None else (),
            finish_reason=response.finish_reason,
            agent_name=name,
        )
    )
    return updates


async def one_by_one(updates: Sequence[Any]) -> AsyncGenerator[Any, None]:
    """``updates`` one by one, as a source."""
    for update in updates:
        yield update


class Relay:
    """The state of one relay of ``inner``: what the stream built on it needs.

    The source (``__aiter__``) delegates to ``inner`` and, with an end hook, tells it
    how the reading ended; ``final`` is the relay's final value when it was read
    unchanged to its end, ``fold`` its final value otherwise.
    """

    __slots__ = ("changed", "hook", "inner", "started", "transform")

    def __init__(
        self,
        inner: _Inner,
        transform: Callable[[Any], Any] | None,
        hook: EndHook | None,
    ) -> None:
        if transform is not None:
            if not callable(transform):
                raise TypeError(f"relay() takes a callable transform, got {transform!r}")
            if inspect.iscoroutinefunction(transform):
                raise TypeError(
                    "relay() takes a plain function (update -> update or None); "
                    f"{transform!r} is async. Do async work in a generator that reads the "
                    "stream and build ResponseStream(generator, finalizer=..., final=...)"
                )
        self.inner = inner
        self.transform = transform
        self.hook = hook
        self.changed = False  # the transform replaced or dropped an update
        self.started = False

    def step(self, update: Any) -> Any:
        """The transform, noting whether it passed ``update`` on unchanged."""
        assert self.transform is not None
        out = self.transform(update)
        if out is not update:
            self.changed = True
        return out

    def __aiter__(self) -> AsyncIterator[Any]:
        self.started = True
        return self._source()

    async def _source(self) -> AsyncGenerator[Any, None]:
        inner = self.inner
        hook = self.hook
        if hook is None:
            yield Delegate(cast("Any", inner))  # read in place by whoever reads the relay
            return
        try:
            yield Delegate(cast("Any", inner))  # a failure of ``inner`` is raised here
            final = await inner.get_final_response()
        except GeneratorExit as exc:
            await self._tell_shielded(StreamEnd("closed", error=exc))
            raise
        except BaseException as exc:
            cancelled = isinstance(exc, anyio.get_cancelled_exc_class())
            await self._tell_shielded(StreamEnd("closed" if cancelled else "failed", error=exc))
            raise
        await maybe_await(hook(StreamEnd("completed", final=final)))

    async def aclose(self) -> None:
        """Closed before it was read: close ``inner`` too, and tell the hook."""
        if self.started:  # pragma: no cover  # the stream closes the iterator it started
            return
        self.started = True
        await self.inner.aclose()
        await self._tell_shielded(StreamEnd("closed", error=GeneratorExit()))

    async def _tell_shielded(self, end: StreamEnd[Any]) -> None:
        if self.hook is not None:
            with anyio.CancelScope(shield=True):
                await maybe_await(self.hook(end))

    async def final(self) -> Any:
        """The final value of a relay read to its end: ``inner``'s own, unless the
        transform changed what went out (then the relay's stream folds what it read)."""
        if self.changed:
            return NOT_KNOWN
        return await self.inner.get_final_response()

    async def fold(self, updates: Sequence[Any]) -> Any:
        """What ``updates`` amount to, folded the way ``inner`` folds its own."""
        return await refinalize(self.inner, updates)
