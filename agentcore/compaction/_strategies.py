"""The shipped compaction strategies: pure functions from groups and a limit to a plan.

A strategy does no I/O and reads no clock or randomness: the same groups and limit give
the same plan, so a compaction can be recomputed, tested and explained.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import attrs

from agentcore._equality import fields_eq, fields_hash
from agentcore._feature_stage import ExperimentalFeature, experimental
from agentcore._repr import fields_repr
from agentcore._types.groups import MessageGroup
from agentcore.compaction._plan import (
    ClearResults,
    DropGroups,
    Plan,
    SummarizeGroups,
    finish_plan,
)

__all__ = [
    "CLEARED_RESULT_TOKENS",
    "ClearToolResults",
    "CompactionStrategy",
    "DropOldest",
    "SlidingWindow",
    "Summarize",
    "Tiered",
    "projected_tokens",
]

CLEARED_RESULT_TOKENS = 30
"""What one cleared result's placeholder is counted as, in tokens."""


@runtime_checkable
class CompactionStrategy(Protocol):
    """Decides what to drop, summarize or clear so that the groups fit ``limit`` tokens."""

    @property
    def name(self) -> str: ...

    def plan(self, groups: Sequence[MessageGroup], *, limit: int) -> Plan: ...


def projected_tokens(
    groups: Sequence[MessageGroup], plan: Plan, *, summary_tokens: int = 1_000
) -> int:
    """What ``groups`` weigh once ``plan`` is applied, a summary counted as
    ``summary_tokens`` and a cleared result as :data:`CLEARED_RESULT_TOKENS`."""
    total = sum(g.tokens for g in groups)
    for action in plan.actions:
        if isinstance(action, ClearResults):
            group = groups[action.group]
            total -= group.result_tokens - CLEARED_RESULT_TOKENS * len(group.call_ids)
            continue
        total -= sum(g.tokens for g in groups[action.first : action.last + 1])
        if isinstance(action, SummarizeGroups):
            total += summary_tokens
    return total


def _droppable(groups: Sequence[MessageGroup]) -> list[MessageGroup]:
    return [g for g in groups if not g.protected and g.kind != "orphan"]


def _check_count(name: str, value: object, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}")
    return value


@experimental(feature_id=ExperimentalFeature.COMPACTION)
@attrs.frozen
class SlidingWindow:
    """Keeps the last ``keep_last`` unprotected groups and drops older ones, whatever
    ``limit`` says (a window counted in groups, not tokens)."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    keep_last: int = attrs.field(default=20)
    name: str = attrs.field(default="sliding_window", init=False)

    def __attrs_post_init__(self) -> None:
        _check_count("SlidingWindow(keep_last=...)", self.keep_last, 0)

    def plan(self, groups: Sequence[MessageGroup], *, limit: int) -> Plan:
        droppable = _droppable(groups)
        cut = len(droppable) - self.keep_last
        drop = {g.index for g in droppable[: max(cut, 0)]}
        return finish_plan(groups, drop)


@experimental(feature_id=ExperimentalFeature.COMPACTION)
@attrs.frozen
class DropOldest:
    """Drops the oldest unprotected groups until the rest fits ``limit``; when it
    cannot, drops everything it may and says ``over_limit``."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    name: str = attrs.field(default="drop_oldest", init=False)

    def plan(self, groups: Sequence[MessageGroup], *, limit: int) -> Plan:
        total = sum(g.tokens for g in groups if g.kind != "orphan")
        drop: set[int] = set()
        for group in _droppable(groups):
            if total <= limit:
                break
            drop.add(group.index)
            total -= group.tokens
        plan = finish_plan(groups, drop)
        return attrs.evolve(plan, over_limit=projected_tokens(groups, plan) > limit)


@experimental(feature_id=ExperimentalFeature.COMPACTION)
@attrs.frozen
class ClearToolResults:
    """Clears the results of old steps (oldest first, outside the last ``keep_last``
    steps, results weighing at least ``min_tokens``) until the rest fits ``limit``.

    Each result keeps its call id and error flag; its text says what was cleared and
    that calling the tool again gets it back. Calls and reasoning are untouched.
    """

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    keep_last: int = attrs.field(default=3)
    min_tokens: int = attrs.field(default=100)
    placeholder: str = attrs.field(
        default=(
            "[result of {tool} cleared to save context: {n} characters; "
            "call {tool} again if you need it]"
        )
    )
    name: str = attrs.field(default="clear_tool_results", init=False)

    def __attrs_post_init__(self) -> None:
        _check_count("ClearToolResults(keep_last=...)", self.keep_last, 0)
        _check_count("ClearToolResults(min_tokens=...)", self.min_tokens, 0)
        if not isinstance(self.placeholder, str):  # pyright: ignore[reportUnnecessaryIsInstance]  # checked for callers without a type checker
            raise TypeError(f"placeholder must be a str, got {self.placeholder!r}")

    def plan(self, groups: Sequence[MessageGroup], *, limit: int) -> Plan:
        steps = [g for g in groups if g.kind == "step"]
        recent: set[int] = set()
        if self.keep_last:
            recent.update(g.index for g in steps[len(steps) - self.keep_last :])
        total = projected_tokens(groups, finish_plan(groups, set()))
        clear: set[int] = set()
        for group in steps:
            if total <= limit:
                break
            if group.protected or group.index in recent or group.result_tokens < self.min_tokens:
                continue
            saved = group.result_tokens - CLEARED_RESULT_TOKENS * len(group.call_ids)
            if saved <= 0:
                continue
            clear.add(group.index)
            total -= saved
        return finish_plan(groups, set(), clear=clear)


@experimental(feature_id=ExperimentalFeature.COMPACTION)
@attrs.frozen
class Summarize:
    """Summarizes the oldest run of unprotected groups into one note.

    The run grows until the rest fits ``limit`` (the summary counted as
    ``summary_tokens``) or it reaches ``max_input_tokens``; it never enters the last
    ``keep_last`` unprotected groups, and under two groups or ``2 * summary_tokens`` it
    plans nothing (a summary would not pay for itself).
    """

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    keep_last: int = attrs.field(default=4)
    max_input_tokens: int = attrs.field(default=8_000)
    summary_tokens: int = attrs.field(default=1_000)
    name: str = attrs.field(default="summarize", init=False)

    def __attrs_post_init__(self) -> None:
        _check_count("Summarize(keep_last=...)", self.keep_last, 0)
        _check_count("Summarize(max_input_tokens=...)", self.max_input_tokens, 1)
        _check_count("Summarize(summary_tokens=...)", self.summary_tokens, 1)

    def plan(self, groups: Sequence[MessageGroup], *, limit: int) -> Plan:
        droppable = _droppable(groups)
        allowed = droppable[: max(len(droppable) - self.keep_last, 0)]
        if not allowed:
            return finish_plan(groups, set())
        total = projected_tokens(groups, finish_plan(groups, set()))
        first = allowed[0].index
        last = first - 1
        weight = 0
        allowed_ids = {g.index for g in allowed}
        for group in groups[first:]:
            if group.index not in allowed_ids:
                break  # a protected group (or the kept tail) ends the run
            if weight + group.tokens > self.max_input_tokens and last >= first:
                break
            last = group.index
            weight += group.tokens
            if total - weight + self.summary_tokens <= limit:
                break
        if last - first + 1 < 2 or weight < 2 * self.summary_tokens:
            return finish_plan(groups, set())
        return finish_plan(groups, set(), [(first, last)])


@attrs.frozen
class _Projected:
    """A tier's view of the groups: what the tiers before it left, renumbered."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    groups: tuple[MessageGroup, ...]
    spans: tuple[tuple[int, int], ...]  # original first..last of each projected group


def _project(
    groups: Sequence[MessageGroup], plan: Plan, summary_tokens: dict[int, int]
) -> _Projected:
    """What the tiers so far leave, renumbered: a summarized range is one ``summary``
    group, a cleared step weighs what its placeholders do."""
    if not plan.actions:
        return _Projected(tuple(groups), tuple((g.index, g.index) for g in groups))
    actions = {(a.group if isinstance(a, ClearResults) else a.first): a for a in plan.actions}
    out: list[MessageGroup] = []
    spans: list[tuple[int, int]] = []
    index = 0
    count = len(groups)
    while index < count:
        group = groups[index]
        action = actions.get(index)
        if action is None:
            out.append(group if group.index == len(out) else group._replace(index=len(out)))
            spans.append((index, index))
            index += 1
        elif isinstance(action, DropGroups):
            index = action.last + 1
        elif isinstance(action, SummarizeGroups):
            tokens = summary_tokens.get(action.first, 1_000)
            summary = MessageGroup(len(out), group.start, group.end, "summary", tokens, group.turn)
            out.append(summary)
            spans.append((action.first, action.last))
            index = action.last + 1
        else:
            saved = group.result_tokens - CLEARED_RESULT_TOKENS * len(group.call_ids)
            out.append(group._replace(index=len(out), tokens=group.tokens - saved, result_tokens=0))
            spans.append((index, index))
            index += 1
    return _Projected(tuple(out), tuple(spans))


@experimental(feature_id=ExperimentalFeature.COMPACTION)
class Tiered:
    """Runs ``tiers`` in order, each on what the ones before it left, until the groups
    fit; then ``fallback`` (:class:`DropOldest` by default) if they still do not, so the
    limit is met whenever the protected groups fit in it."""

    def __init__(self, *tiers: CompactionStrategy, fallback: CompactionStrategy | None = None):
        for number, tier in enumerate(tiers):
            if not isinstance(tier, CompactionStrategy):  # pyright: ignore[reportUnnecessaryIsInstance]  # checked for callers without a type checker
                raise TypeError(
                    f"Tiered tier {number} is {tier!r}, not a compaction strategy (an object "
                    "with name and plan(groups, *, limit))"
                )
        self.tiers: tuple[CompactionStrategy, ...] = tiers
        self.fallback: CompactionStrategy = DropOldest() if fallback is None else fallback
        self.name: str = "tiered(" + ", ".join(t.name for t in (*tiers, self.fallback)) + ")"

    def __repr__(self) -> str:
        return f"Tiered({', '.join(map(repr, self.tiers))}, fallback={self.fallback!r})"

    def plan(self, groups: Sequence[MessageGroup], *, limit: int) -> Plan:
        plan = finish_plan(groups, set())
        summary_tokens: dict[int, int] = {}
        total = sum(g.tokens for g in groups)
        for tier in self.tiers:
            if _weight(groups, plan, summary_tokens, total) <= limit:
                break
            projected = _project(groups, plan, summary_tokens)
            step = tier.plan(projected.groups, limit=limit)
            plan = _merge(groups, plan, step, projected, summary_tokens, tier)
        if _weight(groups, plan, summary_tokens, total) > limit:
            projected = _project(groups, plan, summary_tokens)
            step = self.fallback.plan(projected.groups, limit=limit)
            plan = _merge(groups, plan, step, projected, summary_tokens, self.fallback)
        over = _weight(groups, plan, summary_tokens, total) > limit
        return attrs.evolve(plan, over_limit=over)


def _weight(
    groups: Sequence[MessageGroup], plan: Plan, summary_tokens: dict[int, int], total: int
) -> int:
    """What ``groups`` (weighing ``total``) weigh once ``plan`` is applied (summaries as
    their tier counts them)."""
    for action in plan.actions:
        if isinstance(action, ClearResults):
            group = groups[action.group]
            total -= group.result_tokens - CLEARED_RESULT_TOKENS * len(group.call_ids)
            continue
        total -= sum(g.tokens for g in groups[action.first : action.last + 1])
        if isinstance(action, SummarizeGroups):
            total += summary_tokens.get(action.first, 1_000)
    return total


def _merge(
    groups: Sequence[MessageGroup],
    plan: Plan,
    step: Plan,
    projected: _Projected,
    summary_tokens: dict[int, int],
    tier: CompactionStrategy,
) -> Plan:
    """``plan`` with a later tier's ``step`` (over the projected groups) folded in."""
    drop: set[int] = set()
    summarize: dict[int, int] = {}
    clear: set[int] = set()
    for action in plan.actions:
        if isinstance(action, DropGroups):
            drop.update(range(action.first, action.last + 1))
        elif isinstance(action, SummarizeGroups):
            summarize[action.first] = action.last
        else:
            clear.add(action.group)
    for action in step.actions:
        if isinstance(action, ClearResults):
            first, _ = projected.spans[action.group]
            clear.add(first)
            continue
        first = projected.spans[action.first][0]
        last = projected.spans[action.last][1]
        # earlier summaries inside the range are folded in (a later summary reads them;
        # a later drop drops them)
        for start in [s for s in summarize if first <= s <= last]:
            del summarize[start]
        if isinstance(action, DropGroups):
            drop.update(range(first, last + 1))
        else:
            summarize[first] = last
            summary_tokens[first] = getattr(tier, "summary_tokens", 1_000)
    clear -= drop
    return finish_plan(groups, drop, sorted(summarize.items()), clear)
