"""Observers: read-only hooks beside the call path.

An observer is any object with some of the methods ``on_run_start``,
``on_run_end``, ``on_model_call_start``, ``on_model_call_end``,
``on_tool_call_start`` and ``on_tool_call_end`` (sync or async), each taking one
frozen event. Observers cannot change the run; an exception raised by one is
logged on the ``agentcore.observers`` logger and swallowed. Use middleware when
you need to influence behaviour.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from types import MappingProxyType
from typing import Any, cast

import attrs

from agentcore._repr import fields_repr
from agentcore._types.messages import Message

__all__ = [
    "ModelCallEnded",
    "ModelCallStarted",
    "ObserverSet",
    "RunEnded",
    "RunStarted",
    "ToolCallEnded",
    "ToolCallStarted",
]


def _frozen(value: Any) -> Any:
    """A read-only copy of plain containers (dicts, lists, sets), recursively.

    Events must not hand an observer the live objects of the run: a dict of
    arguments changed by an observer would change what the tool receives.
    """
    if isinstance(value, Mapping):
        items = cast("Mapping[str, Any]", value)
        return MappingProxyType({k: _frozen(v) for k, v in items.items()})
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(v) for v in cast("Sequence[Any]", value))
    if isinstance(value, (set, frozenset)):
        return frozenset(_frozen(v) for v in cast("AbstractSet[Any]", value))
    return value


def _frozen_mapping(value: Mapping[str, Any]) -> Mapping[str, Any]:
    frozen: Mapping[str, Any] = _frozen(value)
    return frozen


def _messages(value: Sequence[Message]) -> tuple[Message, ...]:
    return tuple(value)


@attrs.frozen
class RunStarted:
    """An agent run began; ``messages`` are its input."""

    __repr__ = fields_repr

    run_id: str
    agent_name: str | None
    messages: tuple[Message, ...] = attrs.field(converter=_messages)


@attrs.frozen
class RunEnded:
    """An agent run ended with ``response`` (an ``AgentResponse``) or ``error``.

    In a streaming run it is sent when the stream is exhausted.
    """

    __repr__ = fields_repr

    run_id: str
    agent_name: str | None
    response: Any = None
    error: BaseException | None = None


@attrs.frozen
class ModelCallStarted:
    """The tool loop is about to call the model with the run's transcript.

    ``messages`` and ``options`` are what the loop hands to the chat middleware
    (which may still change them for the call).
    """

    __repr__ = fields_repr

    run_id: str
    messages: tuple[Message, ...] = attrs.field(converter=_messages)
    options: Mapping[str, Any] = attrs.field(converter=_frozen_mapping)


@attrs.frozen
class ModelCallEnded:
    """A model call returned ``response`` (a ``ChatResponse``, after chat middleware)."""

    __repr__ = fields_repr

    run_id: str
    response: Any = None
    error: BaseException | None = None


@attrs.frozen
class ToolCallStarted:
    """A tool is about to run with its validated ``arguments``."""

    __repr__ = fields_repr

    run_id: str
    call_id: str
    name: str
    arguments: Mapping[str, Any] = attrs.field(converter=_frozen_mapping)


@attrs.frozen
class ToolCallEnded:
    """A tool call ended: ``result`` is what the model will see; ``error`` names a failure."""

    __repr__ = fields_repr

    run_id: str
    call_id: str
    name: str
    result: Any = attrs.field(converter=_frozen)  # pyright: ignore[reportUnknownVariableType]  # attrs cannot infer a converter's type
    error: str | None = None


class ObserverSet(tuple[object, ...]):
    """Delivers events to observers, isolating the run from their failures.

    Observers are called in order; each may define any of the hooks, sync or async.
    The run calls one method per hook, which builds the event: no caller names an event
    class. A tuple, so that ``if observers:`` (asked several times per run) costs
    nothing and a run without observers builds no event at all.
    """

    __slots__ = ()

    def __new__(cls, observers: Sequence[object] = ()) -> ObserverSet:
        return super().__new__(cls, observers)

    async def run_started(
        self, run_id: str, agent_name: str | None, messages: Sequence[Message]
    ) -> None:
        await self.notify("on_run_start", RunStarted(run_id, agent_name, tuple(messages)))

    async def run_ended(
        self,
        run_id: str,
        agent_name: str | None,
        response: Any = None,
        *,
        error: BaseException | None = None,
    ) -> None:
        await self.notify("on_run_end", RunEnded(run_id, agent_name, response, error))

    async def model_call_started(
        self, run_id: str, messages: Sequence[Message], options: Mapping[str, Any]
    ) -> None:
        event = ModelCallStarted(run_id, tuple(messages), dict(options))
        await self.notify("on_model_call_start", event)

    async def model_call_ended(self, run_id: str, response: Any) -> None:
        await self.notify("on_model_call_end", ModelCallEnded(run_id, response))

    async def tool_call_started(
        self, run_id: str, call_id: str, name: str, arguments: Mapping[str, Any]
    ) -> None:
        await self.notify("on_tool_call_start", ToolCallStarted(run_id, call_id, name, arguments))

    async def tool_call_ended(
        self, run_id: str, call_id: str, name: str, result: Any, error: str | None
    ) -> None:
        event = ToolCallEnded(run_id, call_id, name, result, error)
        await self.notify("on_tool_call_end", event)

    async def notify(self, hook: str, event: object) -> None:
        """Call ``hook`` of every observer that has it; log and swallow what they raise."""
        for observer in self:
            method = getattr(observer, hook, None)
            if method is None:
                continue
            try:
                outcome = method(event)
                if inspect.isawaitable(outcome):
                    await outcome
            except Exception:
                import logging  # only when an observer fails

                logging.getLogger("agentcore.observers").exception(
                    "observer %r failed in %s; the run goes on", observer, hook
                )
