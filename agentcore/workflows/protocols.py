"""The workflow seams, as protocols."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from agentcore.workflows._checkpoint import CheckpointInfo, CheckpointRecord
from agentcore.workflows._context import WorkflowContext
from agentcore.workflows._ids import IdSource

__all__ = ["CheckpointStore", "Executor", "IdSource", "SupportsPendingWrites"]


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
