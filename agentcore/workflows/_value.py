"""The checkpoint value: a run's state at a barrier (JSON in ``_checkpoint``)."""

from __future__ import annotations

import datetime
from typing import Any, Literal, TypeAlias

import attrs

from agentcore._repr import fields_repr
from agentcore.workflows._requests import PendingRequest
from agentcore.workflows._state import FrozenState

__all__ = ["RunStatus", "WorkflowCheckpoint"]

RunStatus: TypeAlias = Literal["running", "paused", "completed", "failed", "cancelled"]


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds")


@attrs.frozen
class WorkflowCheckpoint:
    """A run's state at a barrier, as a value.

    Resume with ``workflow.run(checkpoint=...)`` (``responses=`` answers requests; a
    message starts a new turn of a completed run). Save it anywhere with
    ``agentcore.serialization.to_json`` and read it back with ``workflow.restore(text)``:
    only a definition knows the stored types.
    """

    __repr__ = fields_repr

    run_id: str
    checkpoint_id: str
    parent_id: str | None
    superstep: int
    status: RunStatus
    workflow: str
    requests: tuple[PendingRequest[Any, Any], ...]
    workflow_version: str | None = None
    created_at: str = attrs.field(factory=lambda: _now(), repr=False)
    state: FrozenState | None = attrs.field(default=None, repr=False, eq=False)
    registry: Any = attrs.field(default=None, repr=False, eq=False)
