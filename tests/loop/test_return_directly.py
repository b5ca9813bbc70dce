"""Return directly: a call to such a tool ends the run with its result as the answer."""

from __future__ import annotations

import pytest

from agentcore import (
    Agent,
    AgentContext,
    FunctionResultContent,
    Message,
    TextContent,
    ToolLoop,
    tool,
)
from agentcore.middleware import CallNext
from agentcore.testing import ScriptedChatClient

from .harness import assert_history_valid, calls, one_call, results, run_agent, run_loop, text

pytestmark = pytest.mark.anyio


@tool(return_directly=True)
def lookup(key: str) -> str:
    """Look a value up."""
    return f"value of {key}"


@tool
def plain(key: str) -> dict[str, str]:
    """Look a value up, for the model."""
    return {"key": key, "value": "v"}


@pytest.mark.parametrize("stream", [False, True])
async def test_a_return_directly_tool_result_is_the_answer(stream: bool) -> None:
    client = ScriptedChatClient([one_call("lookup", '{"key": "a"}'), text("never requested")])

    response, _ = await run_agent(Agent(client, tools=[lookup]), "go", stream=stream)

    assert len(client.requests) == 1
    assert response.text == "value of a"
    assert [m.role for m in response.messages] == ["assistant", "tool", "assistant"]
    assert response.messages[-1] == Message("assistant", (TextContent("value of a"),))
    assert results(response.messages) == [FunctionResultContent("c1", result="value of a")]


@pytest.mark.parametrize("stream", [False, True])
async def test_return_directly_works_in_a_standalone_loop(stream: bool) -> None:
    client = ScriptedChatClient([one_call("lookup", '{"key": "b"}')])

    response, _ = await run_loop(
        ToolLoop(client), [Message("user", "go")], stream=stream, options={"tools": [lookup]}
    )

    assert response.text == "value of b"
    assert len(client.requests) == 1


@pytest.mark.parametrize("stream", [False, True])
async def test_a_failed_return_directly_call_goes_back_to_the_model(stream: bool) -> None:
    client = ScriptedChatClient([one_call("lookup", '{"key": 42}'), text("fixed it")])

    response, _ = await run_agent(Agent(client, tools=[lookup]), "go", stream=stream)

    assert len(client.requests) == 2
    assert response.text == "fixed it"
    assert results(response.messages)[0].error is not None
    assert_history_valid(client.requests)


@pytest.mark.parametrize("stream", [False, True])
async def test_a_non_text_result_becomes_json_answer_text(stream: bool) -> None:
    @tool(return_directly=True)
    def record(key: str) -> dict[str, int]:
        """Return a record."""
        return {key: 1}

    client = ScriptedChatClient([one_call("record", '{"key": "n"}')])

    response, _ = await run_agent(Agent(client, tools=[record]), "go", stream=stream)

    assert response.text == '{"n": 1}'


@pytest.mark.parametrize("stream", [False, True])
async def test_middleware_can_make_a_tool_return_directly_for_one_run(stream: bool) -> None:
    async def direct_plain(context: AgentContext, call_next: CallNext) -> None:
        context.return_directly.add("plain")
        await call_next()

    client = ScriptedChatClient(
        [
            one_call("plain", '{"key": "k"}', "c1"),
            one_call("plain", '{"key": "k"}', "c2"),
            text("the model answered"),
        ]
    )
    agent = Agent(client, tools=[plain])

    first, _ = await run_agent(agent, "go", stream=stream, middleware=[direct_plain])
    second, _ = await run_agent(agent, "go", stream=stream)

    assert first.text == '{"key": "k", "value": "v"}'
    assert second.text == "the model answered"
    assert len(client.requests) == 3
    assert_history_valid(client.requests)


@pytest.mark.parametrize("stream", [False, True])
async def test_other_calls_of_the_batch_still_get_their_results(stream: bool) -> None:
    client = ScriptedChatClient(
        [calls(("c1", "plain", '{"key": "x"}'), ("c2", "lookup", '{"key": "y"}'))]
    )

    response, _ = await run_agent(Agent(client, tools=[plain, lookup]), "go", stream=stream)

    assert response.messages[-1].text == "value of y"
    assert [r.call_id for r in results(response.messages)] == ["c1", "c2"]
