"""Control flow in agent middleware: every row of the return / raise / call_next tables.

The stack is always ``[A, B, C]``: A and C record, B exits the way the row says.
The actual operation is the run core, seen here as the model call.
"""

from __future__ import annotations

import pytest

from agentcore import Agent, AgentContext, AgentResponse, Message, MiddlewareTermination
from agentcore.middleware import CallNext, Middleware
from agentcore.testing import ScriptedChatClient

from .harness import recorder, run_agent, text

pytestmark = [pytest.mark.anyio, pytest.mark.parametrize("stream", [False, True])]


class Boom(Exception):
    """An ordinary exception raised by a middleware."""


def from_b() -> AgentResponse[None]:
    return AgentResponse(messages=(Message("assistant", "from B"),), finish_reason="stop")


def build(b: Middleware, log: list[str]) -> tuple[Agent, ScriptedChatClient]:
    client = ScriptedChatClient([text("from the model")])
    a, c = recorder("agent", "A", log), recorder("agent", "C", log)
    return Agent(client, name="bot", middleware=[a, b, c]), client


async def test_return_after_call_next_runs_everything_and_keeps_the_real_result(
    stream: bool,
) -> None:
    log: list[str] = []

    async def b(context: AgentContext, call_next: CallNext) -> None:
        log.append("B before")
        await call_next()
        log.append("B after")

    agent, client = build(b, log)
    response, _ = await run_agent(agent, stream=stream)

    assert log == ["A before", "B before", "C before", "C after", "B after", "A after"]
    assert len(client.requests) == 1
    assert response.text == "from the model"


async def test_return_without_call_next_short_circuits_and_upstream_still_runs(
    stream: bool,
) -> None:
    log: list[str] = []

    async def b(context: AgentContext, call_next: CallNext) -> None:
        log.append("B before")
        context.result = from_b()

    agent, client = build(b, log)
    response, updates = await run_agent(agent, stream=stream)

    assert log == ["A before", "B before", "A after"]
    assert client.requests == []
    assert response.text == "from B"
    if stream:
        assert "".join(u.text for u in updates) == "from B"


async def test_termination_without_call_next_skips_upstream_post_processing(
    stream: bool,
) -> None:
    log: list[str] = []

    async def b(context: AgentContext, call_next: CallNext) -> None:
        log.append("B before")
        context.result = from_b()
        raise MiddlewareTermination("blocked")

    agent, client = build(b, log)
    response, updates = await run_agent(agent, stream=stream)

    assert log == ["A before", "B before"]
    assert client.requests == []
    assert response.text == "from B"
    if stream:
        assert "".join(u.text for u in updates) == "from B"


async def test_termination_after_call_next_keeps_the_real_result_and_skips_upstream(
    stream: bool,
) -> None:
    log: list[str] = []

    async def b(context: AgentContext, call_next: CallNext) -> None:
        log.append("B before")
        await call_next()
        raise MiddlewareTermination("enough")

    agent, client = build(b, log)
    response, _ = await run_agent(agent, stream=stream)

    assert log == ["A before", "B before", "C before", "C after"]
    assert len(client.requests) == 1
    assert response.text == "from the model"


async def test_termination_result_without_call_next_becomes_the_run_response(
    stream: bool,
) -> None:
    log: list[str] = []

    async def b(context: AgentContext, call_next: CallNext) -> None:
        log.append("B before")
        raise MiddlewareTermination("cached", result="from B")

    agent, client = build(b, log)
    response, updates = await run_agent(agent, stream=stream)

    assert log == ["A before", "B before"]
    assert client.requests == []
    assert isinstance(response, AgentResponse)
    assert response.text == "from B"
    assert response.agent_name == "bot"
    if stream:
        assert "".join(u.text for u in updates) == "from B"


async def test_termination_result_after_call_next_replaces_the_run_response(
    stream: bool,
) -> None:
    log: list[str] = []

    async def b(context: AgentContext, call_next: CallNext) -> None:
        log.append("B before")
        await call_next()
        raise MiddlewareTermination(result=Message("assistant", "from B"))

    agent, client = build(b, log)
    response, _ = await run_agent(agent, stream=stream)

    assert log == ["A before", "B before", "C before", "C after"]
    assert response.text == "from B"
    # Streaming: call_next() only set the run's stream up, and the replaced stream is
    # never consumed, so the model is never called.
    assert len(client.requests) == (0 if stream else 1)


async def test_another_exception_without_call_next_propagates_to_the_caller(
    stream: bool,
) -> None:
    log: list[str] = []

    async def b(context: AgentContext, call_next: CallNext) -> None:
        log.append("B before")
        raise Boom("refused")

    agent, client = build(b, log)
    with pytest.raises(Boom, match="refused"):
        await run_agent(agent, stream=stream)

    assert log == ["A before", "B before"]
    assert client.requests == []


async def test_another_exception_after_call_next_propagates_to_the_caller(
    stream: bool,
) -> None:
    log: list[str] = []

    async def b(context: AgentContext, call_next: CallNext) -> None:
        log.append("B before")
        await call_next()
        raise Boom("rejected the answer")

    agent, _ = build(b, log)
    with pytest.raises(Boom, match="rejected the answer"):
        await run_agent(agent, stream=stream)

    assert log == ["A before", "B before", "C before", "C after"]


async def test_the_reference_two_layer_table_return_row(stream: bool) -> None:
    log: list[str] = []

    async def b(context: AgentContext, call_next: CallNext) -> None:
        log.append("B: before")
        context.result = from_b()

    client = ScriptedChatClient([])
    agent = Agent(client, middleware=[recorder("agent", "A:", log), b])
    response, _ = await run_agent(agent, stream=stream)

    assert log == ["A: before", "B: before", "A: after"]
    assert response.text == "from B"


async def test_the_reference_two_layer_table_termination_row(stream: bool) -> None:
    log: list[str] = []

    async def b(context: AgentContext, call_next: CallNext) -> None:
        log.append("B: before")
        context.result = from_b()
        raise MiddlewareTermination

    client = ScriptedChatClient([])
    agent = Agent(client, middleware=[recorder("agent", "A:", log), b])
    response, _ = await run_agent(agent, stream=stream)

    assert log == ["A: before", "B: before"]
    assert response.text == "from B"
