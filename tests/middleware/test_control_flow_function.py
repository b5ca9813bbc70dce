"""Control flow in function middleware: the rows of the return / raise / call_next tables.

The stack is always ``[A, B, C]``: A and C record, B exits the way the row says.
The actual operation is the tool call. A termination also ends the tool loop: no
further model call. For exceptions the tool loop's rule applies: a ``RunAbortedError``
propagates to the caller, any other exception becomes an error result the model sees.
"""

from __future__ import annotations

import pytest

from agentcore import (
    Agent,
    ChatResponse,
    FunctionCallContent,
    FunctionInvocationContext,
    Message,
    MiddlewareTermination,
    tool,
)
from agentcore.errors import RunAbortedError
from agentcore.middleware import CallNext, Middleware
from agentcore.testing import ScriptedChatClient

from .harness import one_call, recorder, results, run_agent, text

pytestmark = [pytest.mark.anyio, pytest.mark.parametrize("stream", [False, True])]


def build(b: Middleware, log: list[str]) -> tuple[Agent, ScriptedChatClient]:
    @tool
    def probe(x: int) -> int:
        """Multiply by ten."""
        log.append("tool ran")
        return 10 * x

    client = ScriptedChatClient([one_call("probe", '{"x": 2}'), text("final")])
    a, c = recorder("function", "A", log), recorder("function", "C", log)
    return Agent(client, tools=[probe], middleware=[a, b, c]), client


def last_request_results(client: ScriptedChatClient) -> list[object]:
    return results(client.requests[-1].messages)


async def test_return_after_call_next_runs_the_tool_and_the_loop_goes_on(stream: bool) -> None:
    log: list[str] = []

    async def b(context: FunctionInvocationContext, call_next: CallNext) -> None:
        log.append("B before")
        await call_next()
        log.append("B after")

    agent, client = build(b, log)
    response, _ = await run_agent(agent, stream=stream)

    assert log == [
        *["A before", "B before", "C before", "tool ran"],
        *["C after", "B after", "A after"],
    ]
    assert len(client.requests) == 2
    assert last_request_results(client) == [20]
    assert response.text == "final"


async def test_return_without_call_next_skips_the_tool_and_the_model_sees_the_result(
    stream: bool,
) -> None:
    log: list[str] = []

    async def b(context: FunctionInvocationContext, call_next: CallNext) -> None:
        log.append("B before")
        context.result = "from B"

    agent, client = build(b, log)
    response, _ = await run_agent(agent, stream=stream)

    assert log == ["A before", "B before", "A after"]
    assert len(client.requests) == 2
    assert last_request_results(client) == ["from B"]
    assert response.text == "final"


async def test_termination_without_call_next_skips_the_tool_upstream_and_the_next_model_call(
    stream: bool,
) -> None:
    log: list[str] = []

    async def b(context: FunctionInvocationContext, call_next: CallNext) -> None:
        log.append("B before")
        context.result = "Function blocked by policy"
        raise MiddlewareTermination("blocked")

    agent, client = build(b, log)
    response, _ = await run_agent(agent, stream=stream)

    assert log == ["A before", "B before"]
    assert len(client.requests) == 1
    assert results(response.messages) == ["Function blocked by policy"]
    assert response.messages[-1].role == "tool"


async def test_termination_after_call_next_keeps_the_tool_result_and_ends_the_loop(
    stream: bool,
) -> None:
    log: list[str] = []

    async def b(context: FunctionInvocationContext, call_next: CallNext) -> None:
        log.append("B before")
        await call_next()
        raise MiddlewareTermination("enough")

    agent, client = build(b, log)
    response, _ = await run_agent(agent, stream=stream)

    assert log == ["A before", "B before", "C before", "tool ran", "C after"]
    assert len(client.requests) == 1
    assert results(response.messages) == [20]


async def test_termination_result_without_call_next_becomes_the_tool_result(
    stream: bool,
) -> None:
    log: list[str] = []

    async def b(context: FunctionInvocationContext, call_next: CallNext) -> None:
        log.append("B before")
        raise MiddlewareTermination(result={"cached": True})

    agent, client = build(b, log)
    response, updates = await run_agent(agent, stream=stream)

    assert log == ["A before", "B before"]
    assert len(client.requests) == 1
    assert results(response.messages) == [{"cached": True}]
    if stream:
        assert results([Message("tool", u.contents) for u in updates]) == [{"cached": True}]


async def test_termination_result_after_call_next_replaces_the_tool_result(
    stream: bool,
) -> None:
    log: list[str] = []

    async def b(context: FunctionInvocationContext, call_next: CallNext) -> None:
        log.append("B before")
        await call_next()
        raise MiddlewareTermination(result=f"{context.result} (checked)")

    agent, client = build(b, log)
    response, _ = await run_agent(agent, stream=stream)

    assert log == ["A before", "B before", "C before", "tool ran", "C after"]
    assert len(client.requests) == 1
    assert results(response.messages) == ["20 (checked)"]


async def test_termination_ends_only_the_function_chain_outer_scopes_finish(
    stream: bool,
) -> None:
    log: list[str] = []

    async def b(context: FunctionInvocationContext, call_next: CallNext) -> None:
        raise MiddlewareTermination(result="stop")

    client = ScriptedChatClient([one_call("probe", '{"x": 1}')])

    @tool
    def probe(x: int) -> int:
        """Multiply by ten."""
        return 10 * x

    middleware = [recorder("agent", "agent", log), recorder("chat", "chat", log), b]
    agent = Agent(client, tools=[probe], middleware=middleware)
    response, _ = await run_agent(agent, stream=stream)

    assert [e for e in log if e.startswith("chat")] == ["chat before", "chat after"]
    assert [e for e in log if e.startswith("agent")] == ["agent before", "agent after"]
    assert results(response.messages) == ["stop"]


async def test_termination_lets_the_other_calls_of_the_batch_finish(stream: bool) -> None:
    ran: list[int] = []

    @tool
    def probe(x: int) -> int:
        """Multiply by ten."""
        ran.append(x)
        return 10 * x

    async def stop_on_one(context: FunctionInvocationContext, call_next: CallNext) -> None:
        await call_next()
        if context.arguments["x"] == 1:
            raise MiddlewareTermination("first call is enough")

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
    client = ScriptedChatClient([both])
    agent = Agent(client, tools=[probe], middleware=[stop_on_one])
    response, _ = await run_agent(agent, stream=stream)

    assert sorted(ran) == [1, 2]
    assert results(response.messages) == [10, 20]
    assert len(client.requests) == 1


class AuditUnavailable(RunAbortedError):
    """The audit log cannot be written: the run must not go on."""


async def test_a_run_aborting_exception_without_call_next_propagates_to_the_caller(
    stream: bool,
) -> None:
    log: list[str] = []

    async def b(context: FunctionInvocationContext, call_next: CallNext) -> None:
        log.append("B before")
        raise AuditUnavailable("audit log offline")

    agent, client = build(b, log)
    with pytest.raises(AuditUnavailable, match="audit log offline"):
        await run_agent(agent, stream=stream)

    assert log == ["A before", "B before"]
    assert len(client.requests) == 1


async def test_a_run_aborting_exception_after_call_next_propagates_to_the_caller(
    stream: bool,
) -> None:
    log: list[str] = []

    async def b(context: FunctionInvocationContext, call_next: CallNext) -> None:
        log.append("B before")
        await call_next()
        raise AuditUnavailable("could not record the result")

    agent, client = build(b, log)
    with pytest.raises(AuditUnavailable, match="could not record the result"):
        await run_agent(agent, stream=stream)

    assert log == ["A before", "B before", "C before", "tool ran", "C after"]
    assert len(client.requests) == 1
