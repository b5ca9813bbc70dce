"""An in-memory durable engine that really replays: the test double of the seam.

Each "process" is a :class:`JournalEngine` over one shared :class:`Journal`. A step
whose position is in the journal returns the recorded result (after checking its
name); a new step runs its body and is recorded. Results go through ``json`` so
nothing but JSON crosses a step boundary, as with a real engine.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from agentcore.durable import JSON, StepPolicy, StepSlot


class StepMismatch(Exception):
    """The engine's own error: the replay met another step than the one recorded."""


class Journal:
    def __init__(self) -> None:
        self.steps: list[tuple[str, str]] = []  # (name, JSON result) by position
        self.executed: list[str] = []  # names of the bodies that really ran
        self.messages: dict[str, list[Any]] = {}
        self.events: dict[str, Any] = {}


class JournalEngine:
    name = "journal"
    errors: tuple[type[BaseException], ...] = (StepMismatch,)

    def __init__(self, journal: Journal, *, reserves: bool = True) -> None:
        self.journal = journal
        self.reserves = reserves
        self.position = 0
        self.in_workflow = True
        self.in_step = False

    def active(self) -> bool:
        return self.in_workflow and not self.in_step

    def new_run_key(self) -> str:
        self.position += 1  # like DBOS: the key takes a position of its own
        return f"wf:{self.position - 1}"

    async def step(
        self, name: str, body: Callable[[], Awaitable[JSON]], *, policy: StepPolicy | None = None
    ) -> JSON:
        position = self.position
        self.position += 1
        return await self._at(position, name, body)

    async def _at(self, position: int, name: str, body: Callable[[], Awaitable[JSON]]) -> JSON:
        steps = self.journal.steps
        if position < len(steps) and steps[position][1] != "\0pending":
            recorded_name, result = steps[position]
            if recorded_name != name:
                raise StepMismatch(
                    f"step {position} was recorded as {recorded_name!r}, not {name!r}"
                )
            return json.loads(result)
        while len(steps) <= position:
            steps.append(("", "\0pending"))
        self.in_step = True
        try:
            self.journal.executed.append(name)
            result = json.dumps(await body())
        finally:
            self.in_step = False
        steps[position] = (name, result)
        return json.loads(result)

    def reserve(self, count: int) -> Sequence[StepSlot] | None:
        if not self.reserves:
            return None
        slots = [Slot(self, self.position + i) for i in range(count)]
        self.position += count
        return slots

    async def receive(self, topic: str, *, wait: float | None = None) -> JSON | None:
        queue = self.journal.messages.get(topic, [])
        return queue.pop(0) if queue else None

    async def publish(self, key: str, value: JSON) -> None:
        self.journal.events[key] = json.loads(json.dumps(value))


class Slot:
    def __init__(self, engine: JournalEngine, position: int) -> None:
        self.engine = engine
        self.position = position

    async def step(
        self, name: str, body: Callable[[], Awaitable[JSON]], *, policy: StepPolicy | None = None
    ) -> JSON:
        return await self.engine._at(self.position, name, body)
