"""A limit ends the run with a text answer even when the last call still asks for tools.

When the iteration cap or the error streak is reached the loop makes one last model
call with ``tool_choice="none"``. A model that calls a tool anyway must not leave an
unexecuted call in the answer or in the stored history: the calls are dropped, and
when the model gave no text the run answers with a clear fallback text.
"""

from __future__ import annotations

import pytest

from agentcore import (
    Agent,
    FunctionCallContent,
    FunctionInvocationConfiguration,
    InMemoryHistoryStore,
    Message,
    ToolLoop,
    tool,
)
from agentcore.testing import ScriptedChatClient

from .harness import assert_history_valid, calls, one_call, run_agent, run_loop

pytestmark = pytest.mark.anyio


@tool
def ping() -> str:
    """Answer pong."""
    return "pong"


@tool
def boom() -> str:
    """Always fails."""
    raise RuntimeError("nope")


def _call_ids(messages: tuple[Message, ...] | list[Message]) -> list[str]:
    return [c.call_id for m in messages for c in m.contents if isinstance(c, FunctionCallContent)]


def _with_text(text: str) -> Message:
    return Message(
        "assistant",
        [FunctionCallContent("late", "ping", "{}"), *Message("assistant", text).contents],
    )


@pytest.mark.parametrize("stream", [False, True])
async def test_a_call_in_the_final_turn_is_dropped_and_a_fallback_text_answers(
    stream: bool,
) -> None:
    client = ScriptedChatClient([one_call("ping", call_id="c1"), one_call("ping", call_id="late")])
    store = InMemoryHistoryStore()
    agent = Agent(
        client,
        tools=[ping],
        history=store,
        tool_loop=FunctionInvocationConfiguration(max_iterations=1),
    )
    session = agent.create_session()

    response, _ = await run_agent(agent, "go", stream=stream, session=session)

    assert client.requests[1].options.get("tool_choice") == "none"
    assert "late" not in _call_ids(response.messages)
    assert response.text, "the run must end with a text answer"
    assert "limit" in response.text
    assert response.messages[-1].role == "assistant"
    assert response.finish_reason == "stop"
    stored = await store.load(session.session_id)
    assert _call_ids(stored) == ["c1"]
    # The next run's request is a valid conversation.
    next_client = ScriptedChatClient(["fine"])
    agent.client = next_client
    await run_agent(agent, "and now?", stream=stream, session=session)
    assert_history_valid(next_client.requests)


@pytest.mark.parametrize("stream", [False, True])
async def test_text_the_model_gave_beside_the_call_is_the_answer(stream: bool) -> None:
    from agentcore import ChatResponse

    last = ChatResponse(messages=[_with_text("Here is what I found.")], finish_reason="tool_calls")
    client = ScriptedChatClient([one_call("boom", call_id="c1"), last])
    agent = Agent(
        client,
        tools=[boom],
        tool_loop=FunctionInvocationConfiguration(max_consecutive_errors_per_request=1),
    )

    response, _ = await run_agent(agent, "go", stream=stream)

    assert response.text == "Here is what I found."
    assert _call_ids(response.messages) == ["c1"]


@pytest.mark.parametrize("stream", [False, True])
async def test_a_standalone_loop_drops_the_call_of_its_final_turn(stream: bool) -> None:
    client = ScriptedChatClient(
        [one_call("ping", call_id="c1"), calls(("x", "ping", "{}"), ("y", "ping", "{}"))]
    )
    loop = ToolLoop(client, config=FunctionInvocationConfiguration(max_iterations=1))

    response, _ = await run_loop(
        loop, [Message("user", "go")], stream=stream, options={"tools": [ping]}
    )

    assert _call_ids(response.messages) == ["c1"]
    assert response.text
    assert response.finish_reason == "stop"
