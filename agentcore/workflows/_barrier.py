"""The fallible parts of a barrier: shared-state merges, routing and fan-in firing.
All work on copies or on lists the runner passes in; the runner applies their
results only when the whole barrier succeeded."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from operator import attrgetter
from typing import Any

from agentcore.workflows._context import _DELETED, WorkflowContext
from agentcore.workflows._edges import RoutingError, decide
from agentcore.workflows._events import EdgeDelivery
from agentcore.workflows._graph import Graph, Node
from agentcore.workflows._state import Buffered, Envelope, PendingEntry, RunState
from agentcore.workflows._typeexpr import describe
from agentcore.workflows._value import WorkflowCheckpoint
from agentcore.workflows.errors import SharedStateConflictError, WorkflowStalledError

__all__ = ["Failed", "fire_fan_ins", "merge_shared", "route"]

_KEY = attrgetter("key")

_UNCONDITIONAL = frozenset({"direct", "fan_out"})
"""Edge groups that deliver to every target that accepts the type (what ``decide``
answers for them when no target is named)."""


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


def route(
    contexts: Sequence[WorkflowContext[Any, Any]],
    nodes: Mapping[str, Node],
    superstep: int,
    recording: bool,
    next_inbox: list[Envelope],
    appended: dict[str, list[Buffered]],
    deliveries: list[tuple[EdgeDelivery, Any]],
    notify: Callable[[Sequence[tuple[EdgeDelivery, Any]]], None],
    dead_letter: Callable[[Node, int, Any], None],
) -> tuple[int, int]:
    """Route what the superstep's invocations sent, in ordinal then send order:
    envelopes onto ``next_inbox``, fan-in messages into ``appended``, and
    (``recording``) every decision into ``deliveries``; a message no group took goes
    to ``dead_letter``. Returns (delivered, dropped)."""
    delivered = dropped = 0
    for ctx in contexts:
        if not ctx._sends:
            continue
        node = nodes[ctx.executor_id]
        sent_by: tuple[str, ...] = ()  # (node.id,): one tuple for all of its envelopes
        ordinal = ctx.ordinal
        routes = node.routes
        send_index = -1
        for message, declared, target in ctx._sends:
            send_index += 1
            key = (superstep, ordinal, send_index)
            taken = False
            for group, accepts in routes.get(declared, ()):
                if target is None and not recording:
                    # the common cases, decided as ``decide`` would without building its list
                    kind = group.kind
                    if kind in _UNCONDITIONAL:
                        for t, ok in zip(group.targets, accepts, strict=True):
                            if ok:
                                sent_by = sent_by or (node.id,)
                                next_inbox.append(Envelope(t, key, message, sent_by, declared))
                                taken = True
                                delivered += 1
                            else:
                                dropped += 1
                        continue
                    if kind == "fan_in":  # buffered wherever the type is accepted
                        for ok in accepts:
                            if ok:
                                _hold(appended, group.id, Buffered(node.id, key, message, declared))
                                taken = True
                            else:
                                dropped += 1
                        continue
                try:
                    decisions = decide(group, message, accepts, target)
                except RoutingError as exc:
                    if recording:
                        record = EdgeDelivery(
                            superstep,
                            group.id,
                            group.kind,
                            node.id,
                            ",".join(group.targets),
                            describe(declared),
                            "exception",
                        )
                        deliveries.append((record, message))
                        notify(deliveries)
                    raise Failed(node, ordinal, exc.error) from exc
                for t, status in decisions:
                    if status == "delivered":
                        sent_by = sent_by or (node.id,)
                        next_inbox.append(Envelope(t, key, message, sent_by, declared))
                        taken = True
                        delivered += 1
                    elif status == "buffered":
                        _hold(appended, group.id, Buffered(node.id, key, message, declared))
                        taken = True
                    else:
                        dropped += 1
                    if recording:
                        record = EdgeDelivery(
                            superstep, group.id, group.kind, node.id, t, describe(declared), status
                        )
                        deliveries.append((record, message))
            if not taken:
                dead_letter(node, ordinal, declared)
    return delivered, dropped


def _hold(appended: dict[str, list[Buffered]], gid: str, buffered: Buffered) -> None:
    held = appended.get(gid)
    if held is None:  # not setdefault: that makes a list per message
        appended[gid] = [buffered]
    else:
        held.append(buffered)


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
        # by (source position, message key): two stable sorts, no key tuple per message
        buffer.sort(key=_KEY)
        buffer.sort(key=lambda b: position[b.source])
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
