"""``additional_tools``: declared to the model, never run by the loop; the caller
answers their calls (or the loop keeps the history valid when it does not)."""

from __future__ import annotations

from typing import Any

import pytest

from agentcore import (
    Agent,
    FunctionCallContent,
    FunctionInvocationConfiguration,
    FunctionResultContent,
    InMemoryHistoryStore,
    Message,
    ToolLoop,
    tool,
)
from agentcore.testing import ScriptedChatClient

from .harness import assert_history_valid, calls, one_call, results, run_agent, run_loop, text

pytestmark = pytest.mark.anyio

CLIENT_SIDE: dict[str, Any] = {
    "name": "pick_file",
    "description": "Ask the user to pick a file.",
    "parameters": {"type": "object", "properties": {}},
}


@tool
def ping() -> str:
    """Answer pong."""
    return "pong"


def _declared_names(options: Any) -> list[str]:
    return [t["name"] if isinstance(t, dict) else t.name for t in options["tools"]]


def _agent(client: ScriptedChatClient, *declared: object) -> Agent:
    config = FunctionInvocationConfiguration(additional_tools=declared or (CLIENT_SIDE,))
    return Agent(client, tools=[ping], history=InMemoryHistoryStore(), tool_loop=config)


@pytest.mark.parametrize("stream", [False, True])
async def test_additional_tools_are_declared_to_the_model(stream: bool) -> None:
    client = ScriptedChatClient([text("nothing to do")])

    await run_agent(_agent(client), "go", stream=stream)

    assert _declared_names(client.requests[0].options) == ["ping", "pick_file"]


@pytest.mark.parametrize("stream", [False, True])
async def test_a_call_to_an_additional_tool_ends_the_run_with_the_call_pending(
    stream: bool,
) -> None:
    client = ScriptedChatClient([one_call("pick_file")])

    response, _ = await run_agent(_agent(client), "go", stream=stream)

    assert len(client.requests) == 1
    assert response.messages == (
        Message("assistant", (FunctionCallContent("c1", "pick_file", "{}"),)),
    )
    assert results(response.messages) == []


@pytest.mark.parametrize("stream", [False, True])
async def test_an_additional_function_tool_is_not_run_either(stream: bool) -> None:
    ran: list[str] = []

    @tool
    def pick_file() -> str:
        """Pick a file on the client."""
        ran.append("pick_file")
        return "server side"

    client = ScriptedChatClient([one_call("pick_file")])

    response, _ = await run_agent(_agent(client, pick_file), "go", stream=stream)

    assert ran == []
    assert results(response.messages) == []
    assert _declared_names(client.requests[0].options) == ["ping", "pick_file"]


@pytest.mark.parametrize("stream", [False, True])
async def test_other_calls_of_the_batch_run_and_the_additional_one_stays_pending(
    stream: bool,
) -> None:
    client = ScriptedChatClient([calls(("c1", "ping", "{}"), ("c2", "pick_file", "{}"))])

    response, _ = await run_agent(_agent(client), "go", stream=stream)

    assert len(client.requests) == 1
    assert [m.role for m in response.messages] == ["assistant", "tool"]
    assert results(response.messages) == [FunctionResultContent("c1", result="pong")]


@pytest.mark.parametrize("stream", [False, True])
async def test_the_callers_result_continues_the_conversation(stream: bool) -> None:
    client = ScriptedChatClient([one_call("pick_file"), text("you picked notes.txt")])
    agent = _agent(client)
    session = agent.create_session()

    await run_agent(agent, "open a file", stream=stream, session=session)
    response, _ = await run_agent(
        agent,
        Message("tool", (FunctionResultContent("c1", result="notes.txt"),)),
        stream=stream,
        session=session,
    )

    assert response.text == "you picked notes.txt"
    assert client.requests[1].messages == (
        Message("user", "open a file"),
        Message("assistant", (FunctionCallContent("c1", "pick_file", "{}"),)),
        Message("tool", (FunctionResultContent("c1", result="notes.txt"),)),
    )
    assert_history_valid(client.requests)


@pytest.mark.parametrize("stream", [False, True])
async def test_without_the_callers_result_a_synthetic_one_keeps_history_valid(
    stream: bool,
) -> None:
    client = ScriptedChatClient([one_call("pick_file"), text("never mind then")])
    agent = _agent(client)
    session = agent.create_session()

    await run_agent(agent, "open a file", stream=stream, session=session)
    response, _ = await run_agent(agent, "forget it", stream=stream, session=session)

    assert response.text == "never mind then"
    sent = client.requests[1].messages
    assert [m.role for m in sent] == ["user", "assistant", "tool", "user"]
    (synthetic,) = results(sent)
    assert synthetic.call_id == "c1"
    assert synthetic.error is not None
    assert_history_valid(client.requests)


@pytest.mark.parametrize("stream", [False, True])
async def test_a_standalone_loop_patches_a_dangling_call_before_the_request(
    stream: bool,
) -> None:
    client = ScriptedChatClient([text("ok")])
    history = [
        Message("user", "go"),
        Message("assistant", (FunctionCallContent("old", "pick_file", "{}"),)),
        Message("user", "still there?"),
    ]

    await run_loop(ToolLoop(client), history, stream=stream)

    assert [m.role for m in client.requests[0].messages] == ["user", "assistant", "tool", "user"]
    assert_history_valid(client.requests)


@pytest.mark.parametrize("stream", [False, True])
async def test_a_result_given_after_a_new_message_is_moved_up_to_its_call(stream: bool) -> None:
    client = ScriptedChatClient([text("thanks")])
    answer = FunctionResultContent("old", result="notes.txt")
    history = [
        Message("user", "go"),
        Message("assistant", (FunctionCallContent("old", "pick_file", "{}"),)),
        Message("user", "here it is"),
        Message("tool", (answer,)),
    ]

    await run_loop(ToolLoop(client), history, stream=stream)

    assert client.requests[0].messages == (
        Message("user", "go"),
        Message("assistant", (FunctionCallContent("old", "pick_file", "{}"),)),
        Message("tool", (answer,)),
        Message("user", "here it is"),
    )
    assert_history_valid(client.requests)


@pytest.mark.parametrize("stream", [False, True])
async def test_a_second_result_for_the_same_call_is_dropped(stream: bool) -> None:
    client = ScriptedChatClient([text("thanks")])
    first = FunctionResultContent("old", result="first")
    history = [
        Message("user", "go"),
        Message("assistant", (FunctionCallContent("old", "pick_file", "{}"),)),
        Message("tool", (first,)),
        Message("user", "again"),
        Message("tool", (FunctionResultContent("old", result="second"),)),
    ]

    await run_loop(ToolLoop(client), history, stream=stream)

    assert results(client.requests[0].messages) == [first]
    assert_history_valid(client.requests)
