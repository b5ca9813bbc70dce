"""Kernel hooks for middleware: an approval policy for any tool, refusing one call
as an error the model sees, and errors that must end the run from inside a tool."""

from __future__ import annotations

from typing import Any

import pytest

from agentcore import (
    Agent,
    FunctionCallContent,
    FunctionInvocationConfiguration,
    FunctionInvocationContext,
    InMemoryHistoryStore,
    Message,
    tool,
)
from agentcore.errors import RunAbortedError, ToolCallRefused
from agentcore.middleware import CallNext
from agentcore.testing import ScriptedChatClient

from .harness import assert_history_valid, one_call, results, run_agent, text

pytestmark = pytest.mark.anyio
STREAM = pytest.mark.parametrize("stream", [False, True], ids=["non-streaming", "streaming"])


@STREAM
async def test_approval_policy_pauses_calls_to_tools_that_do_not_require_approval(
    stream: bool,
) -> None:
    ran: list[str] = []
    seen_approved: list[bool] = []

    @tool
    def send(to: str) -> str:
        """Send a message."""
        ran.append(to)
        return f"sent to {to}"

    async def record(context: FunctionInvocationContext, call_next: CallNext) -> None:
        seen_approved.append(context.approved)
        await call_next()

    def ask_for_external(call: FunctionCallContent, _tool: Any) -> bool:
        return "@external" in str(call.arguments)

    client = ScriptedChatClient([one_call("send", '{"to": "bob@external"}'), text("sent")])
    agent = Agent(
        client,
        tools=[send],
        middleware=[record],
        history=InMemoryHistoryStore(),
        tool_loop=FunctionInvocationConfiguration(approval_policy=ask_for_external),
    )
    session = agent.create_session()
    paused, _ = await run_agent(agent, "send it", stream=stream, session=session)

    assert ran == []
    [request] = paused.approval_requests
    assert request.function_call.name == "send"
    done, _ = await run_agent(
        agent, Message("user", [request.create_response(True)]), stream=stream, session=session
    )
    assert ran == ["bob@external"]
    assert seen_approved == [True]
    assert done.text == "sent"
    assert_history_valid(client.requests)


@STREAM
async def test_approval_policy_lets_other_calls_run_without_asking(stream: bool) -> None:
    @tool
    def send(to: str) -> str:
        """Send a message."""
        return f"sent to {to}"

    client = ScriptedChatClient([one_call("send", '{"to": "alice@internal"}'), text("sent")])
    agent = Agent(
        client,
        tools=[send],
        tool_loop=FunctionInvocationConfiguration(
            approval_policy=lambda call, _tool: "@external" in str(call.arguments)
        ),
    )
    response, _ = await run_agent(agent, "send it", stream=stream)
    assert response.approval_requests == ()
    assert [r.result for r in results(response.messages)] == ["sent to alice@internal"]


def test_approval_policy_must_be_callable() -> None:
    with pytest.raises(TypeError, match="approval_policy must be None or a callable"):
        FunctionInvocationConfiguration(approval_policy="yes")  # type: ignore[arg-type]  # the mistake is the point


@STREAM
async def test_refused_call_reaches_the_model_as_an_error_result(stream: bool) -> None:
    ran: list[str] = []

    @tool
    def wipe(disk: str) -> str:
        """Wipe a disk."""
        ran.append(disk)
        return "wiped"

    async def refuse(context: FunctionInvocationContext, call_next: CallNext) -> None:
        raise ToolCallRefused("wiping disks is not allowed here")

    client = ScriptedChatClient([one_call("wipe", '{"disk": "sda"}'), text("I cannot do that.")])
    agent = Agent(client, tools=[wipe], middleware=[refuse])
    response, _ = await run_agent(agent, "wipe sda", stream=stream)

    assert ran == []
    [result] = results(response.messages)
    assert result.error == "refused"
    assert "wiping disks is not allowed here" in str(result.result)
    assert response.text == "I cannot do that."
    assert_history_valid(client.requests)


@STREAM
async def test_refusals_count_toward_the_error_limit(stream: bool) -> None:
    @tool
    def wipe(disk: str) -> str:
        """Wipe a disk."""
        return "wiped"

    async def refuse(context: FunctionInvocationContext, call_next: CallNext) -> None:
        raise ToolCallRefused("no")

    client = ScriptedChatClient(
        [one_call("wipe", '{"disk": "a"}', call_id=f"c{i}") for i in range(2)] + [text("giving up")]
    )
    agent = Agent(
        client,
        tools=[wipe],
        middleware=[refuse],
        tool_loop=FunctionInvocationConfiguration(max_consecutive_errors_per_request=2),
    )
    response, _ = await run_agent(agent, "wipe", stream=stream)
    assert response.text == "giving up"
    assert client.requests[-1].options.get("tool_choice") == "none"


class AuditDown(RunAbortedError):
    """A stand-in for a failure that must stop the run."""


@STREAM
async def test_run_aborted_errors_from_function_middleware_end_the_run(stream: bool) -> None:
    @tool
    def lookup(city: str) -> str:
        """Look up a city."""
        return city

    async def broken_audit(context: FunctionInvocationContext, call_next: CallNext) -> None:
        raise AuditDown("the audit log cannot be written")

    client = ScriptedChatClient([one_call("lookup", '{"city": "Oslo"}'), text("never sent")])
    agent = Agent(client, tools=[lookup], middleware=[broken_audit])
    with pytest.raises(AuditDown, match="cannot be written"):
        await run_agent(agent, "go", stream=stream)
    assert len(client.requests) == 1
