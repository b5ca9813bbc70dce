"""What a run saves, and the failure reports that carry a checkpoint (design §3.13-3.15).

A checkpoint is the run's state at the last barrier; a failed or cancelled one also
keeps, as *pending writes*, what the invocations of the interrupted superstep that had
finished staged, so a resume replays them instead of running their handlers again.
Saves go to the run's store shielded from cancellation: a record is written whole.
"""

from __future__ import annotations

import time
from collections.abc import Coroutine, Sequence
from typing import Any, TypeVar

import anyio
import attrs
from typing_extensions import TypeIs

from agentcore._run_context import new_run_id
from agentcore.errors import RunStateError
from agentcore.workflows._checkpoint import (
    CheckpointRecord,
    Durability,
    RunStatus,
    WorkflowCheckpoint,
)
from agentcore.workflows._codec import decode_pending_write, encode_pending_write
from agentcore.workflows._context import WorkflowContext
from agentcore.workflows._events import (
    ErrorInfo,
    ExecutorFailed,
    RunFailed,
    SuperstepAborted,
    WorkflowEvent,
)
from agentcore.workflows._fastpaths import frozen_state, workflow_checkpoint
from agentcore.workflows._graph import Graph
from agentcore.workflows._replay import finished_of
from agentcore.workflows._state import Finished, Key, RunState
from agentcore.workflows._stores import InMemoryCheckpointStore, SqliteCheckpointStore
from agentcore.workflows.errors import (
    CheckpointError,
    ExecutorFailedError,
    ExecutorTimeoutError,
    WorkflowConvergenceError,
)
from agentcore.workflows.protocols import (
    CheckpointStore,
    SupportsCombinedClaims,
    SupportsPendingWrites,
    SupportsRunClaims,
)

__all__ = [
    "CLAIM_TTL",
    "RunClaim",
    "RunFailure",
    "check_durability",
    "checkpoint_of",
    "convergence_failure",
    "executor_failure",
    "first_save_claims",
    "has_combined_claims",
    "has_pending_writes",
    "has_run_claims",
    "load_run",
    "save",
    "save_last",
    "save_pending_write",
    "with_pending_writes",
]


def _provides(store: object, members: tuple[str, ...], protocol: type[Any]) -> bool:
    """``isinstance(store, protocol)``, cheap when the store's class defines the
    protocol's methods: on Python 3.11 every ``isinstance`` against a runtime-checkable
    protocol collects the protocol's members anew (10-25 µs, paid once per run even
    without a store). A class found to define them is remembered (a run asks three
    times). Anything else (an instance attribute, ``__getattr__``) still gets the full
    check."""
    if store is None:
        return False
    cls = type(store)
    if (cls, members) in _DEFINES:
        return True
    for name in members:
        if getattr(cls, name, None) is None:
            return isinstance(store, protocol)
    _DEFINES.add((cls, members))
    return True


_DEFINES: set[tuple[type[Any], tuple[str, ...]]] = set()
"""(store class, protocol members) pairs whose class defines every member."""


T = TypeVar("T")
_SHIELD_THEMSELVES: frozenset[type[object]] = frozenset(
    {InMemoryCheckpointStore, SqliteCheckpointStore}
)


async def shielded(store: object, call: Coroutine[Any, Any, T]) -> T:
    """``await call`` (a call to ``store``) shielded from cancellation. The built-in
    stores need no scope of the engine's, which costs about 3.5 µs to enter and leave,
    paid per save and per claim: the in-memory store's methods never suspend, so no
    cancellation can land inside them, and the SQLite store's writes enter their own
    shielded scope before their first suspension. Any other store (a subclass too,
    which may await first) gets one."""
    if type(store) in _SHIELD_THEMSELVES:
        return await call
    done: list[T] = []  # a with block's result, as the type checkers read a scope
    with anyio.CancelScope(shield=True):
        done.append(await call)
    return done[0]


def has_run_claims(store: object) -> TypeIs[SupportsRunClaims]:
    """Whether ``store`` can claim runs (:class:`SupportsRunClaims`)."""
    return _provides(store, ("claim", "release"), SupportsRunClaims)


def has_pending_writes(store: object) -> TypeIs[SupportsPendingWrites]:
    """Whether ``store`` keeps pending writes (:class:`SupportsPendingWrites`)."""
    return _provides(store, ("save_pending_write", "load_pending_writes"), SupportsPendingWrites)


def has_combined_claims(store: object) -> TypeIs[SupportsCombinedClaims]:
    """Whether ``store`` joins claims to loads and releases to saves
    (:class:`SupportsCombinedClaims`)."""
    members = ("claim_and_load", "save_and_claim", "save_and_release")
    return _provides(store, members, SupportsCombinedClaims)


class RunFailure(Exception):
    """A run ended with an error: the events to report first, then ``error``."""

    def __init__(
        self,
        events: list[WorkflowEvent],
        error: BaseException,
        checkpoint: WorkflowCheckpoint | None,
    ) -> None:
        super().__init__(str(error))
        self.events = events
        self.error = error
        self.checkpoint = checkpoint


CLAIM_TTL = 600.0
"""Seconds a run's claim lasts unless renewed (at the barriers, see
:meth:`RunClaim.renew`): after that, the process that held it is taken for crashed
and another may drive the run."""


def check_durability(value: object) -> Durability:
    """``value`` if it is a durability mode, else a ``ValueError`` saying which are."""
    if value == "sync":
        return "sync"
    if value == "exit":
        return "exit"
    hint = (
        ' (there is no "async" mode: "sync" writes each barrier checkpoint before the '
        "next superstep starts, and costs a fraction of a millisecond on SQLite)"
        if value == "async"
        else ""
    )
    raise ValueError(
        f'durability must be "sync" (save at every barrier; the default) or "exit" (save '
        f"only when the run pauses, completes, fails or is cancelled), got {value!r}{hint}"
    )


class RunClaim:
    """One ``run()`` call's claim on its run id in a store with ``SupportsRunClaims``.
    Every store call is shielded from cancellation: a cancelled run still releases.
    ``held`` from the moment it is taken until it is released (by :meth:`release`, or
    with the run's last checkpoint by :func:`save_last`); only a held claim is renewed
    or released.

    ``joins``: the store, when the claim is to be taken with the run's first save
    (:meth:`take_with`) rather than before the run starts; see :func:`first_save_claims`."""

    __slots__ = ("_taken_at", "held", "joins", "owner", "run_id", "store", "ttl")

    def __init__(
        self,
        store: SupportsRunClaims,
        run_id: str,
        ttl: float = CLAIM_TTL,
        *,
        joins: SupportsCombinedClaims | None = None,
    ) -> None:
        self.store = store
        self.joins = joins
        self.run_id = run_id
        self.ttl = ttl
        # never from the run's id source: two processes seeded alike must not share an
        # owner (the claim would let both drive the run); random per process and
        # counted within one, so no urandom call per run
        self.owner = new_run_id()
        self._taken_at = 0.0
        self.held = False

    def _refused(self) -> RunStateError:
        return RunStateError(
            f"run {self.run_id!r} is being driven by another process (it holds the run's "
            f"claim); wait for it to pause or finish, or, if that process crashed, for "
            f"its claim to expire ({self.ttl:g} s after it was last renewed)"
        )

    async def take(self) -> None:
        """Claim (or renew the claim on) the run; ``RunStateError`` when another
        process holds an unexpired claim on it."""
        self._taken_at = time.monotonic()  # before the store's clock starts the ttl
        store = self.store
        if not await shielded(store, store.claim(self.run_id, self.owner, self.ttl)):
            raise self._refused()
        self.held = True

    async def take_with(self, store: SupportsCombinedClaims, record: CheckpointRecord) -> None:
        """Take the claim in the transaction that saves ``record``, the run's first;
        ``RunStateError`` (nothing written) when another process holds it."""
        self._taken_at = time.monotonic()
        if not await shielded(store, store.save_and_claim(record, self.owner, self.ttl)):
            raise self._refused()
        self.joins = None
        self.held = True

    async def take_and_load(
        self, checkpoints: CheckpointStore, checkpoint_id: str | None
    ) -> tuple[CheckpointRecord | None, Sequence[str]]:
        """:meth:`take`, then what :func:`load_run` reads from ``checkpoints`` (the
        claim's store): one round trip when the store has ``SupportsCombinedClaims``
        (the read then happens in the claim's transaction), else one call after the
        other."""
        store = self.store
        if not has_combined_claims(store):
            await self.take()
            return await load_run(checkpoints, self.run_id, checkpoint_id)
        self._taken_at = time.monotonic()
        found = await shielded(
            store, store.claim_and_load(self.run_id, self.owner, self.ttl, checkpoint_id)
        )
        if found is None:
            raise self._refused()
        self.held = True
        return found

    def due(self) -> bool:
        """Whether the claim is to be renewed at this barrier: held, and a tenth of its
        ttl has passed since it was last taken, so every superstep starts with at least
        90% of the ttl ahead of it, and a run of quick supersteps does not pay a store
        write for each. (Asked before awaiting :meth:`renew`: most barriers need not.)"""
        return self.held and time.monotonic() - self._taken_at >= self.ttl / 10

    async def renew(self) -> None:
        """At a barrier: renew the claim if it is :meth:`due`."""
        if self.due():
            await self.take()

    async def release(self) -> None:
        if self.held:
            await shielded(self.store, self.store.release(self.run_id, self.owner))
            self.held = False


async def load_run(
    store: CheckpointStore, run_id: str, checkpoint_id: str | None
) -> tuple[CheckpointRecord | None, Sequence[str]]:
    """The record a run resumes from (the latest, or ``checkpoint_id``) and the
    pending writes kept under it (none when the store keeps none)."""
    record = await store.load(run_id, checkpoint_id)
    if record is None or not has_pending_writes(store):
        return record, ()
    return record, await store.load_pending_writes(run_id, record.checkpoint_id)


def checkpoint_of(
    state: RunState,
    graph: Graph,
    parent_id: str | None,
    status: RunStatus,
    done: Sequence[WorkflowContext[Any, Any] | None] | None,
    created_at: str | None = None,
) -> WorkflowCheckpoint:
    """``state`` as a checkpoint (made now, unless ``created_at`` is given). ``done``:
    the contexts of the superstep under way (``None`` slots: not finished); a failed or
    cancelled checkpoint keeps the finished ones as pending writes, beside those it
    already had."""
    frozen = frozen_state(state)
    if done is not None and status in ("failed", "cancelled"):
        finished = dict(state.finished)
        inbox = state.inbox
        for ctx in done:
            if ctx is not None:
                finished[ctx.ordinal] = finished_of(ctx, inbox[ctx.ordinal].key)
        frozen = attrs.evolve(frozen, finished=finished)
    pending = frozen.pending
    return workflow_checkpoint(
        state.run_id,
        state.call.checkpoint_id(state.superstep),
        parent_id,
        state.superstep,
        status,
        graph.name,
        tuple([e.request for e in pending.values()]) if pending else (),
        graph.version,
        frozen,
        graph.registry,
        created_at,
    )


def first_save_claims(store: object) -> SupportsCombinedClaims | None:
    """``store`` if a new run with a generated id may take its claim with its first
    save (``save_and_claim``) instead of before its first superstep, else ``None``.

    The two are equivalent for such a run: no other driver can know its id until the
    store holds a record of it (nothing is written before the first save: a new run
    has no parent checkpoint to keep pending writes under), so there is nothing to
    contest before then; and if the id exists already (a seeded id source), the claim
    is refused with nothing written, as it would have been before the run. Only with
    durability "sync" (the caller checks): otherwise the first save is the run's last,
    and a refusal would come after all of its work."""
    return store if has_combined_claims(store) else None


async def save(
    store: CheckpointStore | None,
    record: CheckpointRecord | None,
    claim: RunClaim | None = None,
) -> None:
    """Write ``record`` to ``store`` (if both are given), shielded from cancellation;
    with the run's ``claim`` if that is to be taken with this save."""
    if store is None or record is None:
        return
    if claim is not None and claim.joins is not None:
        await claim.take_with(claim.joins, record)
        return
    await shielded(store, store.save(record))


async def save_last(
    store: CheckpointStore | None,
    records: Sequence[CheckpointRecord],
    claim: RunClaim | None,
) -> None:
    """Write a run's last ``records`` (its final barrier's, if unsaved, then its
    pause or completion) and release its ``claim``: nothing of the run happens after
    them, so with ``SupportsCombinedClaims`` they are one store call and one
    transaction; otherwise a save per record, then the release."""
    if store is not None and records:
        if claim is not None and claim.joins is not None:  # the run's first save too
            await save(store, records[0], claim)
            records = records[1:]
        if records and claim is not None and claim.held and has_combined_claims(store):
            await shielded(store, store.save_and_release(records, claim.run_id, claim.owner))
            claim.held = False
            return
        for record in records:
            await save(store, record)
    if claim is not None:
        await claim.release()


async def save_pending_write(
    store: SupportsPendingWrites,
    graph: Graph,
    run_id: str,
    checkpoint_id: str,
    ctx: WorkflowContext[Any, Any],
    key: Key,
) -> None:
    """Save what ``ctx``'s invocation staged under the checkpoint its superstep started
    from, shielded from cancellation (skipped when it holds an unstorable value)."""
    payload = encode_pending_write(graph.registry, ctx.ordinal, finished_of(ctx, key))
    if payload is None:
        return
    write = store.save_pending_write(run_id, checkpoint_id, ctx.ordinal, payload)
    await shielded(store, write)


def with_pending_writes(
    checkpoint: WorkflowCheckpoint, payloads: Sequence[str]
) -> WorkflowCheckpoint:
    """``checkpoint`` with the pending writes ``payloads`` (what its store keeps under
    it; those it holds itself win); a write this definition cannot read is left out,
    so it runs again."""
    state = checkpoint.state
    if not payloads or state is None:
        return checkpoint
    finished: dict[int, Finished] = {}
    for payload in payloads:
        try:
            ordinal, done = decode_pending_write(checkpoint.registry, payload)
        except CheckpointError:
            continue
        finished[ordinal] = done
    finished.update(state.finished)
    return attrs.evolve(checkpoint, state=attrs.evolve(state, finished=finished))


def executor_failure(
    run_id: str,
    executor_id: str,
    ordinal: int,
    superstep: int,
    error: BaseException,
    checkpoint: WorkflowCheckpoint,
) -> RunFailure:
    """An invocation failed for good: ``ExecutorFailedError`` (``ExecutorTimeoutError``
    for a timeout) with the original as its cause, after the three failure events."""
    info = ErrorInfo.of(error, executor_id)
    if isinstance(error, TimeoutError):
        wrapped: ExecutorFailedError = ExecutorTimeoutError(
            f"{executor_id!r} timed out in superstep {superstep}",
            executor_id=executor_id,
            run_id=run_id,
            superstep=superstep,
            checkpoint=checkpoint,
        )
    else:
        wrapped = ExecutorFailedError(
            f"{executor_id!r} failed in superstep {superstep}: {type(error).__name__}: {error}",
            executor_id=executor_id,
            run_id=run_id,
            superstep=superstep,
            checkpoint=checkpoint,
        )
    wrapped.__cause__ = error
    return RunFailure(
        [
            ExecutorFailed(executor_id, superstep, ordinal, info),
            SuperstepAborted(superstep, "failed"),
            RunFailed(run_id, info, checkpoint.checkpoint_id),
        ],
        wrapped,
        checkpoint,
    )


def convergence_failure(
    state: RunState, max_supersteps: int, checkpoint: WorkflowCheckpoint
) -> RunFailure:
    """The superstep limit was reached with messages waiting (§3.15): resumable from
    ``checkpoint`` with a higher limit."""
    pending: dict[str, int] = {}
    for env in state.inbox:
        pending[env.target] = pending.get(env.target, 0) + 1
    error = WorkflowConvergenceError(
        run_id=state.run_id,
        superstep=state.superstep,
        max_supersteps=max_supersteps,
        pending=pending,
        checkpoint=checkpoint,
    )
    return RunFailure(
        [RunFailed(state.run_id, ErrorInfo.of(error), checkpoint.checkpoint_id)],
        error,
        checkpoint,
    )
