"""What a run needs so that replaying it is exact: the engine-neutral protocols of a
durable engine, and the per-run hooks the tool loop consults.

A durable run re-executes the agent loop and its middleware on recovery and reads
the results of finished steps from the engine. That replay takes the same path
only if the run makes the same decisions: the same run and request ids, the same
step order for parallel tool calls, and engine failures that end the run instead
of becoming tool results the model sees. This module holds those pieces; it
imports nothing from the rest of the kernel, so the loop modules can use it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol, runtime_checkable

import attrs

from agentcore._equality import fields_eq, fields_hash
from agentcore._repr import fields_repr

__all__ = [
    "DurableEngine",
    "DurableRun",
    "StepPolicy",
    "StepSlot",
    "request_id",
]

JSON = Any
"""A JSON-compatible value: what crosses a step boundary."""


def request_id(run_id: str, call_id: str, kind: str, detail: str = "") -> str:
    """The id of an approval or user-input request, derived from the run and the call.

    A run replayed with the same run id issues the same ids, so a decision given
    for a request shown before a crash still matches after recovery. A request
    stays bound to its run: the same call in another run gets another id.
    """
    import base64
    import hashlib  # 3.5 ms of import time (OpenSSL): only a run that asks pays it

    digest = hashlib.sha256(f"{run_id}\0{call_id}\0{kind}\0{detail}".encode()).digest()
    return "apr_" + base64.urlsafe_b64encode(digest[:16]).rstrip(b"=").decode("ascii")


@attrs.frozen(kw_only=True)
class StepPolicy:
    """How the engine runs one step's body.

    ``max_attempts`` counts engine-level attempts of a body that raises (a crash
    is not an attempt: the step in flight runs again after recovery, whatever
    this says). ``backoff`` is the first delay between attempts in seconds,
    multiplied by ``backoff_rate`` after each.
    """

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    max_attempts: int = 1
    backoff: float = 1.0
    backoff_rate: float = 2.0

    def __attrs_post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1, got {self.max_attempts}")
        if self.backoff < 0 or self.backoff_rate < 1:
            raise ValueError(
                f"backoff must be >= 0 and backoff_rate >= 1, got {self.backoff} "
                f"and {self.backoff_rate}"
            )


class StepSlot(Protocol):
    """A step position drawn in advance (see :meth:`DurableEngine.reserve`)."""

    async def step(
        self,
        name: str,
        body: Callable[[], Awaitable[JSON]],
        *,
        policy: StepPolicy | None = None,
    ) -> JSON:
        """Run ``body`` as the step at this position (or return its recorded result)."""
        ...


@runtime_checkable
class DurableEngine(Protocol):
    """A durable execution engine, as the agent loop needs it.

    Workflow code (the agent loop and every middleware) is re-executed on
    recovery; a step's body runs once and its JSON result is recorded, then read
    back on replay instead of running again.
    """

    @property
    def name(self) -> str:
        """The engine's name, for messages: ``"dbos"``, ``"memory"``, ..."""
        ...

    @property
    def errors(self) -> tuple[type[BaseException], ...]:
        """Exception types that belong to the engine: they end the run, and are never
        turned into a tool result the model sees."""
        ...

    def active(self) -> bool:
        """True inside a durable run's workflow code (and False inside a step)."""
        ...

    def new_run_key(self) -> str:
        """A key for a new agent run inside the current durable run: unique to it,
        and the same when the durable run is replayed."""
        ...

    async def step(
        self,
        name: str,
        body: Callable[[], Awaitable[JSON]],
        *,
        policy: StepPolicy | None = None,
    ) -> JSON:
        """Run ``body`` as the next step (or return its recorded result on replay)."""
        ...

    def reserve(self, count: int) -> Sequence[StepSlot] | None:
        """Draw ``count`` step positions now, in order, for steps that start later
        in any order; ``None`` when the engine cannot (the calls then run one by one)."""
        ...

    async def receive(self, topic: str, *, wait: float | None = None) -> JSON | None:
        """Wait durably (at most ``wait`` seconds, or without limit) for a message sent
        to this durable run on ``topic``; ``None`` when none came in time."""
        ...

    async def publish(self, key: str, value: JSON) -> None:
        """Publish a value under ``key`` for clients of this durable run to read."""
        ...


class DurableRun:
    """What a durable wrapper attaches to a run (``RunContext.durable``).

    The tool loop asks it before a batch of calls starts, so the calls' steps are
    drawn in call order whatever order their tasks reach the engine in, and asks
    it whether an exception raised inside a tool belongs to the engine.
    """

    __slots__ = ("_slots", "engine", "errors", "name")

    def __init__(self, engine: DurableEngine, name: str) -> None:
        self.engine: DurableEngine = engine
        self.name: str = name
        self.errors: tuple[type[BaseException], ...] = tuple(engine.errors)
        self._slots: dict[str, StepSlot] = {}

    def before_batch(self, call_ids: Sequence[str]) -> bool:
        """Draw one step position per call, in call order.

        Returns True when the engine cannot reserve positions: the loop then runs
        the calls one at a time in call order, so their steps are in that order.
        """
        slots = self.engine.reserve(len(call_ids))
        if slots is None:
            return True
        self._slots.update(zip(call_ids, slots, strict=True))
        return False

    def take_slot(self, call_id: str) -> StepSlot | None:
        """The position drawn for ``call_id`` in this batch, if any (used once)."""
        return self._slots.pop(call_id, None)
