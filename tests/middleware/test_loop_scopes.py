"""Chat middleware wraps every model call of the loop; function middleware wraps every tool call."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from agentcore import (
    Agent,
    ChatContext,
    ChatResponse,
    FunctionCallContent,
    FunctionInvocationContext,
    Message,
    tool,
)
from agentcore.middleware import CallNext
from agentcore.testing import ScriptedChatClient

from .harness import one_call, results, run_agent, text

pytestmark = pytest.mark.anyio


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def two_calls(first: tuple[str, str], second: tuple[str, str]) -> ChatResponse[None]:
    contents = (
        FunctionCallContent("c1", first[0], first[1]),
        FunctionCallContent("c2", second[0], second[1]),
    )
    return ChatResponse(messages=(Message("assistant", contents),), finish_reason="tool_calls")


@pytest.mark.parametrize("stream", [False, True])
async def test_chat_middleware_runs_around_every_model_call_of_the_loop(stream: bool) -> None:
    sent: list[list[Message]] = []

    async def count(context: ChatContext, call_next: CallNext) -> None:
        sent.append(list(context.messages))
        await call_next()

    client = ScriptedChatClient(
        [
            one_call("add", '{"a": 1, "b": 2}', "c1"),
            one_call("add", '{"a": 3, "b": 4}', "c2"),
            text("3 and 7"),
        ]
    )
    agent = Agent(client, tools=[add], middleware=[count])
    response, _ = await run_agent(agent, "add twice", stream=stream)

    assert response.text == "3 and 7"
    assert len(sent) == len(client.requests) == 3
    # The calls after tool results go through the middleware too, with those results.
    assert [results(messages) for messages in sent] == [[], [3], [3, 7]]
    assert [list(r.messages) for r in client.requests] == sent


@pytest.mark.parametrize("stream", [False, True])
async def test_function_middleware_runs_around_every_tool_call(stream: bool) -> None:
    seen: list[tuple[str, dict[str, Any]]] = []

    async def trace(context: FunctionInvocationContext, call_next: CallNext) -> None:
        seen.append((context.call_id, dict(context.arguments)))
        await call_next()

    client = ScriptedChatClient(
        [two_calls(("add", '{"a": 1, "b": 1}'), ("add", '{"a": 2, "b": 2}')), text("2 and 4")]
    )
    agent = Agent(client, tools=[add], middleware=[trace])
    response, _ = await run_agent(agent, "add", stream=stream)

    assert sorted(seen, key=lambda s: s[0]) == [("c1", {"a": 1, "b": 1}), ("c2", {"a": 2, "b": 2})]
    assert results(client.requests[1].messages) == [2, 4]
    assert response.text == "2 and 4"


@attrs.frozen
class Window:
    start: int
    end: int


@pytest.mark.parametrize("stream", [False, True])
async def test_function_middleware_sees_validated_arguments_and_may_rewrite_them(
    stream: bool,
) -> None:
    received: list[Window] = []

    @tool
    def book(window: Window) -> str:
        """Book a time window."""
        received.append(window)
        return f"booked {window.start}-{window.end}"

    seen: list[dict[str, Any]] = []

    async def widen(context: FunctionInvocationContext, call_next: CallNext) -> None:
        seen.append(dict(context.arguments))
        window = context.arguments["window"]
        context.arguments["window"] = attrs.evolve(window, end=window.end + 1)
        await call_next()

    client = ScriptedChatClient(
        [one_call("book", '{"window": {"start": 9, "end": 10}}'), text("booked")]
    )
    agent = Agent(client, tools=[book], middleware=[widen])
    await run_agent(agent, "book", stream=stream)

    assert seen == [{"window": Window(9, 10)}]  # converted from JSON before middleware runs
    assert received == [Window(9, 11)]
    assert results(client.requests[1].messages) == ["booked 9-11"]


@pytest.mark.parametrize("stream", [False, True])
async def test_function_middleware_rewrites_the_result_the_model_sees(stream: bool) -> None:
    async def redact(context: FunctionInvocationContext, call_next: CallNext) -> None:
        await call_next()
        context.result = {"sum": context.result, "checked": True}

    client = ScriptedChatClient([one_call("add", '{"a": 20, "b": 22}'), text("42")])
    agent = Agent(client, tools=[add], middleware=[redact])
    response, updates = await run_agent(agent, "add", stream=stream)

    expected = [{"sum": 42, "checked": True}]
    assert results(client.requests[1].messages) == expected
    assert results(response.messages) == expected
    if stream:
        assert results([Message("tool", u.contents) for u in updates]) == expected
