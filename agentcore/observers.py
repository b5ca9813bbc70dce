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
import logging
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from agentcore._messages import Message

__all__ = [
    "ModelCallEnded",
    "ModelCallStarted",
    "ObserverSet",
    "RunEnded",
    "RunStarted",
    "ToolCallEnded",
    "ToolCallStarted",
]

logger = logging.getLogger("agentcore.observers")


@attrs.frozen
class RunStarted:
    run_id: str
    agent_name: str | None
    messages: tuple[Message, ...]


@attrs.frozen
class RunEnded:
    run_id: str
    agent_name: str | None
    response: Any = None
    error: BaseException | None = None


@attrs.frozen
class ModelCallStarted:
    run_id: str
    messages: tuple[Message, ...]
    options: Mapping[str, Any]


@attrs.frozen
class ModelCallEnded:
    run_id: str
    response: Any = None
    error: BaseException | None = None


@attrs.frozen
class ToolCallStarted:
    run_id: str
    call_id: str
    name: str
    arguments: Mapping[str, Any]


@attrs.frozen
class ToolCallEnded:
    run_id: str
    call_id: str
    name: str
    result: Any = None
    error: str | None = None


class ObserverSet:
    """Delivers events to observers, isolating the run from their failures."""

    __slots__ = ("observers",)

    def __init__(self, observers: Sequence[object] = ()) -> None:
        self.observers = tuple(observers)

    def __bool__(self) -> bool:
        return bool(self.observers)

    async def notify(self, hook: str, event: object) -> None:
        for observer in self.observers:
            method = getattr(observer, hook, None)
            if method is None:
                continue
            try:
                outcome = method(event)
                if inspect.isawaitable(outcome):
                    await outcome
            except Exception:
                logger.exception("observer %r failed in %s; the run goes on", observer, hook)
