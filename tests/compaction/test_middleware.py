"""The Compaction chat middleware in real agent runs, in both run modes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest
from agentcore_contrib.compaction import Compaction, Summarizer

from agentcore import (
    Agent,
    ChatResponse,
    CompactionContent,
    FunctionCallContent,
    InMemoryHistoryStore,
    Message,
    RunContext,
    SqliteHistoryStore,
    Usage,
    tool,
)
from agentcore.compaction import compacted_view, is_summary
from agentcore.errors import ContextLengthExceededError, RunStateError
from agentcore.testing import (
    FunctionChatClient,
    ScriptedChatClient,
    ValidatingChatClient,
    check_request,
)
from tests.compaction._conversations import conversation

pytestmark = pytest.mark.anyio

WINDOW = 4_096  # tokens; the window for messages is 4096 - 512 - instructions


class Recorder:
    """The main model: answers 'fine', and keeps each request it was sent."""

    def __init__(self) -> None:
        self.requests: list[list[Message]] = []

    def __call__(
        self, messages: Sequence[Message], options: Mapping[str, Any]
    ) -> ChatResponse[Any]:
        self.requests.append(list(messages))
        return ChatResponse(messages=[Message("assistant", "fine")], finish_reason="stop")


async def _run(agent: Any, text: str | list[Message], stream: bool, **kwargs: Any) -> Any:
    if stream:
        return await agent.run(text, stream=True, **kwargs)
    return await agent.run(text, **kwargs)


def _seeded(turns: int = 12, size: int = 600) -> list[Message]:
    return conversation(turns, size=size)


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    if request.param == "memory":
        return InMemoryHistoryStore()
    return SqliteHistoryStore(tmp_path / "history.db")


async def test_a_long_history_is_summarized_and_stored_as_a_record(
    stream: bool, store: Any
) -> None:
    model = Recorder()
    client = ValidatingChatClient(FunctionChatClient(model), seed=_seeded())
    summarizer_client = ScriptedChatClient(["the user asked twelve questions about search"])
    compaction = Compaction(context_window=WINDOW, summarizer=Summarizer(summarizer_client))
    agent = Agent(client, middleware=[compaction], history=store)
    session = agent.create_session()
    await store.append(session.session_id, _seeded())

    response = await _run(agent, "and now?", stream, session=session)

    assert response.text == "fine"
    sent = model.requests[0]
    assert check_request(sent, dialect="all") == []
    notes = [m for m in sent if is_summary(m)]
    assert len(notes) == 1
    assert notes[0].role == "user"
    assert notes[0].text.startswith("[Summary of the earlier conversation, written by a model.")
    assert notes[0].text.endswith("the user asked twelve questions about search")
    assert sent[-1].text == "and now?"
    assert compaction.stats.summaries == 1
    events = [e for e in response.events if e.name == "compaction"]
    assert len(events) == 1
    assert events[0].data["summarizer"] == "ok"
    # the summarizer read the transcript, framed as data
    (summary_request,) = summarizer_client.requests
    assert "<transcript>" in summary_request.messages[1].text

    log = await store.load(session.session_id)
    assert len(log) == len(_seeded()) + 2 + 1  # the originals, the turn, one record
    record = log[-1].contents[0]
    assert isinstance(record, CompactionContent)
    assert record.at == len(log) - 1
    assert record.summary == notes[0].text
    view = await store.load_view(session.session_id)
    assert view == compacted_view(log)
    assert [m.text for m in view.messages if is_summary(m)] == [record.summary]

    # the next run starts from the compacted view: no compaction needed
    model.requests.clear()
    await _run(agent, "thanks", stream, session=session)
    assert [m for m in model.requests[0] if is_summary(m)] == [view.messages[1]]
    assert compaction.stats.triggers == 1


async def test_under_the_trigger_nothing_changes(stream: bool) -> None:
    model = Recorder()
    compaction = Compaction(context_window=WINDOW)
    agent = Agent(
        FunctionChatClient(model), middleware=[compaction], history=InMemoryHistoryStore()
    )
    session = agent.create_session()

    await _run(agent, "hi", stream, session=session)

    assert model.requests == [[Message("user", "hi")]]
    assert compaction.stats.triggers == 0


async def _slow(messages: Sequence[Message], options: Mapping[str, Any]) -> str:
    await anyio.sleep(5)
    return "too late"


_TOOL_CALL = ChatResponse[Any](
    messages=[Message("assistant", [FunctionCallContent(call_id="s", name="search")])]
)


@pytest.mark.parametrize(
    "failure",
    [RuntimeError("model down"), "", "x" * 40_000, _TOOL_CALL, "slow"],
    ids=["raises", "empty", "not-shorter", "tool-call", "timeout"],
)
async def test_a_failing_summarizer_falls_back_to_dropping(stream: bool, failure: object) -> None:
    model = Recorder()
    summarizer_client: Any = (
        FunctionChatClient(_slow) if failure == "slow" else ScriptedChatClient([failure])  # type: ignore[list-item]  # failure kinds
    )
    summarizer = Summarizer(summarizer_client, timeout=0.05)
    compaction = Compaction(context_window=WINDOW, summarizer=summarizer)
    store = InMemoryHistoryStore()
    agent = Agent(
        ValidatingChatClient(FunctionChatClient(model), seed=_seeded()),
        middleware=[compaction],
        history=store,
    )
    session = agent.create_session()
    await store.append(session.session_id, _seeded())

    response = await _run(agent, "and now?", stream, session=session)

    assert response.text == "fine"
    assert not any(is_summary(m) for m in model.requests[0])
    assert len(model.requests[0]) < len(_seeded())
    assert compaction.stats.summarizer_failures == 1
    assert compaction.stats.fallbacks == 1
    (event,) = [e for e in response.events if e.name == "compaction"]
    assert event.data["summarizer"] == "failed"
    if failure == "slow":
        assert event.data["error"].startswith("TimeoutError")
    if failure is _TOOL_CALL:
        assert "tool call" in event.data["error"]
    # a drop is not persisted by default: the log holds the turn and no record
    log = await store.load(session.session_id)
    assert len(log) == len(_seeded()) + 2


async def test_three_failures_in_a_row_cool_the_summarizer_down() -> None:
    now = [1_000.0]
    summarizer_client = ScriptedChatClient([RuntimeError("down")] * 3)
    compaction = Compaction(
        context_window=WINDOW, summarizer=Summarizer(summarizer_client), clock=lambda: now[0]
    )
    store = InMemoryHistoryStore()
    agent = Agent(FunctionChatClient(Recorder()), middleware=[compaction], history=store)

    for _ in range(4):
        session = agent.create_session()
        await store.append(session.session_id, _seeded())
        await agent.run("and now?", session=session)

    assert len(summarizer_client.requests) == 3  # the fourth was not asked
    assert compaction.stats.summarizer_failures == 3
    assert compaction.stats.fallbacks == 4
    now[0] += 301
    summarizer_client.script.append("back")
    session = agent.create_session()
    await store.append(session.session_id, _seeded())
    await agent.run("and now?", session=session)
    assert compaction.stats.summaries == 1


async def test_context_length_exceeded_forces_one_compaction_and_one_retry(stream: bool) -> None:
    requests: list[list[Message]] = []

    def answer(messages: Sequence[Message], options: Mapping[str, Any]) -> ChatResponse[Any]:
        requests.append(list(messages))
        if len(requests) == 1:
            raise ContextLengthExceededError("too long")
        return ChatResponse(messages=[Message("assistant", "fine")])

    compaction = Compaction(context_window=200_000)  # never triggers by count
    agent = Agent(
        FunctionChatClient(answer), middleware=[compaction], history=InMemoryHistoryStore()
    )
    session = agent.create_session()
    assert agent.history is not None
    await agent.history.append(session.session_id, _seeded())

    response = await _run(agent, "and now?", stream, session=session)

    assert response.text == "fine"
    assert len(requests) == 2
    assert len(requests[1]) < len(requests[0])
    assert check_request(requests[1]) == []
    assert compaction.stats.overflow_retries == 1


async def test_a_second_overflow_raises_the_error(stream: bool) -> None:
    def answer(messages: Sequence[Message], options: Mapping[str, Any]) -> ChatResponse[Any]:
        raise ContextLengthExceededError("still too long")

    agent = Agent(
        FunctionChatClient(answer),
        middleware=[Compaction(context_window=200_000)],
        history=InMemoryHistoryStore(),
    )
    session = agent.create_session()
    assert agent.history is not None
    await agent.history.append(session.session_id, _seeded())

    with pytest.raises(ContextLengthExceededError, match="still too long"):
        await _run(agent, "and now?", stream, session=session)


async def test_the_tool_loop_compacts_before_every_model_call(stream: bool) -> None:
    @tool
    def fetch(page: int) -> str:
        """Fetch a page."""
        return "p" * 6_000

    calls = iter(range(100))

    def answer(messages: Sequence[Message], options: Mapping[str, Any]) -> ChatResponse[Any]:
        number = next(calls)
        if number < 4:
            from agentcore import FunctionCallContent

            call = FunctionCallContent(call_id=f"f{number}", name="fetch", arguments='{"page": 1}')
            return ChatResponse(messages=[Message("assistant", [call])])
        return ChatResponse(messages=[Message("assistant", "done")])

    validating = ValidatingChatClient(FunctionChatClient(answer))
    compaction = Compaction(context_window=WINDOW)
    agent = Agent(validating, tools=[fetch], middleware=[compaction])

    response = await _run(agent, "read everything", stream)

    assert response.text == "done"
    assert compaction.stats.triggers >= 1
    # old results were cleared, calls kept: every request stayed valid
    last = validating.requests[-1].messages
    cleared = [m for m in last if m.role == "tool" and "cleared to save context" in str(m.contents)]
    assert cleared


async def test_caller_input_may_not_hold_a_record() -> None:
    agent = Agent(ScriptedChatClient(["x"]), history=InMemoryHistoryStore())
    record = Message("user", (CompactionContent(0, 1, 1, "forged"),))

    with pytest.raises(RunStateError, match="holds a CompactionContent"):
        await agent.run([record, Message("user", "hi")], session=agent.create_session())


async def test_a_drop_persisted_with_persist_all_is_replayed(stream: bool) -> None:
    store = InMemoryHistoryStore()
    compaction = Compaction(context_window=WINDOW, persist="all")
    agent = Agent(FunctionChatClient(Recorder()), middleware=[compaction], history=store)
    session = agent.create_session()
    await store.append(session.session_id, _seeded())

    await _run(agent, "and now?", stream, session=session)

    log = await store.load(session.session_id)
    records = [m.contents[0] for m in log if isinstance(m.contents[0], CompactionContent)]
    assert records
    assert all(r.summary is None for r in records)
    view = compacted_view(log)
    assert len(view.messages) < len(log) - len(records)
    assert check_request(list(view.messages)) == []
    assert view.covered_call_ids  # the dropped steps' calls


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"context_window": 100}, ValueError, "at least 1024"),
        ({"context_window": "big"}, TypeError, "must be an int"),
        ({"context_window": 8_000, "target": 0.9}, ValueError, "0 < target < trigger <= 1"),
        ({"context_window": 8_000, "trigger": 1.5}, ValueError, "0 < target < trigger <= 1"),
        ({"context_window": 8_000, "persist": "some"}, ValueError, "persist must be"),
        ({"context_window": 8_000, "summarizer": object()}, TypeError, "summarizer must have"),
    ],
)
def test_bad_configuration_is_refused(
    kwargs: dict[str, Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        Compaction(**kwargs)


async def test_summarizer_refuses_a_tool_call_answer() -> None:
    from agentcore_contrib.compaction import SummarizerError

    from agentcore import FunctionCallContent

    calling = ChatResponse[Any](
        messages=[Message("assistant", [FunctionCallContent(call_id="x", name="t")])],
        usage=Usage(input_tokens=1),
    )
    summarizer = Summarizer(ScriptedChatClient([calling]))

    with pytest.raises(SummarizerError, match="tool call"):
        await summarizer.summarize([Message("user", "hi")], run=RunContext())


async def test_a_paused_run_stores_its_records_and_resumes_on_the_compacted_view(
    stream: bool, store: Any
) -> None:
    @tool(approval_mode="always_require")
    def refund(amount: int) -> str:
        """Refund an amount."""
        return f"refunded {amount}"

    from agentcore import FunctionCallContent

    answers = iter(
        [
            ChatResponse(
                messages=[
                    Message(
                        "assistant",
                        [
                            FunctionCallContent(
                                call_id="r1", name="refund", arguments='{"amount": 5}'
                            )
                        ],
                    )
                ]
            ),
            ChatResponse(messages=[Message("assistant", "refund done")]),
        ]
    )
    requests: list[list[Message]] = []

    def answer(messages: Sequence[Message], options: Mapping[str, Any]) -> ChatResponse[Any]:
        requests.append(list(messages))
        return next(answers)

    summarizer = Summarizer(ScriptedChatClient(["twelve turns about search"]))
    compaction = Compaction(context_window=WINDOW, summarizer=summarizer)
    client = ValidatingChatClient(FunctionChatClient(answer), seed=_seeded())
    agent = Agent(client, tools=[refund], middleware=[compaction], history=store)
    session = agent.create_session()
    await store.append(session.session_id, _seeded())

    paused = await _run(agent, "refund 5 please", stream, session=session)

    (request,) = [
        c for m in paused.messages for c in m.contents if c.type == "function_approval_request"
    ]
    log = await store.load(session.session_id)
    assert any(isinstance(m.contents[0], CompactionContent) for m in log)
    view = await store.load_view(session.session_id)
    assert is_summary(view.messages[1])

    done = await _run(
        agent, [Message("user", [request.create_response(True)])], stream, session=session
    )

    assert done.text == "refund done"
    resumed_request = requests[-1]
    assert is_summary(resumed_request[1])  # the resumed call saw the compacted view
    assert check_request(resumed_request) == []
    assert compaction.stats.summaries == 1
