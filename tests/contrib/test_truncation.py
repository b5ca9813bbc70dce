"""ContentTruncator and HistoryTruncator: tool results and history within a token budget."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs
import pytest
from agentcore_contrib.truncation import ContentTruncator, HistoryTruncator, estimate_tokens

from agentcore import (
    Agent,
    AgentResponse,
    ChatContext,
    ChatResponse,
    FunctionCallContent,
    FunctionInvocationContext,
    FunctionResultContent,
    Message,
    RunContext,
    tool,
)
from agentcore.middleware import CallNext
from agentcore.testing import ScriptedChatClient

pytestmark = pytest.mark.anyio


@pytest.fixture(params=[False, True], ids=["call", "stream"])
def stream(request: pytest.FixtureRequest) -> bool:
    return bool(request.param)


async def run(agent: Agent, messages: Any = "hi", *, stream: bool) -> AgentResponse[Any]:
    """Run once; a streaming run must fold into its final response."""
    if not stream:
        return await agent.run(messages)
    result = agent.run(messages, stream=True)
    updates = [update async for update in result]
    final = await result.get_final_response()
    assert AgentResponse.from_updates(updates) == attrs.evolve(final, value=None)
    return final


def call(name: str, call_id: str, arguments: str = "{}") -> ChatResponse[None]:
    return ChatResponse(
        messages=[Message("assistant", [FunctionCallContent(call_id, name, arguments)])],
        finish_reason="tool_calls",
    )


def tool_results(messages: Sequence[Message]) -> list[Any]:
    return [c.result for m in messages for c in m.contents if isinstance(c, FunctionResultContent)]


def assert_every_call_has_its_result(messages: Sequence[Message]) -> None:
    calls = {c.call_id for m in messages for c in m.contents if isinstance(c, FunctionCallContent)}
    answered = {
        c.call_id for m in messages for c in m.contents if isinstance(c, FunctionResultContent)
    }
    assert calls == answered


def turn(number: int, size: int = 40) -> list[Message]:
    """One old question/answer pair of about ``size / 4`` tokens each."""
    return [Message("user", f"q{number} " + "x" * size), Message("assistant", "a" * size)]


# -- ContentTruncator ---------------------------------------------------------------------


@tool
def small() -> str:
    """A short result."""
    return "short"


@tool
def huge() -> str:
    """A long result."""
    return "x" * 1000


@tool
def records() -> list[dict[str, int]]:
    """Many records."""
    return [{"id": i} for i in range(200)]


async def test_result_within_budget_is_left_as_it_was(stream: bool) -> None:
    client = ScriptedChatClient([call("small", "c1"), "done"])
    agent = Agent(client, tools=[small], middleware=[ContentTruncator(50)])

    response = await run(agent, stream=stream)

    assert tool_results(response.messages) == ["short"]


async def test_long_result_is_cut_to_the_budget_with_a_marker(stream: bool) -> None:
    client = ScriptedChatClient([call("huge", "c1"), "done"])
    agent = Agent(client, tools=[huge], middleware=[ContentTruncator(50)])

    response = await run(agent, stream=stream)

    [result] = tool_results(response.messages)
    assert result.startswith("xxxx")
    assert "truncated" in result
    assert estimate_tokens([Message("tool", [FunctionResultContent("c1", result)])]) <= 50


async def test_cut_keeps_as_much_as_fits() -> None:
    truncator = ContentTruncator(50, marker="")
    context = FunctionInvocationContext(
        function=huge, arguments={}, call_id="c1", run=RunContext(), result=None
    )

    async def tool_call() -> None:
        context.result = "y" * 1000

    await truncator.process(context, tool_call)

    assert context.result == "y" * 200


async def test_structured_result_is_cut_as_json_text(stream: bool) -> None:
    client = ScriptedChatClient([call("records", "c1"), "done"])
    agent = Agent(client, tools=[records], middleware=[ContentTruncator(20)])

    response = await run(agent, stream=stream)

    [result] = tool_results(response.messages)
    assert result.startswith('[{"id": 0}, {"id": 1}')


async def test_cut_is_marked_in_metadata(stream: bool) -> None:
    marks: list[bool] = []

    class Probe:
        async def process(self, context: FunctionInvocationContext, call_next: CallNext) -> None:
            await call_next()
            marks.append(bool(context.metadata.get("truncated")))

    client = ScriptedChatClient([call("huge", "c1"), call("small", "c2"), "done"])
    agent = Agent(client, tools=[huge, small], middleware=[Probe(), ContentTruncator(50)])

    await run(agent, stream=stream)

    assert marks == [True, False]


async def test_custom_counter_decides_the_size(stream: bool) -> None:
    def words(messages: Sequence[Message]) -> int:
        return sum(len(str(c.result).split()) for c in tool_contents(messages))

    @tool
    def prose() -> str:
        """Some words."""
        return " ".join(["word"] * 100)

    client = ScriptedChatClient([call("prose", "c1"), "done"])
    agent = Agent(client, tools=[prose], middleware=[ContentTruncator(10, counter=words)])

    response = await run(agent, stream=stream)

    [result] = tool_results(response.messages)
    assert len(result.split()) <= 10


def tool_contents(messages: Sequence[Message]) -> list[FunctionResultContent]:
    return [c for m in messages for c in m.contents if isinstance(c, FunctionResultContent)]


def test_marker_with_unknown_fields_is_refused() -> None:
    with pytest.raises(ValueError, match="marker may use only"):
        ContentTruncator(10, marker="[{cut}]")


def test_non_positive_budget_is_refused() -> None:
    with pytest.raises(ValueError, match="max_tokens must be an int >= 1"):
        ContentTruncator(0)


# -- HistoryTruncator ---------------------------------------------------------------------


async def test_history_within_budget_is_sent_whole(stream: bool) -> None:
    client = ScriptedChatClient(["ok"])
    history = [*turn(1), *turn(2), Message("user", "now")]
    agent = Agent(client, middleware=[HistoryTruncator(1000)])

    await run(agent, history, stream=stream)

    assert list(client.requests[0].messages) == history


async def test_oldest_turns_are_dropped_first(stream: bool) -> None:
    client = ScriptedChatClient(["ok"])
    history = [*turn(1), *turn(2), *turn(3), Message("user", "now")]
    agent = Agent(client, middleware=[HistoryTruncator(30)])

    await run(agent, history, stream=stream)

    sent = client.requests[0].messages
    assert [m.text[:2] for m in sent if m.role == "user"] == ["q3", "no"]


async def test_system_messages_and_the_latest_user_message_are_kept(stream: bool) -> None:
    client = ScriptedChatClient(["ok"])
    system = Message("system", "You are terse.")
    latest = Message("user", "y" * 400)
    agent = Agent(client, middleware=[HistoryTruncator(20)])

    await run(agent, [system, *turn(1), *turn(2), latest], stream=stream)

    assert list(client.requests[0].messages) == [system, latest]


async def test_a_call_is_never_separated_from_its_result(stream: bool) -> None:
    old_call = Message("assistant", [FunctionCallContent("old", "lookup", '{"q": "a"}')])
    old_result = Message("tool", [FunctionResultContent("old", "r" * 200)])
    history = [
        Message("user", "first"),
        old_call,
        old_result,
        Message("assistant", "answer"),
        *turn(2),
        Message("user", "now"),
    ]
    client = ScriptedChatClient(["ok"])
    for budget in range(5, 90, 5):
        agent = Agent(client, middleware=[HistoryTruncator(budget)])
        client.script.append("ok")
        await run(agent, history, stream=stream)
        assert_every_call_has_its_result(client.requests[-1].messages)


async def test_oldest_steps_of_a_long_tool_loop_go_and_the_latest_stays(stream: bool) -> None:
    @tool
    def fetch(page: int) -> str:
        """Fetch a page."""
        return f"page {page} " + "z" * 200

    client = ScriptedChatClient(
        [
            call("fetch", "c1", '{"page": 1}'),
            call("fetch", "c2", '{"page": 2}'),
            call("fetch", "c3", '{"page": 3}'),
            "done",
        ]
    )
    agent = Agent(client, tools=[fetch], middleware=[HistoryTruncator(80)])

    await run(agent, "read the book", stream=stream)

    last = client.requests[-1].messages
    assert last[0] == Message("user", "read the book")
    assert tool_results(last) == ["page 3 " + "z" * 200]
    assert_every_call_has_its_result(last)


async def test_drop_is_recorded_in_metadata(stream: bool) -> None:
    dropped: list[int] = []

    class Probe:
        async def process(self, context: ChatContext, call_next: CallNext) -> None:
            await call_next()
            dropped.append(context.metadata.get("history_dropped", 0))

    agent = Agent(ScriptedChatClient(["ok"]), middleware=[Probe(), HistoryTruncator(30)])

    await run(agent, [*turn(1), *turn(2), *turn(3), Message("user", "now")], stream=stream)

    assert dropped == [4]


def chat_context(transcript: list[Message], client: Any = None) -> ChatContext:
    """A context over ``transcript`` (the run's live list, rewritten in place)."""
    return ChatContext(
        client=client or ScriptedChatClient([]),
        messages=list(transcript),
        options={},
        stream=False,
        run=RunContext(),
        transcript=transcript,
    )


async def nothing() -> None:
    return None


async def test_transient_truncation_leaves_the_transcript_alone() -> None:
    history = [*turn(1), *turn(2), Message("user", "now")]
    transcript = list(history)
    context = chat_context(transcript)

    await HistoryTruncator(20).process(context, nothing)

    assert (len(context.messages), transcript) == (1, history)


async def test_persistent_truncation_rewrites_the_transcript() -> None:
    transcript = [*turn(1), *turn(2), Message("user", "now")]
    context = chat_context(transcript)

    await HistoryTruncator(20, persistent=True).process(context, nothing)

    assert transcript == [Message("user", "now")]


class CountingClient(ScriptedChatClient):
    """A client that counts tokens itself: 100 a message."""

    def __init__(self) -> None:
        super().__init__([])
        self.counted = 0

    async def count_tokens(self, messages: Sequence[Message], *, options: Any = None) -> int:
        self.counted += 1
        return 100 * len(messages)


async def test_client_token_count_is_used_when_the_client_has_one() -> None:
    client = CountingClient()
    history = [Message("user", "a"), Message("assistant", "b"), Message("user", "c")]
    context = chat_context(history, client)

    await HistoryTruncator(150).process(context, nothing)

    assert context.messages == [Message("user", "c")]
    assert client.counted >= 2


async def test_client_count_can_be_turned_off() -> None:
    client = CountingClient()
    history = [Message("user", "a"), Message("assistant", "b"), Message("user", "c")]
    context = chat_context(history, client)

    await HistoryTruncator(150, use_client_count=False).process(context, nothing)

    assert (context.messages, client.counted) == (history, 0)


async def test_instructions_count_against_the_budget() -> None:
    history = [*turn(1), Message("user", "now")]
    context = chat_context(history)
    context.options["instructions"] = "i" * 400

    await HistoryTruncator(110).process(context, nothing)

    assert context.messages == [Message("user", "now")]


async def test_docs_example_runs() -> None:
    source = Path(__file__).parents[2] / "docs" / "middleware" / "truncation.md"
    code = re.search(r"```python\n(.*?)```", source.read_text(), re.S)
    assert code is not None
    namespace: dict[str, Any] = {"__name__": "docs_example"}
    exec(compile(code.group(1), str(source), "exec"), namespace)
    await namespace["main"]()
