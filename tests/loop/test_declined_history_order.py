"""Declined results (the user moved on without answering) are stored right after their
calls, before the new message: the stored transcript stays in order."""

import pytest

from agentcore import Agent, InMemoryHistoryStore, tool
from agentcore.testing import ScriptedChatClient
from tests.loop.harness import one_call, run_agent, text

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("stream", [False, True])
async def test_declined_results_are_stored_right_after_their_calls(stream: bool) -> None:
    @tool(approval_mode="always_require")
    def delete(path: str) -> str:
        """Delete."""
        return path

    store = InMemoryHistoryStore()
    client = ScriptedChatClient([one_call("delete", '{"path": "x"}'), text("ok")])
    agent = Agent(client, tools=[delete], history=store)
    session = agent.create_session()

    await run_agent(agent, "delete x", stream=stream, session=session)
    await run_agent(agent, "never mind", stream=stream, session=session)

    stored = await store.load(session.session_id)
    assert [m.role for m in stored] == ["user", "assistant", "tool", "user", "assistant"]
