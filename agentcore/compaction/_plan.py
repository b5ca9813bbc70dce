"""Plans: what a strategy decides to do with a transcript's groups, as plain data.

A plan names whole groups to drop, summarize or clear; every group it does not name is
kept. :meth:`Plan.problems` says why a plan is unusable, so a strategy's bug never
reaches a provider: the middleware sends the request uncompacted instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeAlias

import attrs

from agentcore._equality import fields_eq, fields_hash
from agentcore._repr import fields_repr
from agentcore._types.groups import MessageGroup

__all__ = [
    "ClearResults",
    "DropGroups",
    "Plan",
    "PlanAction",
    "SummarizeGroups",
    "finish_plan",
    "removed_groups",
]


@attrs.frozen
class DropGroups:
    """Drop groups ``first`` to ``last`` (indices, inclusive)."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    first: int
    last: int


@attrs.frozen
class SummarizeGroups:
    """Replace groups ``first`` to ``last`` (inclusive) by one summary at their slot."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    first: int
    last: int


@attrs.frozen
class ClearResults:
    """Replace the results of step ``group`` by short placeholders (calls kept)."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    group: int


PlanAction: TypeAlias = DropGroups | SummarizeGroups | ClearResults
"""One action of a :class:`Plan`."""


_ACTION_TYPES = (DropGroups, SummarizeGroups, ClearResults)


def _span(action: PlanAction) -> tuple[int, int]:
    if isinstance(action, ClearResults):
        return action.group, action.group
    return action.first, action.last


def _to_actions(value: Sequence[PlanAction]) -> tuple[PlanAction, ...]:
    return tuple(value)


@attrs.frozen
class Plan:
    """What to do with a transcript's groups: ``actions`` sorted and disjoint, and
    ``over_limit`` when the protected groups alone exceed the limit."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    actions: tuple[PlanAction, ...] = attrs.field(default=(), converter=_to_actions)
    over_limit: bool = False

    def problems(self, groups: Sequence[MessageGroup]) -> list[str]:
        """Why this plan cannot be applied to ``groups``; empty when it can."""
        problems: list[str] = []
        previous = -1
        for number, action in enumerate(self.actions):
            if type(action) not in _ACTION_TYPES:  # a strategy may return anything
                problems.append(f"action {number} is {action!r}, not a plan action")
                continue
            first, last = _span(action)
            if not 0 <= first <= last < len(groups):
                problems.append(
                    f"action {number} ({action!r}) names groups outside 0..{len(groups) - 1}"
                )
                continue
            if first <= previous:
                problems.append(f"action {number} ({action!r}) is not after the action before")
            previous = last
            for group in groups[first : last + 1]:
                if group.protected:
                    problems.append(
                        f"action {number} ({action!r}) touches protected group {group.index} "
                        f"({group.reason})"
                    )
            if isinstance(action, ClearResults) and groups[first].kind != "step":
                problems.append(
                    f"action {number} clears results of group {first}, a {groups[first].kind} "
                    "group; only steps have results"
                )
        if problems:
            return problems
        removed = removed_groups(groups, self)
        for group in groups:
            if group.kind == "orphan" and group.index not in removed:
                problems.append(f"orphan group {group.index} is kept; a plan drops orphans")
        first_kept = _first_kept(groups, removed, self)
        if first_kept is not None and first_kept.kind not in ("user", "summary"):
            problems.append(
                f"the first kept group ({first_kept.index}) is {first_kept.kind}; a request "
                "must start with a user message"
            )
        return problems


def removed_groups(groups: Sequence[MessageGroup], plan: Plan) -> set[int]:
    """The indices of the groups ``plan`` drops or summarizes."""
    removed: set[int] = set()
    for action in plan.actions:
        if not isinstance(action, ClearResults):
            removed.update(range(action.first, action.last + 1))
    return removed


def _first_kept(
    groups: Sequence[MessageGroup], removed: set[int], plan: Plan
) -> MessageGroup | None:
    """The first group after the plan that is not system or context; a summarized range
    counts as its summary."""
    summarized = {a.first for a in plan.actions if isinstance(a, SummarizeGroups)}
    for group in groups:
        if group.index in summarized:
            return group._replace(kind="summary")
        if group.index in removed or group.kind in ("system", "context"):
            continue
        return group
    return None


def _runs(indices: Sequence[int]) -> list[tuple[int, int]]:
    runs: list[tuple[int, int]] = []
    for index in indices:
        if runs and runs[-1][1] == index - 1:
            runs[-1] = (runs[-1][0], index)
        else:
            runs.append((index, index))
    return runs


def finish_plan(
    groups: Sequence[MessageGroup],
    drop: set[int],
    summarize: Sequence[tuple[int, int]] = (),
    clear: set[int] | frozenset[int] = frozenset(),
    *,
    over_limit: bool = False,
) -> Plan:
    """A valid plan from a strategy's choices: orphans dropped, the turn rule applied
    (the first kept group is a user message or a summary), actions sorted and merged.

    ``drop`` and ``clear`` are group indices, ``summarize`` inclusive ranges; a
    protected group is never touched, whatever they hold.
    """
    drop = {i for i in drop if not groups[i].protected}
    drop.update(g.index for g in groups if g.kind == "orphan")
    ranges = [(a, b) for a, b in summarize if a <= b]
    in_summary = {i for a, b in ranges for i in range(a, b + 1)}
    drop -= in_summary
    # The turn rule: the first kept group that is not system or context must be a user
    # message or a summary; else what removes groups before it reaches the next user group.
    for group in groups:
        index = group.index
        if group.kind in ("system", "context") or index in drop:
            continue
        if index in in_summary:
            break
        if group.kind in ("user", "summary"):
            break
        nxt = next((g.index for g in groups[index:] if g.kind == "user"), None)
        if nxt is None:
            break
        extended = False
        for number, (a, b) in enumerate(ranges):
            if b == index - 1:  # a summary right before it reads on to the next user group
                stop = index
                while stop < nxt and not groups[stop].protected:
                    stop += 1
                ranges[number] = (a, stop - 1)
                in_summary.update(range(index, stop))
                extended = True
        if not extended:
            drop.update(i for i in range(index, nxt) if not groups[i].protected)
        # Only one pass: a protected group in the way stays where it is.
        break
    drop -= in_summary
    clear_set = {
        i
        for i in clear
        if i not in drop
        and i not in in_summary
        and groups[i].kind == "step"
        and not groups[i].protected
    }
    actions: list[PlanAction] = []
    for first, last in _runs(sorted(drop)):
        # split a run around protected groups (drop never holds one, so runs are clean)
        actions.append(DropGroups(first, last))
    actions.extend(SummarizeGroups(a, b) for a, b in ranges)
    actions.extend(ClearResults(i) for i in sorted(clear_set))
    actions.sort(key=_span)
    return Plan(tuple(actions), over_limit)
