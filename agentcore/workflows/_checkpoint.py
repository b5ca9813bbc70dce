"""Checkpoints: a run's state as a value, and as the versioned JSON document stores keep.

The document is the kernel's envelope (``agentcore.serialization.to_json``)
around format :data:`CHECKPOINT_FORMAT`. A reader accepts formats up to its own;
a format change that is not additive adds a migration to ``_MIGRATIONS`` (pure
functions on JSON, applied in order when reading) and a fixture under
``tests/workflows/fixtures/``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, cast

import attrs

from agentcore._converter_hooks import when_converter_loaded
from agentcore._equality import fields_eq, fields_hash
from agentcore._repr import fields_repr
from agentcore.workflows._codec import TypeRegistry, decode_state, encode_state
from agentcore.workflows._value import RunStatus, WorkflowCheckpoint
from agentcore.workflows.errors import CheckpointError

if TYPE_CHECKING:
    import cattrs

__all__ = [
    "CHECKPOINT_FORMAT",
    "NOT_SAVABLE",
    "CheckpointInfo",
    "CheckpointRecord",
    "Durability",
    "RunStatus",
    "WorkflowCheckpoint",
    "read_checkpoint",
]


CHECKPOINT_FORMAT = 1
"""The checkpoint format this agentcore writes (and the newest it reads)."""

Durability: TypeAlias = Literal["sync", "exit"]
"""What a run with a store writes (design §3.13): ``"sync"`` every barrier checkpoint
before the next superstep and each finished invocation's pending write; ``"exit"``
only the checkpoint of a pause, completion, failure or cancellation."""

_MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {}
"""``_MIGRATIONS[n]`` turns a format-``n`` document into format ``n + 1``."""


@attrs.frozen
class CheckpointRecord:
    """What a store keeps: indexed fields plus the checkpoint as JSON text."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    run_id: str
    checkpoint_id: str
    parent_id: str | None
    superstep: int
    status: RunStatus
    workflow: str
    workflow_version: str | None
    created_at: str
    format: int
    payload: str

    def row(
        self,
    ) -> tuple[str, str, str | None, int, RunStatus, str, str | None, str, int, str]:
        """The fields in their order: the row a store writes (``CheckpointRecord(*row)``
        reads one back)."""
        return (
            self.run_id,
            self.checkpoint_id,
            self.parent_id,
            self.superstep,
            self.status,
            self.workflow,
            self.workflow_version,
            self.created_at,
            self.format,
            self.payload,
        )

    @classmethod
    def of(cls, checkpoint: WorkflowCheckpoint) -> CheckpointRecord:
        """The record of ``checkpoint``: its payload is ``to_json(checkpoint)``. (A run
        writes the same record, byte for byte, through ``_fastpaths.RecordWriter``.)"""
        if checkpoint.registry is None or checkpoint.state is None:
            raise CheckpointError(NOT_SAVABLE)
        from agentcore.serialization import to_json

        return cls(
            checkpoint.run_id,
            checkpoint.checkpoint_id,
            checkpoint.parent_id,
            checkpoint.superstep,
            checkpoint.status,
            checkpoint.workflow,
            checkpoint.workflow_version,
            checkpoint.created_at,
            CHECKPOINT_FORMAT,
            to_json(checkpoint),
        )


NOT_SAVABLE = "this checkpoint was not made by a workflow run and cannot be saved"


@attrs.frozen
class CheckpointInfo:
    """One checkpoint of a run, as ``list_checkpoints`` reports it."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    run_id: str
    checkpoint_id: str
    parent_id: str | None
    superstep: int
    status: RunStatus
    created_at: str


def _unstructure(checkpoint: WorkflowCheckpoint) -> dict[str, Any]:
    if checkpoint.registry is None or checkpoint.state is None:
        raise CheckpointError(NOT_SAVABLE)
    return {
        "format": CHECKPOINT_FORMAT,
        "run_id": checkpoint.run_id,
        "checkpoint_id": checkpoint.checkpoint_id,
        "parent_id": checkpoint.parent_id,
        "superstep": checkpoint.superstep,
        "status": checkpoint.status,
        "created_at": checkpoint.created_at,
        "workflow": {"name": checkpoint.workflow, "version": checkpoint.workflow_version},
        **encode_state(checkpoint.registry, checkpoint.state),
    }


def _register_checkpoint_hook(converter: cattrs.Converter) -> None:
    converter.register_unstructure_hook(WorkflowCheckpoint, _unstructure)


# Registered when the converter loads: saving or writing a checkpoint loads it.
when_converter_loaded(_register_checkpoint_hook)


def read_checkpoint(
    registry: TypeRegistry, workflow: str, source: CheckpointRecord | str | Mapping[str, Any]
) -> WorkflowCheckpoint:
    """Read a stored checkpoint with ``registry``'s types (never importing anything)."""
    from agentcore.serialization import SCHEMA_VERSION

    if isinstance(source, CheckpointRecord):
        source = source.payload
    parsed: Any = source
    if isinstance(source, str):
        try:
            parsed = json.loads(source)
        except json.JSONDecodeError as exc:
            raise CheckpointError(f"a checkpoint must be JSON: {exc}") from None
    if not isinstance(parsed, Mapping):
        raise CheckpointError("not a workflow checkpoint (expected the envelope of to_json)")
    document = cast("Mapping[str, Any]", parsed)
    if document.get("kind") != "WorkflowCheckpoint":
        raise CheckpointError("not a workflow checkpoint (expected the envelope of to_json)")
    version = document.get("schema_version")
    if not isinstance(version, int) or version > SCHEMA_VERSION:
        raise CheckpointError(
            f"the checkpoint was written with schema version {version!r}; this agentcore reads "
            f"up to {SCHEMA_VERSION}: upgrade to read it"
        )
    data: dict[str, Any] = dict(document.get("data") or {})
    fmt = data.get("format")
    if not isinstance(fmt, int) or fmt < 1:
        raise CheckpointError(f"the checkpoint has no valid format number ({fmt!r})")
    if fmt > CHECKPOINT_FORMAT:
        raise CheckpointError(
            f"the checkpoint was written by a newer agentcore (format {fmt}); upgrade to read it"
        )
    while fmt < CHECKPOINT_FORMAT:
        data = _MIGRATIONS[fmt](data)
        fmt += 1
    stored: dict[str, Any] = dict(data.get("workflow") or {})
    if stored.get("name") != workflow:
        raise CheckpointError(
            f"the checkpoint belongs to workflow {stored.get('name')!r}, not {workflow!r}"
        )
    try:
        run_id, superstep, status = data["run_id"], int(data["superstep"]), data["status"]
        state = decode_state(registry, run_id, superstep, data)
    except CheckpointError:
        raise
    except (KeyError, TypeError, ValueError) as exc:
        raise CheckpointError(f"the checkpoint is malformed: {exc!r}") from exc
    return WorkflowCheckpoint(
        run_id,
        data["checkpoint_id"],
        data.get("parent_id"),
        superstep,
        status,
        workflow,
        tuple(e.request for e in state.pending.values()),
        stored.get("version"),
        data.get("created_at", ""),
        state,
        registry,
    )
