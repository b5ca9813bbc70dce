"""Checkpoints as values: a run's state, handed back by paused, failed and completed runs."""

from __future__ import annotations

from typing import Any, Literal, TypeAlias

import attrs

from agentcore.workflows._requests import PendingRequest
from agentcore.workflows._state import FrozenState

__all__ = ["RunStatus", "WorkflowCheckpoint"]

RunStatus: TypeAlias = Literal["running", "paused", "completed", "failed", "cancelled"]


@attrs.frozen
class WorkflowCheckpoint:
    """A run's state at a barrier. Resume with ``workflow.run(checkpoint=...)`` (with
    ``responses=`` to answer requests, or a message to start a new turn of a
    completed run)."""

    run_id: str
    checkpoint_id: str
    parent_id: str | None
    superstep: int
    status: RunStatus
    workflow: str
    requests: tuple[PendingRequest[Any, Any], ...]
    state: FrozenState = attrs.field(repr=False, eq=False)
