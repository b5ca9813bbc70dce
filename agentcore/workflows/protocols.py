"""The workflow seams, as protocols."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from agentcore.workflows._checkpoint import CheckpointInfo, CheckpointRecord, RunStatus
from agentcore.workflows._context import WorkflowContext
from agentcore.workflows._ids import IdSource

__all__ = [
    "CheckpointStore",
    "Executor",
    "IdSource",
    "SupportsCombinedClaims",
    "SupportsListRuns",
    "SupportsPendingWrites",
    "SupportsRunClaims",
]


@runtime_checkable
class Executor(Protocol):
    """A workflow node: an id and one coroutine that handles one message.

    The annotations of ``handle`` (or explicit ``input_types`` / ``output_types`` /
    ``yield_types`` attributes) tell the builder what the node accepts, sends and
    yields; they are read once when the node is added, never per message.
    """

    @property
    def id(self) -> str: ...

    async def handle(self, message: Any, ctx: WorkflowContext[Any, Any]) -> None: ...


@runtime_checkable
class CheckpointStore(Protocol):
    """Where runs' checkpoints live. Stores keep opaque JSON text; they never see user types.

    ``save`` must be atomic per record. ``load`` with ``checkpoint_id=None`` returns the
    latest record of the run (the last one saved), or ``None``.
    """

    async def save(self, record: CheckpointRecord) -> None: ...

    async def load(
        self, run_id: str, checkpoint_id: str | None = None
    ) -> CheckpointRecord | None: ...

    async def list_checkpoints(self, run_id: str) -> Sequence[CheckpointInfo]: ...

    async def delete(self, run_id: str) -> None: ...


@runtime_checkable
class SupportsListRuns(Protocol):
    """A store that lists the runs it keeps: the latest checkpoint of each run, the most
    recently saved last; only runs of the workflow named ``workflow`` and/or whose latest
    status is ``status`` when given (``ValueError`` for a status that is not a
    ``RunStatus``). Each run's checkpoints are then ``list_checkpoints(run_id)``. The
    in-memory, SQLite and PostgreSQL stores have it."""

    async def runs(
        self, *, workflow: str | None = None, status: RunStatus | None = None
    ) -> Sequence[CheckpointInfo]: ...


@runtime_checkable
class SupportsPendingWrites(Protocol):
    """A store that also keeps *pending writes*: what each finished invocation of a
    superstep staged, saved as it finishes, under the checkpoint the superstep started
    from. A resume from that checkpoint replays them instead of running the handlers
    again, even when the process died before it could write a failed checkpoint.
    Payloads are opaque JSON text, like checkpoints."""

    async def save_pending_write(
        self, run_id: str, checkpoint_id: str, ordinal: int, payload: str
    ) -> None: ...

    async def load_pending_writes(self, run_id: str, checkpoint_id: str) -> Sequence[str]: ...


@runtime_checkable
class SupportsRunClaims(Protocol):
    """A store that can stop two processes from driving one run at once.

    A run claims its id before its first superstep, renews the claim at its barriers
    and releases it when the call returns, pauses, fails or is cancelled. ``claim``
    answers ``False`` while another owner holds an unexpired claim; a claim older than
    ``ttl`` seconds belongs to a crashed process and may be taken over. ``release``
    drops the claim only if ``owner`` still holds it. A store without this capability
    gives no such protection.
    """

    async def claim(self, run_id: str, owner: str, ttl: float) -> bool: ...

    async def release(self, run_id: str, owner: str) -> None: ...


@runtime_checkable
class SupportsCombinedClaims(Protocol):
    """A store with run claims and pending writes that joins a run's claim to the read
    that starts it and its release to the write that ends it, each in one round trip
    and one transaction. Optional: without it, a run makes the same calls one by one
    (``claim`` then ``load`` and ``load_pending_writes``; ``save`` per record then
    ``release``), with the same effects.

    ``claim_and_load`` takes the claim as ``claim`` does and, only if it was taken,
    reads what ``load(run_id, checkpoint_id)`` returns with the pending writes kept
    under that checkpoint (``None`` and ``()`` when there is none); the whole answer
    is ``None`` when another owner holds the claim.

    ``save_and_claim`` takes the claim as ``claim`` does and, only if it was taken,
    saves ``record`` as ``save`` does: all of it or none of it; ``False`` (nothing
    written) when another owner holds the claim. A new run whose id was generated
    starts with it: nothing of that run is stored before its first record, so no other
    driver can contest it until then.

    ``save_and_release`` saves ``records`` in order, each with the effects of ``save``,
    then releases ``owner``'s claim as ``release`` does: all of it or none of it.
    """

    async def claim_and_load(
        self, run_id: str, owner: str, ttl: float, checkpoint_id: str | None = None
    ) -> tuple[CheckpointRecord | None, Sequence[str]] | None: ...

    async def save_and_claim(self, record: CheckpointRecord, owner: str, ttl: float) -> bool: ...

    async def save_and_release(
        self, records: Sequence[CheckpointRecord], run_id: str, owner: str
    ) -> None: ...
