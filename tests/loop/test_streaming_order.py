"""Streaming runs show each step as it happens: model output, then the tool results,
then the next model turn."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from agentcore import (
    Agent,
    AgentResponseUpdate,
    ChatResponse,
    FunctionCallContent,
    FunctionResultContent,
    Message,
    TextContent,
    ToolLoop,
    tool,
)
from agentcore.testing import FunctionChatClient, ScriptedChatClient

from .harness import calls, one_call, run_agent, run_loop, text

pytestmark = pytest.mark.anyio


@tool
def ping() -> str:
    """Answer pong."""
    return "pong"


def _steps(updates: Sequence[Any]) -> list[tuple[str | None, str]]:
    """(role, content type) per content, with consecutive repeats collapsed."""
    steps: list[tuple[str | None, str]] = []
    for update in updates:
        for content in update.contents:
            step = (update.role, content.type)
            if not steps or steps[-1] != step:
                steps.append(step)
    return steps


async def test_an_agent_stream_shows_call_then_result_then_answer() -> None:
    client = ScriptedChatClient(
        [
            one_call("ping", '{"a": "long enough to be cut into pieces"}', "c1"),
            text("pong it is, and then some"),
        ]
    )

    _, updates = await run_agent(Agent(client, tools=[ping]), "go", stream=True)

    assert _steps(updates) == [
        ("assistant", "function_call"),
        ("tool", "function_result"),
        ("assistant", "text"),
    ]
    assert len([u for u in updates if u.text]) > 1  # the answer itself arrives in pieces


async def test_a_standalone_loop_stream_shows_every_turn_in_order() -> None:
    client = ScriptedChatClient(
        [
            one_call("ping", call_id="c1"),
            calls(("c2", "ping", "{}"), ("c3", "ping", "{}")),
            text("done"),
        ]
    )

    _, updates = await run_loop(
        ToolLoop(client), [Message("user", "go")], stream=True, options={"tools": [ping]}
    )

    assert _steps(updates) == [
        ("assistant", "function_call"),
        ("tool", "function_result"),
        ("assistant", "function_call"),
        ("tool", "function_result"),
        ("assistant", "text"),
    ]
    result_ids = [
        c.call_id for u in updates for c in u.contents if isinstance(c, FunctionResultContent)
    ]
    assert result_ids == ["c1", "c2", "c3"]


async def test_tool_results_reach_the_caller_before_the_next_model_call() -> None:
    seen: list[AgentResponseUpdate] = []
    seen_at_request: list[list[str]] = []

    def respond(messages: Sequence[Message], options: Mapping[str, Any]) -> ChatResponse[Any]:
        seen_at_request.append([c.type for u in seen for c in u.contents])
        if len(seen_at_request) == 1:
            return one_call("ping")
        return text("done")

    run = Agent(FunctionChatClient(respond), tools=[ping]).run("go", stream=True)
    async for update in run:
        seen.append(update)

    assert "function_result" not in seen_at_request[0]
    assert seen_at_request[1][-1] == "function_result"
    assert "function_call" in seen_at_request[1]


@pytest.mark.parametrize("stream", [False, True])
async def test_the_response_holds_call_result_and_answer_messages(stream: bool) -> None:
    client = ScriptedChatClient([one_call("ping"), text("done")])

    response, _ = await run_agent(Agent(client, tools=[ping]), "go", stream=stream)

    assert response.messages == (
        Message("assistant", (FunctionCallContent("c1", "ping", "{}"),)),
        Message("tool", (FunctionResultContent("c1", result="pong"),)),
        Message("assistant", (TextContent("done"),)),
    )
