"""A batch resumed after a pause ends the way a fresh batch does: the same epilogue
counts its errors, records its results and stops where a fresh batch would."""

from __future__ import annotations

import pytest

from agentcore import (
    Agent,
    FunctionInvocationConfiguration,
    FunctionResultContent,
    InMemoryHistoryStore,
    Message,
    tool,
)
from agentcore.testing import ScriptedChatClient

from .harness import assert_history_valid, one_call, results, run_agent, text

pytestmark = pytest.mark.anyio


@tool(approval_mode="always_require")
def deploy() -> str:
    """Deploy (a person must approve); it always fails."""
    raise RuntimeError("the cluster is down")


def _agent(client: ScriptedChatClient, errors: int) -> Agent:
    config = FunctionInvocationConfiguration(max_consecutive_errors_per_request=errors)
    return Agent(client, tools=[deploy], history=InMemoryHistoryStore(), tool_loop=config)


@pytest.mark.parametrize("stream", [False, True])
async def test_an_approved_call_that_fails_counts_toward_the_error_limit(stream: bool) -> None:
    client = ScriptedChatClient(
        [one_call("deploy", "{}", call_id="c1"), one_call("deploy", "{}", call_id="c2")]
    )
    agent = _agent(client, errors=1)
    session = agent.create_session()

    paused, _ = await run_agent(agent, "deploy it", stream=stream, session=session)
    (request,) = paused.approval_requests
    approval = Message("user", (request.create_response(True),))
    response, _ = await run_agent(agent, approval, stream=stream, session=session)

    # One error batch reaches the limit of 1: the next call is the final one, without
    # tools, and the call it makes anyway is not run nor asked about.
    assert [r.options.get("tool_choice") for r in client.requests] == [None, "none"]
    assert results(response.messages) == [
        FunctionResultContent("c1", result="Error: deploy failed.", error="exception")
    ]
    assert not response.approval_requests
    assert_history_valid(client.requests)


@pytest.mark.parametrize("stream", [False, True])
async def test_an_approved_call_that_succeeds_leaves_the_error_count_at_zero(
    stream: bool,
) -> None:
    @tool(approval_mode="always_require")
    def publish() -> str:
        """Publish (a person must approve)."""
        return "published"

    client = ScriptedChatClient([one_call("publish", "{}", call_id="c1"), text("done")])
    config = FunctionInvocationConfiguration(max_consecutive_errors_per_request=1)
    agent = Agent(client, tools=[publish], history=InMemoryHistoryStore(), tool_loop=config)
    session = agent.create_session()

    paused, _ = await run_agent(agent, "publish it", stream=stream, session=session)
    (request,) = paused.approval_requests
    approval = Message("user", (request.create_response(True),))
    response, _ = await run_agent(agent, approval, stream=stream, session=session)

    assert [r.options.get("tool_choice") for r in client.requests] == [None, None]
    assert response.text == "done"
    assert_history_valid(client.requests)
