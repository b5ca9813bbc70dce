"""A stored run as ``Workflow.inspect`` reports it.

Inspecting reads a checkpoint store, so this loads with the first ``inspect()`` (or
when named): a run that only runs never needs it.
"""

from __future__ import annotations

from typing import Any

import attrs

from agentcore._equality import fields_eq, fields_hash
from agentcore._repr import fields_repr
from agentcore.workflows._checkpoint import RunStatus
from agentcore.workflows._requests import PendingRequest

__all__ = ["RunSnapshot"]


@attrs.frozen
class RunSnapshot:
    """A stored run as ``Workflow.inspect`` reports it."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    run_id: str
    status: RunStatus
    superstep: int
    requests: tuple[PendingRequest[Any, Any], ...]
    checkpoint_id: str | None
    workflow_version: str | None
