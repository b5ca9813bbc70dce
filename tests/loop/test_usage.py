"""Usage is summed over every model call of the loop, and over agents used as tools."""

from __future__ import annotations

import pytest

from agentcore import (
    Agent,
    FunctionInvocationConfiguration,
    Message,
    ToolLoop,
    Usage,
    tool,
)
from agentcore.testing import ScriptedChatClient

from .harness import calls, one_call, run_agent, run_loop, text

pytestmark = pytest.mark.anyio

TURNS = (Usage(10, 1, 11), Usage(20, 2, 22, cache_read_tokens=5), Usage(30, 3, 33))
TOTAL = Usage(60, 6, 66, cache_read_tokens=5)


@tool
def ping() -> str:
    """Answer pong."""
    return "pong"


@tool
def boom() -> str:
    """Always fails."""
    raise RuntimeError("no")


def _script() -> list[object]:
    return [
        one_call("ping", call_id="c1", usage=TURNS[0]),
        calls(("c2", "ping", "{}"), ("c3", "ping", "{}"), usage=TURNS[1]),
        text("done", usage=TURNS[2]),
    ]


@pytest.mark.parametrize("stream", [False, True])
async def test_agent_usage_is_the_sum_of_every_model_call(stream: bool) -> None:
    client = ScriptedChatClient(_script())  # type: ignore[arg-type] # script entries

    response, _ = await run_agent(Agent(client, tools=[ping]), "go", stream=stream)

    assert len(client.requests) == 3
    assert response.usage == TOTAL


async def test_streamed_and_non_streamed_usage_are_identical() -> None:
    plain, _ = await run_agent(
        Agent(ScriptedChatClient(_script()), tools=[ping]),  # type: ignore[arg-type] # script
        "go",
        stream=False,
    )
    streamed, _ = await run_agent(
        Agent(ScriptedChatClient(_script()), tools=[ping]),  # type: ignore[arg-type] # script
        "go",
        stream=True,
    )

    assert plain.usage == streamed.usage == TOTAL
    assert plain.messages == streamed.messages


@pytest.mark.parametrize("stream", [False, True])
async def test_standalone_loop_usage_is_the_sum_of_every_model_call(stream: bool) -> None:
    client = ScriptedChatClient(_script())  # type: ignore[arg-type] # script entries

    response, _ = await run_loop(
        ToolLoop(client), [Message("user", "go")], stream=stream, options={"tools": [ping]}
    )

    assert response.usage == TOTAL


@pytest.mark.parametrize("stream", [False, True])
async def test_the_final_call_after_a_limit_counts_too(stream: bool) -> None:
    client = ScriptedChatClient([one_call("boom", usage=TURNS[0]), text("gave up", usage=TURNS[1])])
    config = FunctionInvocationConfiguration(max_consecutive_errors_per_request=1)

    response, _ = await run_agent(
        Agent(client, tools=[boom], tool_loop=config), "go", stream=stream
    )

    assert response.usage == TURNS[0] + TURNS[1]


@pytest.mark.parametrize("stream", [False, True])
async def test_a_response_without_usage_adds_nothing(stream: bool) -> None:
    client = ScriptedChatClient([one_call("ping"), text("done", usage=TURNS[2])])

    response, _ = await run_agent(Agent(client, tools=[ping]), "go", stream=stream)

    assert response.usage == TURNS[2]


@pytest.mark.parametrize("stream", [False, True])
async def test_an_agent_used_as_a_tool_adds_its_usage_to_the_outer_run(stream: bool) -> None:
    inner_usage = Usage(100, 10, 110)
    inner_client = ScriptedChatClient([text("inner answer", usage=inner_usage)])
    helper = Agent(inner_client, name="helper", description="Helps.")
    outer_client = ScriptedChatClient(
        [
            one_call("helper", '{"task": "help me"}', usage=TURNS[0]),
            text("outer answer", usage=TURNS[1]),
        ]
    )
    agent = Agent(outer_client, tools=[helper.as_tool()])

    response, _ = await run_agent(agent, "go", stream=stream)

    assert response.text == "outer answer"
    assert inner_client.requests[0].messages == (Message("user", "help me"),)
    assert response.usage == TURNS[0] + TURNS[1] + inner_usage


@pytest.mark.parametrize("stream", [False, True])
async def test_two_agent_tool_calls_in_one_turn_both_count(stream: bool) -> None:
    helper = Agent(
        ScriptedChatClient(
            [text("a", usage=Usage(100, 10, 110)), text("b", usage=Usage(200, 20, 220))]
        ),
        name="helper",
    )
    outer_client = ScriptedChatClient(
        [
            calls(("c1", "helper", '{"task": "a"}'), ("c2", "helper", '{"task": "b"}')),
            text("both done", usage=TURNS[0]),
        ]
    )

    response, _ = await run_agent(
        Agent(outer_client, tools=[helper.as_tool()]), "go", stream=stream
    )

    assert response.usage == TURNS[0] + Usage(300, 30, 330)
