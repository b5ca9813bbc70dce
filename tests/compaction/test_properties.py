"""Properties: whatever the conversation, strategy and limit, a compacted request is valid
under the OpenAI Chat, OpenAI Responses and Anthropic rules, and the stored view replays it."""

from __future__ import annotations

import tempfile
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import anyio
from agentcore_contrib.compaction import Compaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcore import (
    Agent,
    ChatResponse,
    ExperimentalWarning,
    InMemoryHistoryStore,
    Message,
    SqliteHistoryStore,
)
from agentcore.compaction import (
    ClearResults,
    ClearToolResults,
    CompactionStrategy,
    DropOldest,
    SlidingWindow,
    Summarize,
    SummarizeGroups,
    Tiered,
    apply_plan,
    compacted_view,
    group_messages,
    projected_tokens,
    summary_note,
)
from agentcore.testing import FunctionChatClient, ValidatingChatClient, check_request
from agentcore.tokens import estimate_tokens
from tests.strategies import conversations

warnings.filterwarnings("ignore", category=ExperimentalWarning)


def _tiered(keep: int, tokens: int) -> Tiered:
    return Tiered(
        ClearToolResults(keep_last=keep), Summarize(keep_last=keep, summary_tokens=tokens)
    )


compaction_strategies: st.SearchStrategy[CompactionStrategy] = st.one_of(
    st.builds(SlidingWindow, keep_last=st.integers(0, 6)),
    st.builds(DropOldest),
    st.builds(ClearToolResults, keep_last=st.integers(0, 3), min_tokens=st.integers(0, 60)),
    st.builds(
        Summarize,
        keep_last=st.integers(0, 4),
        max_input_tokens=st.integers(1, 2_000),
        summary_tokens=st.integers(1, 80),
    ),
    st.builds(_tiered, st.integers(0, 3), st.integers(1, 80)),
)


def _tokens(message: Message) -> int:
    return estimate_tokens([message])


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(
    messages=conversations(),
    strategy=compaction_strategies,
    limit=st.integers(0, 3_000),
    keep_first=st.integers(0, 2),
)
def test_every_compacted_request_is_valid_in_every_dialect(
    messages: list[Message], strategy: CompactionStrategy, limit: int, keep_first: int
) -> None:
    produced = [m.contents for m in messages if m.role == "assistant"]
    assert check_request(messages, dialect="all", produced=produced) == []
    groups = group_messages(messages, tokens=_tokens, keep_first=keep_first)

    plan = strategy.plan(groups, limit=limit)

    assert plan.problems(groups) == []
    assert strategy.plan(groups, limit=limit) == plan  # pure: the same plan again
    summaries = {
        a.first: summary_note(f"summary {a.first}")
        for a in plan.actions
        if isinstance(a, SummarizeGroups)
    }
    new, edits = apply_plan(messages, groups, plan, summaries)
    assert check_request(new, dialect="all", produced=produced) == []
    # groups are kept whole, gone whole, or cleared in place; protected ones are kept
    kept = {id(m) for m in new}
    cleared = {a.group for a in plan.actions if isinstance(a, ClearResults)}
    for group in groups:
        members = messages[group.start : group.end]
        present = [id(m) in kept for m in members]
        if group.index in cleared:
            assert [id(m) in kept for m in members if m.role != "tool"] == [
                True for m in members if m.role != "tool"
            ]
        else:
            assert all(present) or not any(present), group
        if group.protected:
            assert all(present) or group.index in cleared
    for edit in edits:
        assert all(id(m) not in kept for m in edit.covered)
    if isinstance(strategy, (DropOldest, Tiered)) and not plan.over_limit:
        tokens = getattr(strategy, "summary_tokens", None) or max(
            (getattr(t, "summary_tokens", 0) for t in getattr(strategy, "tiers", ())), default=1
        )
        assert projected_tokens(groups, plan, summary_tokens=tokens) <= limit


def _answer(messages: Sequence[Message], options: Mapping[str, Any]) -> ChatResponse[Any]:
    return ChatResponse(messages=[Message("assistant", "noted")])


class _Summaries:
    async def summarize(self, messages: Sequence[Message], *, run: Any) -> str:
        return f"{len(messages)} messages"


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    history=conversations(max_turns=10),
    persist=st.sampled_from(["summaries", "all", "none"]),
    window=st.integers(1_024, 3_000),
    runs=st.integers(1, 3),
)
def test_runs_on_a_compacted_session_stay_valid_and_the_view_replays(
    history: list[Message], persist: Any, window: int, runs: int
) -> None:
    async def main() -> None:
        with tempfile.TemporaryDirectory() as folder:
            stores: list[InMemoryHistoryStore | SqliteHistoryStore] = [
                InMemoryHistoryStore(),
                SqliteHistoryStore(Path(folder) / "h.db"),
            ]
            for store in stores:
                produced = [m for m in history if m.role == "assistant"]
                client = ValidatingChatClient(FunctionChatClient(_answer), seed=produced)
                compaction = Compaction(
                    context_window=window,
                    summarizer=_Summaries(),
                    persist=persist,
                    reserve_output=256,
                    trigger=0.5,
                    target=0.25,
                )
                agent = Agent(client, middleware=[compaction], history=store)
                session = agent.create_session()
                await store.append(session.session_id, history[:-1])
                for number in range(runs):
                    await agent.run(f"question {number}", session=session)
                log = await store.load(session.session_id)
                view = await store.load_view(session.session_id)
                assert view == compacted_view(log)
                assert view.ignored_records == 0
                assert check_request(list(view.messages), dialect="openai-chat") == []
                if isinstance(store, SqliteHistoryStore):
                    store.close()

    anyio.run(main)
