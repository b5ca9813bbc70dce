"""Pipelines are composed once per distinct middleware set, never per run or per call."""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from agentcore import Agent, ChatContext, FunctionInvocationContext, Message, ToolLoop, tool
from agentcore.middleware import CallNext, Middleware
from agentcore.middleware._pipeline import Pipelines
from agentcore.testing import ScriptedChatClient

from .harness import one_call, run_agent, text

pytestmark = pytest.mark.anyio


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


async def chat_noop(context: ChatContext, call_next: CallNext) -> None:
    await call_next()


async def function_noop(context: FunctionInvocationContext, call_next: CallNext) -> None:
    await call_next()


class BuildCounter:
    """Counts ``Pipelines.build`` calls (monkeypatched in)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.built: list[list[object]] = []
        original = Pipelines.build

        def counting(cls: type[Pipelines], middleware: Iterable[object]) -> Pipelines:
            items = list(middleware)
            self.built.append(items)
            return original(items)

        monkeypatch.setattr(Pipelines, "build", classmethod(counting))


def round_trips(rounds: int) -> ScriptedChatClient:
    script = [one_call("add", '{"a": 1, "b": 1}', f"c{i}") for i in range(rounds)]
    return ScriptedChatClient([*script, text("done")])


@pytest.mark.parametrize("stream", [False, True])
async def test_agent_level_pipelines_are_built_when_the_agent_is(
    stream: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    counter = BuildCounter(monkeypatch)
    agent = Agent(round_trips(3), tools=[add], middleware=[chat_noop, function_noop])
    assert counter.built == [[chat_noop, function_noop]]

    await run_agent(agent, stream=stream)

    assert len(counter.built) == 1  # not per run, model call or tool call


@pytest.mark.parametrize("stream", [False, True])
async def test_the_same_run_level_middleware_is_composed_once(
    stream: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = Agent(ScriptedChatClient([text("one"), text("two"), text("three")]), tools=[add])
    counter = BuildCounter(monkeypatch)
    run_level: list[Middleware] = [chat_noop, function_noop]

    await run_agent(agent, stream=stream, middleware=run_level)
    await run_agent(agent, stream=stream, middleware=run_level)
    await run_agent(agent, stream=stream, middleware=list(run_level))  # same set, new list

    assert counter.built == [run_level]


@pytest.mark.parametrize("stream", [False, True])
async def test_a_different_middleware_set_is_composed_again(
    stream: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = Agent(ScriptedChatClient([text("one"), text("two"), text("three")]), tools=[add])
    counter = BuildCounter(monkeypatch)

    await run_agent(agent, stream=stream, middleware=[chat_noop])
    await run_agent(agent, stream=stream, middleware=[function_noop])
    await run_agent(agent, stream=stream, middleware=[chat_noop])

    assert counter.built == [[chat_noop], [function_noop]]


@pytest.mark.parametrize("stream", [False, True])
async def test_a_tool_loop_composes_its_middleware_once(
    stream: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    counter = BuildCounter(monkeypatch)
    loop = ToolLoop(round_trips(2), middleware=[chat_noop, function_noop])
    options = {"tools": [add]}
    if stream:
        response = await loop.get_response([Message("user", "hi")], options=options, stream=True)
    else:
        response = await loop.get_response([Message("user", "hi")], options=options)

    assert response.text == "done"
    assert len(counter.built) == 1
