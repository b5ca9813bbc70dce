"""Edge groups and the routing decision for one message.

A group connects a source (several, for a fan-in) to one or more targets. At the
barrier each sent message is offered to each outgoing group of its source in
declaration order; every (group, target) decision gets one of the seed's six
delivery statuses. Routing never copies a message.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal

from agentcore.workflows._events import DeliveryStatus, EdgeGroupKind

__all__ = ["Group", "RoutingError", "decide"]


class RoutingError(Exception):
    """A predicate or selection function failed (status ``exception``)."""

    def __init__(self, group: Group, error: BaseException) -> None:
        super().__init__(f"routing by edge group {group.id} ({group.kind}) failed: {error}")
        self.group = group
        self.error = error


class Group:
    """A built edge group. ``conditions`` align with ``targets``: ``None`` (none), a
    class (typed) or a predicate; a switch's ``Default`` is the last target with
    ``None``. A plain class: part of a built graph, compared by identity (see ``_graph``)."""

    __slots__ = ("conditions", "id", "kind", "require", "select", "sources", "targets")

    def __init__(
        self,
        id: str,  # the group's id ("g0", "g1", ...)
        kind: EdgeGroupKind,
        sources: tuple[str, ...],
        targets: tuple[str, ...],
        conditions: tuple[Callable[[Any], bool] | type[Any] | None, ...] = (),
        select: Callable[[Any, Sequence[str]], Sequence[str]] | None = None,
        require: Literal["quiescent", "each_source"] = "quiescent",
    ) -> None:
        self.id: str = id
        self.kind: EdgeGroupKind = kind
        self.sources: tuple[str, ...] = sources
        self.targets: tuple[str, ...] = targets
        self.conditions: tuple[Callable[[Any], bool] | type[Any] | None, ...] = conditions
        self.select: Callable[[Any, Sequence[str]], Sequence[str]] | None = select
        self.require: Literal["quiescent", "each_source"] = require

    def __repr__(self) -> str:
        return (
            f"Group(id={self.id!r}, kind={self.kind!r}, sources={self.sources!r}, "
            f"targets={self.targets!r})"
        )


def _holds(condition: Callable[[Any], bool] | type[Any] | None, message: object) -> bool:
    if condition is None:
        return True
    if isinstance(condition, type):
        return isinstance(message, condition)
    return bool(condition(message))


Decision = tuple[str, DeliveryStatus]


def decide(
    group: Group,
    message: object,
    accepts: Sequence[bool],
    target: str | None,
) -> list[Decision]:
    """Every (target, status) decision of ``group`` for ``message``; ``accepts[i]`` says
    whether ``group.targets[i]`` takes the message's declared type. Raises
    :class:`RoutingError` when a predicate or selection function raises."""
    kind = group.kind
    targets = group.targets
    try:
        if kind == "switch":
            return _switch(group, message, accepts, target)
        chosen: Sequence[str] | None = None
        if kind == "select":
            assert group.select is not None
            chosen = group.select(message, targets)
            stray = [t for t in chosen if t not in targets]
            if stray:
                raise ValueError(
                    f"the selection function returned {stray}, which are not targets of "
                    f"this group ({list(targets)})"
                )
        out: list[Decision] = []
        for i, t in enumerate(targets):
            if target is not None and t != target:
                out.append((t, "dropped_target_mismatch"))
            elif not accepts[i]:
                out.append((t, "dropped_type_mismatch"))
            elif kind == "fan_in":
                out.append((t, "buffered"))
            elif (chosen is not None and t not in chosen) or (
                kind == "conditional" and not _holds(group.conditions[i], message)
            ):
                out.append((t, "dropped_condition_false"))
            else:
                out.append((t, "delivered"))
        return out
    except RoutingError:
        raise
    except Exception as exc:
        raise RoutingError(group, exc) from exc


def _switch(
    group: Group, message: object, accepts: Sequence[bool], target: str | None
) -> list[Decision]:
    out: list[Decision] = []
    taken = False
    for i, t in enumerate(group.targets):
        if taken:
            out.append((t, "dropped_condition_false"))
        elif target is not None and t != target:
            out.append((t, "dropped_target_mismatch"))
        elif not _holds(group.conditions[i], message):
            out.append((t, "dropped_condition_false"))
        elif not accepts[i]:
            out.append((t, "dropped_type_mismatch"))
        else:
            out.append((t, "delivered"))
            taken = True
    return out
