"""``agent.run_sync``: a run for scripts and notebooks, on a fresh asyncio event loop."""

from __future__ import annotations

import attrs
import pytest

from agentcore import Agent, ChatOptions, InMemoryHistoryStore, ToolContext, tool
from agentcore.testing import ScriptedChatClient
from tests.agent._runs import call_turn


@attrs.frozen
class City:
    name: str


@tool
def shout(word: str, context: ToolContext[str]) -> str:
    """Shout a word, signed by the run's deps."""
    return f"{word.upper()}! ({context.deps})"


def test_run_sync_runs_tools_and_returns_the_response() -> None:
    client = ScriptedChatClient([call_turn("shout", '{"word": "hi"}'), "shouted"])
    agent = Agent(client, tools=[shout], deps_type=str)
    response = agent.run_sync("shout hi", deps="ada")
    assert response.text == "shouted"
    results = [c for m in response.messages for c in m.contents if c.type == "function_result"]
    assert [r.result for r in results] == ["HI! (ada)"]


def test_consecutive_run_sync_calls_share_a_session() -> None:
    client = ScriptedChatClient(["one", "two"])
    agent = Agent(client, history=InMemoryHistoryStore())
    session = agent.create_session()
    agent.run_sync("first", session=session)
    assert agent.run_sync("second", session=session).text == "two"
    texts = [m.text for m in client.requests[1].messages]
    assert texts == ["first", "one", "second"]


def test_run_sync_gives_structured_output() -> None:
    agent = Agent(ScriptedChatClient(['{"name": "Paris"}']))
    options: ChatOptions[City] = {"response_format": City}
    assert agent.run_sync("where?", options=options).value == City("Paris")


def test_run_sync_refuses_to_stream() -> None:
    client = ScriptedChatClient(["x"])
    agent = Agent(client)
    with pytest.raises(TypeError, match=r"does not stream.*agent\.run\(\.\.\., stream=True\)"):
        agent.run_sync("hi", stream=True)  # type: ignore[call-overload]
    assert client.requests == []


@pytest.mark.anyio
async def test_run_sync_inside_a_running_event_loop_says_to_await_run() -> None:
    # Under asyncio and trio alike (a notebook cell runs inside asyncio's loop).
    agent = Agent(ScriptedChatClient(["x"]))
    with pytest.raises(RuntimeError, match=r"event loop is running.*await agent\.run\(\.\.\.\)"):
        agent.run_sync("hi")
