"""PENDING (needs the _tool_loop.py fix): exceptions raised by function middleware propagate.

Rows "raise OtherException" of the control-flow table, in function scope. To be
merged into tests/middleware/test_control_flow_function.py once the fix lands.
"""

from __future__ import annotations

import pytest

from agentcore import (
    Agent,
    ChatResponse,
    FunctionCallContent,
    FunctionInvocationContext,
    FunctionResultContent,
    Message,
    tool,
)
from agentcore.middleware import CallNext, Middleware
from agentcore.testing import ScriptedChatClient

from .harness import one_call, recorder, run_agent, text

pytestmark = [pytest.mark.anyio, pytest.mark.parametrize("stream", [False, True])]


class Boom(Exception):
    """An ordinary exception raised by a middleware."""


def build(b: Middleware, log: list[str]) -> tuple[Agent, ScriptedChatClient]:
    @tool
    def probe(x: int) -> int:
        """Multiply by ten."""
        log.append("tool ran")
        return 10 * x

    client = ScriptedChatClient([one_call("probe", '{"x": 2}'), text("final")])
    a, c = recorder("function", "A", log), recorder("function", "C", log)
    return Agent(client, tools=[probe], middleware=[a, b, c]), client


async def test_another_exception_without_call_next_propagates_to_the_caller(
    stream: bool,
) -> None:
    log: list[str] = []

    async def b(context: FunctionInvocationContext, call_next: CallNext) -> None:
        log.append("B before")
        raise Boom("refused")

    agent, client = build(b, log)
    with pytest.raises(Boom, match="refused"):
        await run_agent(agent, stream=stream)

    assert log == ["A before", "B before"]
    assert len(client.requests) == 1


async def test_another_exception_after_call_next_propagates_to_the_caller(
    stream: bool,
) -> None:
    log: list[str] = []

    async def b(context: FunctionInvocationContext, call_next: CallNext) -> None:
        log.append("B before")
        await call_next()
        raise Boom("rejected the result")

    agent, client = build(b, log)
    with pytest.raises(Boom, match="rejected the result"):
        await run_agent(agent, stream=stream)

    assert log == ["A before", "B before", "C before", "tool ran", "C after"]
    assert len(client.requests) == 1


async def test_a_tool_exception_still_goes_back_to_the_model_through_the_middleware(
    stream: bool,
) -> None:
    caught: list[BaseException] = []

    @tool
    def flaky() -> str:
        """Always fails."""
        raise TimeoutError("service slow")

    async def watch(context: FunctionInvocationContext, call_next: CallNext) -> None:
        try:
            await call_next()
        except TimeoutError as exc:
            caught.append(exc)
            raise

    client = ScriptedChatClient([one_call("flaky"), text("sorry")])
    agent = Agent(client, tools=[flaky], middleware=[watch])
    response, _ = await run_agent(agent, stream=stream)

    assert [type(e) for e in caught] == [TimeoutError]  # the tool's own exception
    assert response.text == "sorry"
    assert len(client.requests) == 2
    [result] = [
        c
        for m in client.requests[1].messages
        for c in m.contents
        if isinstance(c, FunctionResultContent)
    ]
    assert result.error == "timeout"


async def test_a_middleware_exception_in_a_parallel_batch_propagates_unwrapped(
    stream: bool,
) -> None:
    @tool
    def probe(x: int) -> int:
        """Multiply by ten."""
        return 10 * x

    async def refuse_one(context: FunctionInvocationContext, call_next: CallNext) -> None:
        if context.arguments["x"] == 1:
            raise Boom("not one")
        await call_next()

    both = ChatResponse(
        messages=(
            Message(
                "assistant",
                (
                    FunctionCallContent("c1", "probe", '{"x": 1}'),
                    FunctionCallContent("c2", "probe", '{"x": 2}'),
                ),
            ),
        ),
        finish_reason="tool_calls",
    )
    client = ScriptedChatClient([both, text("never")])
    agent = Agent(client, tools=[probe], middleware=[refuse_one])
    with pytest.raises(Boom, match="not one"):
        await run_agent(agent, stream=stream)
    assert len(client.requests) == 1
