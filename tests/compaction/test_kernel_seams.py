"""The kernel's seams for compaction: edits, origins, covered calls, durable steps."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from agentcore import (
    Agent,
    AgentContext,
    ChatContext,
    ChatResponse,
    InMemoryHistoryStore,
    Message,
    RunContext,
    chat_middleware,
)
from agentcore._agent.input_checks import checked_input, live_pause
from agentcore._replay import DurableRun
from agentcore._sessions.session import PausedRun
from agentcore.compaction import CompactionContent, TranscriptEdit, compacted_view, summary_note
from agentcore.durable import step
from agentcore.errors import RunStateError
from agentcore.middleware import CallNext
from agentcore.testing import FunctionChatClient
from tests.compaction._conversations import call, conversation, result
from tests.durable.journal_engine import Journal, JournalEngine

pytestmark = pytest.mark.anyio


def _answer(messages: Sequence[Message], options: Mapping[str, Any]) -> ChatResponse[Any]:
    return ChatResponse(messages=[Message("assistant", "ok")])


async def _run_with(middleware: Any, history: list[Message], stream: bool = False) -> Any:
    store = InMemoryHistoryStore()
    agent = Agent(FunctionChatClient(_answer), middleware=[middleware], history=store)
    session = agent.create_session()
    await store.append(session.session_id, history)
    if stream:
        return await agent.run("next", session=session, stream=True), store, session
    return await agent.run("next", session=session), store, session


def _elsewhere(messages: list[Message]) -> TranscriptEdit:
    return TranscriptEdit((Message("user", "elsewhere"),))


def _half_step(messages: list[Message]) -> TranscriptEdit:
    return TranscriptEdit((messages[2],))


def _nothing(messages: list[Message]) -> TranscriptEdit:
    return TranscriptEdit(())


@pytest.mark.parametrize(
    ("edit_of", "message"),
    [
        (_elsewhere, "not in the current"),
        (_half_step, "covers part of the step group"),
        (_nothing, "covers no message"),
    ],
)
async def test_bad_edits_are_refused(edit_of: Any, message: str) -> None:
    seen: list[Exception] = []

    @chat_middleware
    async def bad(context: ChatContext, call_next: CallNext) -> None:
        try:
            context.rewrite_transcript(context.messages[:1], edits=[edit_of(context.messages)])
        except ValueError as exc:
            seen.append(exc)
        await call_next()

    await _run_with(bad, conversation(1))

    assert len(seen) == 1
    assert message in str(seen[0])


async def test_a_rewrite_that_breaks_call_pairing_is_refused() -> None:
    seen: list[Exception] = []

    @chat_middleware
    async def half(context: ChatContext, call_next: CallNext) -> None:
        messages = context.messages
        new = [m for m in messages if m.role != "tool"]  # results gone, calls kept
        edits = [TranscriptEdit(tuple(messages[1:7]))]
        try:
            context.rewrite_transcript(new, edits=edits)
        except ValueError as exc:
            seen.append(exc)
        await call_next()

    await _run_with(half, conversation(1))

    assert "has no result in the tool messages right after it" in str(seen[0])


async def test_origin_of_tells_history_context_run_and_edit_apart() -> None:
    origins: dict[str, str] = {}

    class Provider:
        async def before_run(self, context: AgentContext) -> None:
            context.messages.insert(0, Message("user", "recalled"))

        async def after_run(self, context: AgentContext) -> None:
            return None

    @chat_middleware
    async def look(context: ChatContext, call_next: CallNext) -> None:
        messages = context.messages
        for message in messages:
            origins.setdefault(message.text, context.origin_of(message))
        note = summary_note("brief")
        context.rewrite_transcript(
            [messages[0], note, *messages[7:]],
            edits=[TranscriptEdit(tuple(messages[1:7]), note, persist=True, strategy="test")],
        )
        origins["note"] = context.origin_of(note)
        await call_next()

    store = InMemoryHistoryStore()
    agent = Agent(
        FunctionChatClient(_answer),
        middleware=[look],
        history=store,
        context_providers=[Provider()],
    )
    session = agent.create_session()
    await store.append(session.session_id, conversation(1))

    await agent.run("next", session=session)

    assert origins["be helpful"] == "history"
    assert origins["recalled"] == "context"
    assert origins["next"] == "run"
    assert origins["note"] == "edit"
    log = await store.load(session.session_id)
    # the turn (input and answer; never the context message) and one record for [1, 7)
    assert [m.text for m in log[7:9]] == ["next", "ok"]
    record = log[9].contents[0]
    assert isinstance(record, CompactionContent)
    assert (record.start, record.end, record.at, record.strategy) == (1, 7, 9, "test")
    assert record.call_ids == ("c0a", "c0b")
    assert [m.text for m in compacted_view(log).messages][:2] == [
        "be helpful",
        note_text("brief"),
    ]


def note_text(text: str) -> str:
    return summary_note(text).text


async def test_a_summary_covering_messages_of_this_run_records_their_positions(
    stream: bool,
) -> None:
    @chat_middleware
    async def fold(context: ChatContext, call_next: CallNext) -> None:
        messages = context.messages
        note = summary_note("all of it")
        # the history (7 messages) and nothing of this run but the input
        context.rewrite_transcript(
            [note, messages[-1]],
            edits=[TranscriptEdit(tuple(messages[:-1]), note, persist=True)],
        )
        await call_next()

    _, store, session = await _run_with(fold, conversation(1), stream)

    log = await store.load(session.session_id)
    record = log[-1].contents[0]
    assert isinstance(record, CompactionContent)
    assert (record.start, record.end, record.at) == (0, 7, 9)
    view = compacted_view(log)
    assert view.positions == (0, 7, 8)
    assert [m.text for m in view.messages] == [note_text("all of it"), "next", "ok"]


def test_covered_calls_count_as_made_and_answered() -> None:
    history = [summary_note("earlier"), Message("user", "go on")]
    late_result = Message("tool", [result("c1")])

    with pytest.raises(RunStateError, match="already has one"):
        checked_input(
            history, [late_result], service_history=False, paused=False, covered=frozenset({"c1"})
        )
    with pytest.raises(RunStateError, match="no earlier message of this conversation made"):
        checked_input(history, [late_result], service_history=False, paused=False)


def test_a_stale_pause_whose_calls_a_summary_covers_cannot_run_again() -> None:
    from agentcore import FunctionApprovalRequestContent

    request = FunctionApprovalRequestContent(function_call=call("c1"), id="apr_1")
    paused = PausedRun(calls=[call("c1")], requests=[request])
    answer = Message("user", [request.create_response(True)])
    history = [summary_note("covers c1")]

    assert live_pause(history, paused, [answer]) is paused
    with pytest.raises(RunStateError, match="already answered"):
        live_pause(history, paused, [answer], frozenset({"c1"}))


async def test_durable_step_runs_directly_or_as_one_engine_step() -> None:
    ran: list[str] = []

    async def body() -> Any:
        ran.append("body")
        return {"text": "summary"}

    assert await step(RunContext(), "compaction.summarize", body) == {"text": "summary"}
    journal = Journal()
    run = RunContext()
    run.durable = DurableRun(JournalEngine(journal), "agent")
    assert await step(run, "compaction.summarize", body) == {"text": "summary"}
    assert journal.steps[0][0] == "agent.compaction.summarize"
    replayed = RunContext()
    replayed.durable = DurableRun(JournalEngine(journal), "agent")
    assert await step(replayed, "compaction.summarize", body) == {"text": "summary"}
    assert ran == ["body", "body"]  # the replay read the recorded result


def test_run_cache_is_not_saved_with_the_run() -> None:
    run = RunContext()
    run.cache["counts"] = object()

    assert "counts" not in run.locals_dict()
    assert isinstance(run.cache["counts"], object)
