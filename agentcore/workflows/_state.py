"""A run's data: everything a run changes lives here, never on the definition.

``RunState`` is mutable while one ``run()`` call drives it; a checkpoint holds a
frozen copy (``_fastpaths.frozen_state``) and every resume thaws a fresh one, so two
calls never share a mutable state.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from agentcore._equality import fields_eq, fields_hash
from agentcore._repr import fields_repr
from agentcore._types.usage import Usage
from agentcore.workflows._ids import RANDOM_IDS, RunCall
from agentcore.workflows._requests import PendingRequest

__all__ = ["Buffered", "Envelope", "Finished", "FrozenState", "PendingEntry", "RunState"]

Key = tuple[int, int, int]
"""A message's order key: (superstep sent, sender's ordinal, send index)."""


class Envelope:
    """One message on the inbox, or one answer to a request (``request`` set)."""

    __slots__ = ("declared", "key", "message", "request", "sources", "target")

    def __init__(
        self,
        target: str,
        key: Key,
        message: Any,
        sources: tuple[str, ...],
        declared: Any,
        request: PendingEntry | None = None,
    ) -> None:
        self.target = target
        self.key = key
        self.message = message
        self.sources = sources
        self.declared = declared
        self.request = request

    def __repr__(self) -> str:
        return f"Envelope({self.target!r}, {self.key}, {self.message!r})"


class PendingEntry:
    """A pending request with what only the engine sees: its order key and context.
    A plain class, as :class:`Envelope`: the engine's own record, written by hand into
    a checkpoint (``_codec``) and never compared."""

    __slots__ = ("context", "key", "request")

    def __init__(self, request: PendingRequest[Any, Any], key: Key, context: Any = None) -> None:
        self.request: PendingRequest[Any, Any] = request
        self.key: Key = key
        self.context: Any = context

    def __repr__(self) -> str:
        return f"PendingEntry({self.request!r}, {self.key}, {self.context!r})"


class Buffered:
    """A message held by a fan-in group (a plain class, as :class:`Envelope` is: a
    10,000-way fan-in makes one per message, and attrs' frozen stores would cost it
    three times the object)."""

    __slots__ = ("declared", "key", "message", "source")

    def __init__(self, source: str, key: Key, message: Any, declared: Any) -> None:
        self.source: str = source
        self.key: Key = key
        self.message: Any = message
        self.declared: Any = declared

    def __repr__(self) -> str:
        return f"Buffered({self.source!r}, {self.key}, {self.message!r})"


@attrs.frozen
class Finished:
    """What one invocation staged before its superstep failed (a *pending write*).

    Kept in the failed (or cancelled) checkpoint under the invocation's ordinal; a
    resume that recomputes the same invocation (same ordinal, executor and message
    key) replays these effects instead of calling the handler again.
    """

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    executor_id: str
    key: Key
    sends: tuple[tuple[Any, Any, str | None], ...]
    outputs: tuple[Any, ...]
    requests: tuple[tuple[PendingRequest[Any, Any], Any], ...]
    state: Any
    state_set: bool
    shared: Mapping[str, Any]
    deleted: tuple[str, ...]
    events: tuple[tuple[str, str, Any], ...]
    """What it emitted: (executor id, name, data); a sub-workflow node's events carry
    the child executor's id under the node's (``"review/analyst"``)."""
    usage: Usage | None = None


def _no_finished() -> dict[int, Finished]:
    return {}


@attrs.frozen
class FrozenState:
    """An immutable copy of a run's data (what a checkpoint holds)."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    run_id: str
    superstep: int
    inbox: tuple[Envelope, ...]
    buffers: Mapping[str, tuple[Buffered, ...]]
    states: Mapping[str, Any]
    shared: Mapping[str, Any]
    pending: Mapping[str, PendingEntry]
    answered: tuple[str, ...]
    finished: Mapping[int, Finished] = attrs.field(factory=lambda: _no_finished())
    """Pending writes of the superstep after ``superstep``, by ordinal."""
    usage: Usage | None = None
    """Tokens the run's agents spent, over the whole lineage."""


class RunState:
    """The mutable data of one run while a ``run()`` call drives it."""

    __slots__ = (
        "answered",
        "buffers",
        "call",
        "finished",
        "inbox",
        "pending",
        "run_id",
        "shared",
        "states",
        "superstep",
        "usage",
    )

    def __init__(
        self,
        run_id: str,
        *,
        superstep: int = 0,
        inbox: list[Envelope] | None = None,
        buffers: dict[str, list[Buffered]] | None = None,
        states: dict[str, Any] | None = None,
        shared: dict[str, Any] | None = None,
        pending: dict[str, PendingEntry] | None = None,
        answered: list[str] | None = None,
        finished: dict[int, Finished] | None = None,
        usage: Usage | None = None,
        call: RunCall | None = None,
    ) -> None:
        self.run_id = run_id
        self.superstep = superstep
        self.inbox: list[Envelope] = inbox if inbox is not None else []
        self.buffers: dict[str, list[Buffered]] = buffers if buffers is not None else {}
        self.states: dict[str, Any] = states if states is not None else {}
        self.shared: dict[str, Any] = shared if shared is not None else {}
        self.pending: dict[str, PendingEntry] = pending if pending is not None else {}
        self.answered: list[str] = answered if answered is not None else []
        self.finished: dict[int, Finished] = finished if finished is not None else {}
        self.usage = usage
        self.call = RunCall(RANDOM_IDS) if call is None else call
        """The ``run()`` call driving the run: its ids and deps (never saved)."""

    @classmethod
    def thaw(cls, frozen: FrozenState, call: RunCall | None = None) -> RunState:
        return cls(
            frozen.run_id,
            superstep=frozen.superstep,
            inbox=list(frozen.inbox),
            buffers={k: list(v) for k, v in frozen.buffers.items()},
            states=dict(frozen.states),
            shared=dict(frozen.shared),
            pending=dict(frozen.pending),
            answered=list(frozen.answered),
            finished=dict(frozen.finished),
            usage=frozen.usage,
            call=call,
        )
