"""``ToolLoop`` on its own: a chat client that runs tools, with no Agent around it."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from agentcore import (
    Agent,
    ChatContext,
    ChatResponseUpdate,
    FunctionCallContent,
    FunctionResultContent,
    Message,
    ResponseStream,
    SupportsGetResponse,
    TextContent,
    ToolLoop,
    tool,
)
from agentcore.middleware import CallNext
from agentcore.testing import ScriptedChatClient

from .harness import assert_history_valid, one_call, results, run_agent, run_loop, text

pytestmark = pytest.mark.anyio


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def test_tool_loop_satisfies_supports_get_response() -> None:
    assert isinstance(ToolLoop(ScriptedChatClient([])), SupportsGetResponse)


def test_tool_loop_rejects_a_client_without_get_response() -> None:
    with pytest.raises(TypeError, match="get_response"):
        ToolLoop(object())  # type: ignore[arg-type] # the mistake is the point


@pytest.mark.parametrize("stream", [False, True])
async def test_standalone_loop_runs_the_tool_and_calls_the_model_again(stream: bool) -> None:
    client = ScriptedChatClient([one_call("add", '{"a": 2, "b": 3}'), text("five")])
    loop = ToolLoop(client)

    response, _ = await run_loop(
        loop, [Message("user", "2+3?")], stream=stream, options={"tools": [add]}
    )

    assert [m.role for m in response.messages] == ["assistant", "tool", "assistant"]
    assert response.messages[1].contents == (FunctionResultContent("c1", result=5),)
    assert response.text == "five"
    assert len(client.requests) == 2
    assert client.requests[1].messages[-1].contents == (FunctionResultContent("c1", result=5),)
    assert all(r.stream is stream for r in client.requests)
    assert_history_valid(client.requests)


@pytest.mark.parametrize("stream", [False, True])
async def test_standalone_loop_normalizes_plain_functions_into_tools(stream: bool) -> None:
    def shout(words: str) -> str:
        """Say it louder."""
        return words.upper()

    client = ScriptedChatClient([one_call("shout", '{"words": "hi"}'), text("done")])

    response, _ = await run_loop(
        ToolLoop(client), [Message("user", "go")], stream=stream, options={"tools": [shout]}
    )

    assert response.messages[1].contents == (FunctionResultContent("c1", result="HI"),)
    assert [t.name for t in client.requests[0].options["tools"]] == ["shout"]


@pytest.mark.parametrize("stream", [False, True])
async def test_streamed_and_non_streamed_standalone_runs_give_the_same_messages(
    stream: bool,
) -> None:
    script = [one_call("add", '{"a": 1, "b": 1}'), text("two")]
    baseline = await ToolLoop(ScriptedChatClient(script)).get_response(
        [Message("user", "1+1")], options={"tools": [add]}
    )

    response, _ = await run_loop(
        ToolLoop(ScriptedChatClient(script)),
        [Message("user", "1+1")],
        stream=stream,
        options={"tools": [add]},
    )

    assert response.messages == baseline.messages
    assert response.messages[0].contents == (FunctionCallContent("c1", "add", '{"a": 1, "b": 1}'),)
    assert response.messages[2].contents == (TextContent("two"),)


@pytest.mark.parametrize("stream", [False, True])
async def test_standalone_loop_leaves_the_callers_messages_untouched(stream: bool) -> None:
    messages = [Message("user", "1+1")]
    client = ScriptedChatClient([one_call("add", '{"a": 1, "b": 1}'), text("two")])

    await run_loop(ToolLoop(client), messages, stream=stream, options={"tools": [add]})

    assert messages == [Message("user", "1+1")]
    assert client.requests[0].messages == (Message("user", "1+1"),)


def shouted(update: ChatResponseUpdate) -> ChatResponseUpdate:
    contents = tuple(
        TextContent(c.text.upper()) if isinstance(c, TextContent) else c for c in update.contents
    )
    return attrs.evolve(update, contents=contents)


@pytest.mark.parametrize("stream", [False, True])
async def test_an_agent_can_use_a_tool_loop_as_its_client(stream: bool) -> None:
    # Streaming nests: the agent's loop reads the inner loop's stream, which reads
    # the model's; each level's transforms apply once and each final value is ready.
    client = ScriptedChatClient([one_call("add", '{"a": 2, "b": 3}'), text("five")])
    calls_seen: list[int] = []

    async def shout(context: ChatContext, call_next: CallNext) -> None:
        calls_seen.append(len(context.messages))
        await call_next()
        if isinstance(context.result, ResponseStream):
            context.result = context.result.map(shouted)

    agent = Agent(ToolLoop(client, middleware=[shout]), tools=[add], middleware=[shout])
    response, updates = await run_agent(agent, "2 + 3?", stream=stream)

    assert response.text == ("FIVE" if stream else "five")
    assert [r.result for r in results(response.messages)] == [5]
    assert calls_seen == [1, 1, 3]  # the agent's one call; the inner loop's two
    assert_history_valid(client.requests)
    if stream:
        assert "".join(u.text for u in updates) == "FIVE"


async def test_a_loop_stream_closed_early_ends_with_what_was_read() -> None:
    loop = ToolLoop(ScriptedChatClient(["hello there, friend"]))
    stream = loop.get_response([Message("user", "hi")], stream=True)
    first = await stream.__anext__()
    await stream.aclose()
    final = await stream.get_final_response()
    assert final.text == first.text != "hello there, friend"


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(
    ("messages", "options", "said"),
    [
        ("hi", None, r"takes a list of Message, got str 'hi'; wrap it"),
        (Message("user", "hi"), None, r"takes a list of Message, got Message"),
        ([Message("user", "hi"), "and this"], None, r"item 1 is str 'and this'"),
        ([Message("user", "hi")], "x", r"chat options must be a mapping .* got str 'x'"),
    ],
    ids=["str", "one-message", "str-item", "options-str"],
)
async def test_a_standalone_loop_refuses_bad_input_when_called(
    stream: bool, messages: Any, options: Any, said: str
) -> None:
    client = ScriptedChatClient(["unused"])
    loop: Any = ToolLoop(client)  # called with the mistakes under test

    with pytest.raises(TypeError, match=said):
        loop.get_response(messages, options=options, stream=stream)
    assert client.requests == []
