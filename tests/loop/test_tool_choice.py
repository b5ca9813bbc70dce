"""``tool_choice``: auto loops to a text answer, none sends no tools, required returns
after one tool round."""

from __future__ import annotations

from typing import Any

import pytest

from agentcore import (
    Agent,
    FunctionCallContent,
    FunctionResultContent,
    Message,
    ToolLoop,
    tool,
)
from agentcore.testing import ScriptedChatClient

from .harness import assert_history_valid, calls, one_call, run_agent, run_loop, text

pytestmark = pytest.mark.anyio


def _counter() -> tuple[list[int], Any]:
    ran: list[int] = []

    @tool
    def step(n: int) -> int:
        """Record a step."""
        ran.append(n)
        return n * 10

    return ran, step


@pytest.mark.parametrize("stream", [False, True])
async def test_auto_keeps_calling_the_model_until_it_answers_in_text(stream: bool) -> None:
    ran, step = _counter()
    client = ScriptedChatClient(
        [
            one_call("step", '{"n": 1}', "c1"),
            one_call("step", '{"n": 2}', "c2"),
            one_call("step", '{"n": 3}', "c3"),
            text("three steps"),
        ]
    )
    agent = Agent(client, tools=[step])

    response, _ = await run_agent(agent, "go", stream=stream, options={"tool_choice": "auto"})

    assert ran == [1, 2, 3]
    assert response.text == "three steps"
    assert len(client.requests) == 4
    assert all(r.options["tool_choice"] == "auto" for r in client.requests)
    assert [m.role for m in response.messages] == ["assistant", "tool"] * 3 + ["assistant"]
    assert_history_valid(client.requests)


@pytest.mark.parametrize("stream", [False, True])
async def test_none_sends_no_tools_and_runs_nothing(stream: bool) -> None:
    ran, step = _counter()
    # A model that calls a tool anyway: the loop must not run it.
    client = ScriptedChatClient([one_call("step", '{"n": 1}')])
    agent = Agent(client, tools=[step])

    response, _ = await run_agent(agent, "go", stream=stream, options={"tool_choice": "none"})

    assert ran == []
    assert len(client.requests) == 1
    assert "tools" not in client.requests[0].options
    assert client.requests[0].options["tool_choice"] == "none"
    assert response.messages == (
        Message("assistant", (FunctionCallContent("c1", "step", '{"n": 1}'),)),
    )


@pytest.mark.parametrize("stream", [False, True])
async def test_none_returns_the_text_answer(stream: bool) -> None:
    ran, step = _counter()
    client = ScriptedChatClient([text("no tools needed")])

    response, _ = await run_loop(
        ToolLoop(client),
        [Message("user", "hi")],
        stream=stream,
        options={"tools": [step], "tool_choice": "none"},
    )

    assert response.text == "no tools needed"
    assert "tools" not in client.requests[0].options
    assert ran == []


@pytest.mark.parametrize(
    "choice",
    ["required", {"mode": "required", "required_function_name": "step"}],
    ids=["required", "required-by-name"],
)
@pytest.mark.parametrize("stream", [False, True])
async def test_required_runs_the_call_and_returns_without_another_model_call(
    stream: bool, choice: Any
) -> None:
    ran, step = _counter()
    client = ScriptedChatClient([one_call("step", '{"n": 4}'), text("never requested")])
    agent = Agent(client, tools=[step])

    response, _ = await run_agent(agent, "go", stream=stream, options={"tool_choice": choice})

    assert ran == [4]
    assert len(client.requests) == 1
    assert client.requests[0].options["tool_choice"] == choice
    assert response.messages == (
        Message("assistant", (FunctionCallContent("c1", "step", '{"n": 4}'),)),
        Message("tool", (FunctionResultContent("c1", result=40),)),
    )


@pytest.mark.parametrize("stream", [False, True])
async def test_required_runs_every_parallel_call_of_the_turn(stream: bool) -> None:
    ran, step = _counter()
    client = ScriptedChatClient(
        [calls(("c1", "step", '{"n": 1}'), ("c2", "step", '{"n": 2}')), text("never requested")]
    )

    response, _ = await run_loop(
        ToolLoop(client),
        [Message("user", "go")],
        stream=stream,
        options={"tools": [step], "tool_choice": "required"},
    )

    assert sorted(ran) == [1, 2]
    assert len(client.requests) == 1
    assert [m.role for m in response.messages] == ["assistant", "tool"]
    assert response.messages[1].contents == (
        FunctionResultContent("c1", result=10),
        FunctionResultContent("c2", result=20),
    )


@pytest.mark.parametrize("stream", [False, True])
async def test_required_result_lets_the_next_run_continue_validly(stream: bool) -> None:
    ran, step = _counter()
    client = ScriptedChatClient([one_call("step", '{"n": 1}'), text("after")])
    loop = ToolLoop(client)
    history = [Message("user", "go")]

    first, _ = await run_loop(
        loop, history, stream=stream, options={"tools": [step], "tool_choice": "required"}
    )
    second, _ = await run_loop(
        loop,
        [*history, *first.messages, Message("user", "and now?")],
        stream=stream,
        options={"tools": [step]},
    )

    assert second.text == "after"
    assert ran == [1]
    assert_history_valid(client.requests)
