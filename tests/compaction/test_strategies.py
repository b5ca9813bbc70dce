"""The shipped strategies: pure plans over whole groups, protected groups untouched."""

from __future__ import annotations

import pytest

from agentcore import Message
from agentcore.compaction import (
    ClearResults,
    ClearToolResults,
    DropGroups,
    DropOldest,
    MessageGroup,
    Plan,
    SlidingWindow,
    Summarize,
    SummarizeGroups,
    Tiered,
    group_messages,
    projected_tokens,
)
from agentcore.tokens import estimate_tokens
from tests.compaction._conversations import conversation


def _groups(messages: list[Message]) -> tuple[MessageGroup, ...]:
    return group_messages(messages, tokens=lambda m: estimate_tokens([m]))


def _latest(turns: int, size: int = 400) -> tuple[MessageGroup, ...]:
    return _groups([*conversation(turns, size=size), Message("user", "now what?")])


def test_sliding_window_keeps_the_last_groups_whatever_the_limit() -> None:
    groups = _latest(4)  # system, 4 x (user, step, answer), latest user

    plan = SlidingWindow(keep_last=4).plan(groups, limit=10**9)

    # the last four unprotected groups are user 3's turn's (step, answer) and turn 2's
    # answer... the turn rule extends the drop to the next user message
    assert plan.problems(groups) == []
    assert plan == Plan((DropGroups(1, 9),))
    assert groups[10].kind == "user"


def test_drop_oldest_drops_until_it_fits_and_says_when_it_cannot() -> None:
    groups = _latest(4)
    total = sum(g.tokens for g in groups)
    last_turn = sum(g.tokens for g in groups[10:])

    plan = DropOldest().plan(groups, limit=total - groups[1].tokens)
    assert plan.problems(groups) == []
    # dropping user 0 alone would leave a step first: the turn rule drops the turn
    assert plan == Plan((DropGroups(1, 3),))

    assert DropOldest().plan(groups, limit=last_turn + groups[0].tokens) == Plan(
        (DropGroups(1, 9),)
    )
    tight = DropOldest().plan(groups, limit=1)
    assert tight.over_limit
    assert tight.actions == (DropGroups(1, 12),)
    assert DropOldest().plan(groups, limit=total) == Plan()


def test_clear_tool_results_clears_old_heavy_steps_only() -> None:
    groups = _latest(4)
    total = sum(g.tokens for g in groups)

    plan = ClearToolResults(keep_last=1, min_tokens=50).plan(groups, limit=total - 250)

    assert plan.problems(groups) == []
    assert plan == Plan((ClearResults(2), ClearResults(5)))
    assert projected_tokens(groups, plan) <= total - 250
    everything = ClearToolResults(keep_last=1, min_tokens=50).plan(groups, limit=0)
    assert everything.actions == (ClearResults(2), ClearResults(5), ClearResults(8))
    assert ClearToolResults(min_tokens=10**6).plan(groups, limit=0) == Plan()


def test_summarize_takes_the_oldest_run_and_keeps_the_last_groups() -> None:
    groups = _latest(6)
    total = sum(g.tokens for g in groups)

    plan = Summarize(keep_last=4, summary_tokens=100).plan(groups, limit=total // 2)

    assert plan.problems(groups) == []
    (action,) = plan.actions
    assert isinstance(action, SummarizeGroups)
    assert action.first == 1
    assert projected_tokens(groups, plan, summary_tokens=100) <= total // 2
    # never into the last four unprotected groups
    assert action.last < 19 - 4
    # a range too small to pay for its summary plans nothing
    assert Summarize(summary_tokens=10**5).plan(groups, limit=0) == Plan()


def test_summarize_stops_at_max_input_tokens() -> None:
    groups = _latest(6)

    plan = Summarize(keep_last=0, max_input_tokens=700, summary_tokens=100).plan(groups, limit=0)

    (action,) = plan.actions
    assert isinstance(action, SummarizeGroups)
    assert sum(g.tokens for g in groups[action.first : action.last + 1]) <= 700


def test_tiered_runs_tiers_until_it_fits_and_ends_with_drop_oldest() -> None:
    groups = _latest(6)
    total = sum(g.tokens for g in groups)
    tiered = Tiered(ClearToolResults(keep_last=1, min_tokens=50), Summarize(summary_tokens=100))

    light = tiered.plan(groups, limit=total - 200)
    assert light.problems(groups) == []
    assert all(isinstance(a, ClearResults) for a in light.actions)

    heavy = tiered.plan(groups, limit=total // 3)
    assert heavy.problems(groups) == []
    kinds = {type(a) for a in heavy.actions}
    assert SummarizeGroups in kinds
    assert not heavy.over_limit

    tiny = tiered.plan(groups, limit=1)
    assert tiny.problems(groups) == []
    assert tiny.over_limit
    # the fallback dropped what the summary would have covered: nothing is summarized
    assert all(not isinstance(a, SummarizeGroups) for a in tiny.actions)


def test_plans_are_deterministic() -> None:
    groups = _latest(5)
    tiered = Tiered(ClearToolResults(), Summarize(summary_tokens=50))

    assert tiered.plan(groups, limit=300) == tiered.plan(groups, limit=300)


def test_problems_name_each_broken_rule() -> None:
    groups = _latest(2)

    assert Plan((DropGroups(0, 1),)).problems(groups) == [
        "action 0 (DropGroups(first=0, last=1)) touches protected group 0 (system)"
    ]
    assert Plan((DropGroups(1, 1),)).problems(groups) == [
        "the first kept group (2) is step; a request must start with a user message"
    ]
    assert Plan((ClearResults(1),)).problems(groups) == [
        "action 0 clears results of group 1, a user group; only steps have results"
    ]
    assert (
        Plan((DropGroups(4, 5), DropGroups(1, 3)))
        .problems(groups)[0]
        .startswith("action 1 (DropGroups(first=1, last=3)) is not after")
    )
    assert Plan((DropGroups(3, 99),)).problems(groups) == [
        "action 0 (DropGroups(first=3, last=99)) names groups outside 0..7"
    ]


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: SlidingWindow(keep_last=-1), "keep_last=...) must be at least 0"),
        (lambda: Summarize(summary_tokens=0), "summary_tokens=...) must be at least 1"),
        (lambda: ClearToolResults(min_tokens="x"), "min_tokens=...) must be an int"),  # type: ignore[arg-type]  # the mistake
        (lambda: Tiered(object()), "Tiered tier 0 is"),  # type: ignore[arg-type]  # the mistake
    ],
)
def test_bad_strategy_arguments_are_refused(make: object, message: str) -> None:
    with pytest.raises(
        (TypeError, ValueError), match=message.replace("(", r"\(").replace(")", r"\)")
    ):
        make()  # type: ignore[operator]  # each row is a mistake under test
