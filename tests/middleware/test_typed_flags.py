"""The kernel's control flow rides on typed context fields (``terminated``,
``approved``), never on keys of ``metadata``, which belongs to the user."""

from __future__ import annotations

import pytest

from agentcore import (
    Agent,
    FunctionInvocationContext,
    InMemoryHistoryStore,
    Message,
    MiddlewareTermination,
    tool,
)
from agentcore.middleware import CallNext
from agentcore.testing import ScriptedChatClient

from ..loop.harness import one_call
from .harness import run_agent, text

pytestmark = [pytest.mark.anyio, pytest.mark.parametrize("stream", [False, True])]


async def test_a_termination_sets_the_flag_and_leaves_metadata_alone(stream: bool) -> None:
    seen: list[FunctionInvocationContext] = []

    @tool
    def ping() -> str:
        """Answer pong."""
        return "pong"

    async def stop(context: FunctionInvocationContext, call_next: CallNext) -> None:
        seen.append(context)
        raise MiddlewareTermination("enough", result="stopped")

    client = ScriptedChatClient([one_call("ping", "{}"), text("never")])
    agent = Agent(client, tools=[ping], middleware=[stop])

    await run_agent(agent, "go", stream=stream)

    (context,) = seen
    assert context.terminated is True
    assert context.metadata == {}
    assert len(client.requests) == 1  # the termination ended the loop


async def test_an_approved_call_is_flagged_on_its_context_not_in_metadata(stream: bool) -> None:
    seen: list[FunctionInvocationContext] = []

    @tool(approval_mode="always_require")
    def deploy() -> str:
        """Deploy (a person must approve)."""
        return "deployed"

    async def record(context: FunctionInvocationContext, call_next: CallNext) -> None:
        seen.append(context)
        await call_next()

    client = ScriptedChatClient([one_call("deploy", "{}"), text("done")])
    agent = Agent(client, tools=[deploy], middleware=[record], history=InMemoryHistoryStore())
    session = agent.create_session()

    paused, _ = await run_agent(agent, "deploy", stream=stream, session=session)
    (request,) = paused.approval_requests
    approval = Message("user", (request.create_response(True),))
    await run_agent(agent, approval, stream=stream, session=session)

    (context,) = seen
    assert context.approved is True
    assert context.terminated is False
    assert context.metadata == {}
