"""What one ``run()`` call produced."""

from __future__ import annotations

from typing import Any, Generic, Literal, TypeVar

import attrs

from agentcore._equality import fields_eq, fields_hash
from agentcore._repr import fields_repr
from agentcore._types.usage import Usage
from agentcore.workflows._events import WorkflowEvent
from agentcore.workflows._requests import PendingRequest
from agentcore.workflows._value import WorkflowCheckpoint

__all__ = ["WorkflowRunResult"]

OutT = TypeVar("OutT")


@attrs.frozen
class WorkflowRunResult(Generic[OutT]):
    """A completed or paused run (failures raise).

    ``outputs`` are the final outputs in commit order; ``intermediate`` the yields of
    other executors; ``requests`` what a paused run waits on; ``checkpoint`` the run's
    state after this call, to answer requests or continue the run later; ``usage``
    what its agents spent (``ctx.add_usage``).
    """

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    run_id: str
    status: Literal["completed", "paused"]
    outputs: tuple[OutT, ...]
    intermediate: tuple[Any, ...]
    requests: tuple[PendingRequest[Any, Any], ...]
    events: tuple[WorkflowEvent, ...] = attrs.field(repr=False)
    supersteps: int
    checkpoint: WorkflowCheckpoint | None = attrs.field(repr=False)
    usage: Usage | None = None
    """Tokens the run's agents spent so far (this call and the calls it resumed)."""

    @property
    def checkpoint_id(self) -> str | None:
        return None if self.checkpoint is None else self.checkpoint.checkpoint_id

    @property
    def output(self) -> OutT:
        """The one final output; ``ValueError`` if there are none or several."""
        if len(self.outputs) != 1:
            raise ValueError(
                f"the run has {len(self.outputs)} final outputs, not one; read .outputs "
                f"(status {self.status!r}, {len(self.intermediate)} intermediate outputs)"
            )
        return self.outputs[0]
