"""What a run saves, and the failure reports that carry a checkpoint (design §3.13-3.15).

A checkpoint is the run's state at the last barrier; a failed or cancelled one also
keeps, as *pending writes*, what the invocations of the interrupted superstep that had
finished staged, so a resume replays them instead of running their handlers again.
Saves go to the run's store shielded from cancellation: a record is written whole.
"""

from __future__ import annotations

import os
import time
from collections.abc import Coroutine, Sequence
from typing import Any, TypeVar

import anyio
import attrs
from typing_extensions import TypeIs

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
from agentcore.workflows._stores import InMemoryCheckpointStore
from agentcore.workflows.errors import (
    CheckpointError,
    ExecutorFailedError,
    ExecutorTimeoutError,
    WorkflowConvergenceError,
)
from agentcore.workflows.protocols import (
    CheckpointStore,
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
    "has_pending_writes",
    "has_run_claims",
    "save",
    "save_pending_write",
    "with_pending_writes",
]


def _provides(store: object, members: tuple[str, ...], protocol: type[Any]) -> bool:
    """``isinstance(store, protocol)``, cheap when the store's class defines the
    protocol's methods: on Python 3.11 every ``isinstance`` against a runtime-checkable
    protocol collects the protocol's members anew (10-25 µs, paid once per run even
    without a store). Anything else (an instance attribute, ``__getattr__``) still
    gets the full check."""
    if store is None:
        return False
    cls = type(store)
    if all(getattr(cls, name, None) is not None for name in members):
        return True
    return isinstance(store, protocol)


T = TypeVar("T")


async def shielded(store: object, call: Coroutine[Any, Any, T]) -> T:
    """``await call`` (a call to ``store``) shielded from cancellation. The in-memory
    store's methods never suspend, so no cancellation can land inside them: they run
    without a cancel scope, which costs about 3.5 µs to enter and leave, paid per
    save and per claim. Any other store (a subclass too, which may await) gets one."""
    if type(store) is InMemoryCheckpointStore:
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
    Every store call is shielded from cancellation: a cancelled run still releases."""

    __slots__ = ("_taken_at", "owner", "run_id", "store", "ttl")

    def __init__(self, store: SupportsRunClaims, run_id: str, ttl: float = CLAIM_TTL) -> None:
        self.store = store
        self.run_id = run_id
        self.ttl = ttl
        # never from the run's id source: two processes seeded alike must not share
        # an owner (the claim would let both drive the run)
        self.owner = f"pid{os.getpid()}-{os.urandom(6).hex()}"
        self._taken_at = 0.0

    async def take(self) -> None:
        """Claim (or renew the claim on) the run; ``RunStateError`` when another
        process holds an unexpired claim on it."""
        self._taken_at = time.monotonic()  # before the store's clock starts the ttl
        store = self.store
        taken = await shielded(store, store.claim(self.run_id, self.owner, self.ttl))
        if not taken:
            raise RunStateError(
                f"run {self.run_id!r} is being driven by another process (it holds the run's "
                f"claim); wait for it to pause or finish, or, if that process crashed, for "
                f"its claim to expire ({self.ttl:g} s after it was last renewed)"
            )

    async def renew(self) -> None:
        """At a barrier: renew the claim once a tenth of its ttl has passed since it
        was last taken, so every superstep starts with at least 90% of the ttl ahead
        of it, and a run of quick supersteps does not pay a store write for each."""
        if time.monotonic() - self._taken_at >= self.ttl / 10:
            await self.take()

    async def release(self) -> None:
        await shielded(self.store, self.store.release(self.run_id, self.owner))


def checkpoint_of(
    state: RunState,
    graph: Graph,
    parent_id: str | None,
    status: RunStatus,
    done: Sequence[WorkflowContext[Any, Any] | None] | None,
) -> WorkflowCheckpoint:
    """``state`` as a checkpoint. ``done``: the contexts of the superstep under way
    (``None`` slots: not finished); a failed or cancelled checkpoint keeps the finished
    ones as pending writes, beside those it already had."""
    frozen = frozen_state(state)
    if done is not None and status in ("failed", "cancelled"):
        finished = dict(state.finished)
        inbox = state.inbox
        for ctx in done:
            if ctx is not None:
                finished[ctx.ordinal] = finished_of(ctx, inbox[ctx.ordinal].key)
        frozen = attrs.evolve(frozen, finished=finished)
    return workflow_checkpoint(
        state.run_id,
        state.call.checkpoint_id(state.superstep),
        parent_id,
        state.superstep,
        status,
        graph.name,
        tuple(e.request for e in frozen.pending.values()),
        graph.version,
        frozen,
        graph.registry,
    )


async def save(store: CheckpointStore | None, checkpoint: WorkflowCheckpoint | None) -> None:
    """Write ``checkpoint`` to ``store`` (if both are given), shielded from cancellation."""
    if store is None or checkpoint is None:
        return
    await shielded(store, store.save(CheckpointRecord.of(checkpoint)))


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


async def with_pending_writes(
    store: CheckpointStore, checkpoint: WorkflowCheckpoint
) -> WorkflowCheckpoint:
    """``checkpoint`` with the pending writes ``store`` keeps under it (those it holds
    itself win); a write this definition cannot read is left out, so it runs again."""
    state = checkpoint.state
    if not has_pending_writes(store) or state is None:
        return checkpoint
    payloads = await store.load_pending_writes(checkpoint.run_id, checkpoint.checkpoint_id)
    if not payloads:
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
