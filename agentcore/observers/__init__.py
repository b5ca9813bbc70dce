"""Observers: read-only hooks beside the call path.

An observer is any object with some of the methods ``on_run_start``,
``on_run_end``, ``on_model_call_start``, ``on_model_call_end``,
``on_tool_call_start`` and ``on_tool_call_end`` (sync or async), each taking one
frozen event. Observers cannot change the run; an exception raised by one is
logged on the ``agentcore.observers`` logger and swallowed. Use middleware when
you need to influence behaviour.

The event classes (``_events.py``) load on first use: a run without observers
never builds one, so ``import agentcore`` does not pay for them.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from agentcore._types.messages import Message

if TYPE_CHECKING:
    from agentcore.observers._events import (
        ModelCallEnded,
        ModelCallStarted,
        RunEnded,
        RunStarted,
        ToolCallEnded,
        ToolCallStarted,
    )

__all__ = [
    "ModelCallEnded",
    "ModelCallStarted",
    "ObserverSet",
    "RunEnded",
    "RunStarted",
    "ToolCallEnded",
    "ToolCallStarted",
]

_EVENTS = frozenset(__all__) - {"ObserverSet"}


def __getattr__(name: str) -> Any:
    if name not in _EVENTS:
        raise AttributeError(f"module 'agentcore.observers' has no attribute {name!r}")
    from agentcore.observers import _events

    value = getattr(_events, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


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
        from agentcore.observers._events import RunStarted

        await self.notify("on_run_start", RunStarted(run_id, agent_name, tuple(messages)))

    async def run_ended(
        self,
        run_id: str,
        agent_name: str | None,
        response: Any = None,
        *,
        error: BaseException | None = None,
    ) -> None:
        from agentcore.observers._events import RunEnded

        await self.notify("on_run_end", RunEnded(run_id, agent_name, response, error))

    async def model_call_started(
        self, run_id: str, messages: Sequence[Message], options: Mapping[str, Any]
    ) -> None:
        from agentcore.observers._events import ModelCallStarted

        event = ModelCallStarted(run_id, tuple(messages), dict(options))
        await self.notify("on_model_call_start", event)

    async def model_call_ended(self, run_id: str, response: Any) -> None:
        from agentcore.observers._events import ModelCallEnded

        await self.notify("on_model_call_end", ModelCallEnded(run_id, response))

    async def tool_call_started(
        self, run_id: str, call_id: str, name: str, arguments: Mapping[str, Any]
    ) -> None:
        from agentcore.observers._events import ToolCallStarted

        await self.notify("on_tool_call_start", ToolCallStarted(run_id, call_id, name, arguments))

    async def tool_call_ended(
        self, run_id: str, call_id: str, name: str, result: Any, error: str | None
    ) -> None:
        from agentcore.observers._events import ToolCallEnded

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
