"""The fallible parts of a barrier that are not routing: shared-state merges and
fan-in firing. Both work on copies; the runner applies their results only when
the whole barrier succeeded."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from agentcore.workflows._context import _DELETED, WorkflowContext
from agentcore.workflows._graph import Graph, Node
from agentcore.workflows._state import Buffered, Envelope, PendingEntry, RunState
from agentcore.workflows._value import WorkflowCheckpoint
from agentcore.workflows.errors import SharedStateConflictError, WorkflowStalledError

__all__ = ["Failed", "fire_fan_ins", "merge_shared"]


class Failed(Exception):
    """An invocation failed for good; carries what the error report needs."""

    def __init__(self, node: Node, ordinal: int, error: BaseException) -> None:
        super().__init__(str(error))
        self.node = node
        self.ordinal = ordinal
        self.error = error


def merge_shared(
    contexts: Sequence[WorkflowContext[Any, Any]], graph: Graph, committed: Mapping[str, Any]
) -> dict[str, Any] | None:
    """Apply the superstep's shared writes in ordinal order (``merge`` folds them);
    two writes to an unmerged key fail the superstep."""
    writes: list[tuple[WorkflowContext[Any, Any], dict[str, Any]]] = [
        (ctx, ctx._shared._writes)
        for ctx in contexts
        if ctx._shared is not None and ctx._shared._writes
    ]
    if not writes:
        return None
    declared = graph.shared
    merged = dict(committed)
    writers: dict[str, str] = {}
    for ctx, staged in writes:
        for key, value in staged.items():
            merge = declared[key].merge
            if merge is not None and value is not _DELETED:
                merged[key] = merge(merged.get(key, declared[key].initial), value)
            elif key in writers:
                raise Failed(
                    graph.nodes[ctx.executor_id],
                    ctx.ordinal,
                    SharedStateConflictError(
                        f"{writers[key]!r} and {ctx.executor_id!r} both wrote the shared "
                        f"key {key!r} in one superstep; declare how to combine them with "
                        f"builder.add_shared({key!r}, merge=lambda old, new: ...)"
                    ),
                )
            elif value is _DELETED:
                merged.pop(key, None)
            else:
                merged[key] = value
            writers[key] = ctx.executor_id
    return merged


def fire_fan_ins(
    graph: Graph,
    state: RunState,
    failed_checkpoint: Callable[[], WorkflowCheckpoint],
    next_inbox: list[Envelope],
    buffers: dict[str, list[Buffered]],
    new_requests: Sequence[PendingEntry],
    superstep: int,
    base: int,
) -> None:
    """Fire every fan-in group whose region is quiet (nested joins upstream first):
    one tuple ordered by (source position, message key) onto the next inbox."""
    fan_ins = graph.fan_ins
    if not fan_ins:
        return
    held = {gid for gid, b in state.buffers.items() if b} | {gid for gid, b in buffers.items() if b}
    if not held:
        return
    busy = {env.target for env in next_inbox}
    busy.update(e.request.executor_id for e in state.pending.values())
    busy.update(e.request.executor_id for e in new_requests)
    for index, fan_in in enumerate(fan_ins):
        gid = fan_in.group.id
        if gid not in held:
            continue
        if not fan_in.region.isdisjoint(busy):
            continue
        if any(
            other.group.id in held and other.target in fan_in.region
            for other in fan_ins
            if other is not fan_in
        ):
            continue
        buffer = buffers.get(gid)
        if buffer is None:
            buffer = list(state.buffers.get(gid, ()))
        position = fan_in.position
        if fan_in.group.require == "each_source":
            heard = {b.source for b in buffer}
            missing = [s for s in fan_in.group.sources if s not in heard]
            if missing:
                raise WorkflowStalledError(
                    group=gid,
                    target=fan_in.target,
                    missing_sources=missing,
                    run_id=state.run_id,
                    superstep=superstep,
                    checkpoint=failed_checkpoint(),
                )
        buffer.sort(key=lambda b: (position[b.source], b.key))
        sources = tuple(dict.fromkeys(b.source for b in buffer))
        next_inbox.append(
            Envelope(
                fan_in.target,
                (superstep, base + index, 0),
                tuple(b.message for b in buffer),
                sources,
                tuple,
            )
        )
        busy.add(fan_in.target)
        held.discard(gid)
        buffers[gid] = []
