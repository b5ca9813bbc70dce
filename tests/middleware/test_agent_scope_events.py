"""Agent middleware events and observers, in streaming and non-streaming runs."""

from __future__ import annotations

from typing import Any

import pytest

from agentcore import Agent, AgentContext, AgentResponse, CustomEvent, Message
from agentcore.middleware import CallNext
from agentcore.testing import ScriptedChatClient

from .harness import run_agent, text

pytestmark = [pytest.mark.anyio, pytest.mark.parametrize("stream", [False, True])]


async def test_events_emitted_by_agent_middleware_reach_the_stream_and_the_response(
    stream: bool,
) -> None:
    async def audit(context: AgentContext, call_next: CallNext) -> None:
        await context.run.emit("run starting", name="audit")
        await call_next()
        await context.run.emit("run set up", name="audit")

    agent = Agent(ScriptedChatClient([text("hello")]), middleware=[audit])
    response, updates = await run_agent(agent, stream=stream)

    expected = (CustomEvent("audit", "run starting"), CustomEvent("audit", "run set up"))
    assert response.events == expected
    assert response.text == "hello"
    if stream:
        assert tuple(u.event for u in updates if u.event is not None) == expected


async def test_events_emitted_before_a_short_circuit_reach_the_caller(stream: bool) -> None:
    async def cached(context: AgentContext, call_next: CallNext) -> None:
        await context.run.emit("cache hit", name="cache")
        context.result = AgentResponse(messages=(Message("assistant", "cached"),))

    agent = Agent(ScriptedChatClient([]), middleware=[cached])
    response, updates = await run_agent(agent, stream=stream)

    assert response.events == (CustomEvent("cache", "cache hit"),)
    assert response.text == "cached"
    if stream:
        assert [u.event for u in updates if u.event] == [CustomEvent("cache", "cache hit")]


class Runs:
    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []

    def on_run_start(self, event: object) -> None:
        self.events.append(("start", event))

    def on_run_end(self, event: object) -> None:
        self.events.append(("end", event))


async def test_observers_see_a_run_that_agent_middleware_short_circuits(stream: bool) -> None:
    async def cached(context: AgentContext, call_next: CallNext) -> None:
        context.result = AgentResponse(messages=(Message("assistant", "cached"),))

    observer = Runs()
    agent = Agent(ScriptedChatClient([]), middleware=[cached], observers=[observer])
    response, _ = await run_agent(agent, stream=stream)

    assert [hook for hook, _ in observer.events] == ["start", "end"]
    assert observer.events[1][1].response.text == response.text == "cached"


async def test_observers_see_a_run_that_agent_middleware_fails(stream: bool) -> None:
    async def refuse(context: AgentContext, call_next: CallNext) -> None:
        raise PermissionError("no")

    observer = Runs()
    agent = Agent(ScriptedChatClient([]), middleware=[refuse], observers=[observer])
    with pytest.raises(PermissionError):
        await run_agent(agent, stream=stream)

    assert [hook for hook, _ in observer.events] == ["start", "end"]
    assert isinstance(observer.events[1][1].error, PermissionError)


async def test_run_started_carries_the_callers_input_in_both_modes(stream: bool) -> None:
    async def rewrite(context: AgentContext, call_next: CallNext) -> None:
        context.messages = [Message("user", "rewritten")]
        await call_next()

    observer = Runs()
    agent = Agent(ScriptedChatClient([text("ok")]), middleware=[rewrite], observers=[observer])
    await run_agent(agent, "original", stream=stream)

    assert observer.events[0][1].messages == (Message("user", "original"),)
