"""Order: first in the list is outermost; agent-level outside run-level; one list, three scopes."""

from __future__ import annotations

import pytest

from agentcore import Agent, tool
from agentcore.testing import ScriptedChatClient

from .harness import Scope, one_call, recorder, run_agent, text

pytestmark = pytest.mark.anyio


@tool
def double(n: int) -> int:
    """Double a number."""
    return 2 * n


def _nested(names: list[str]) -> list[str]:
    return [f"{n} before" for n in names] + [f"{n} after" for n in reversed(names)]


def _script() -> ScriptedChatClient:
    return ScriptedChatClient([one_call("double", '{"n": 4}'), text("8")])


async def test_one_mixed_list_nests_each_scope_first_outermost() -> None:
    log: list[str] = []
    middleware = [
        recorder(scope, f"{scope[0]}{i}", log)
        for i in (1, 2, 3)
        for scope in ("agent", "chat", "function")
    ]
    agent = Agent(_script(), tools=[double], middleware=middleware)

    response, _ = await run_agent(agent, "double 4", stream=False)

    assert response.text == "8"
    chat = _nested(["c1", "c2", "c3"])
    assert log == [
        *["a1 before", "a2 before", "a3 before"],
        *chat,  # the model call that asks for the tool
        *_nested(["f1", "f2", "f3"]),  # the tool call
        *chat,  # the model call after the tool result
        *["a3 after", "a2 after", "a1 after"],
    ]


async def test_in_a_streaming_run_each_scope_nests_the_same_way() -> None:
    log: list[str] = []
    middleware = [
        recorder(scope, f"{scope[0]}{i}", log)
        for i in (1, 2, 3)
        for scope in ("agent", "chat", "function")
    ]
    agent = Agent(_script(), tools=[double], middleware=middleware)

    response, _ = await run_agent(agent, "double 4", stream=True)

    assert response.text == "8"
    assert [e for e in log if e.startswith("a")] == _nested(["a1", "a2", "a3"])
    assert [e for e in log if e.startswith("c")] == 2 * _nested(["c1", "c2", "c3"])
    assert [e for e in log if e.startswith("f")] == _nested(["f1", "f2", "f3"])


async def test_in_a_streaming_run_agent_post_processing_runs_when_the_stream_is_set_up() -> None:
    log: list[str] = []
    middleware = [recorder("agent", "a", log), recorder("chat", "c", log)]
    agent = Agent(ScriptedChatClient([text("hello")]), middleware=middleware)

    stream = agent.run("hi", stream=True)
    updates = [update.text async for update in stream]

    # call_next() returned the stream, not the finished run: the agent layer is done
    # before the first model call. Transform or hook the stream to act at its end.
    assert "".join(updates) == "hello"
    assert log == ["a before", "a after", "c before", "c after"]


@pytest.mark.parametrize("stream", [False, True])
async def test_agent_level_middleware_runs_outside_run_level_middleware(stream: bool) -> None:
    log: list[str] = []
    scopes: tuple[Scope, ...] = ("agent", "chat", "function")
    agent_level = [recorder(scope, f"agent-level {scope}", log) for scope in scopes]
    run_level = [recorder(scope, f"run-level {scope}", log) for scope in scopes]
    agent = Agent(_script(), tools=[double], middleware=agent_level)

    response, _ = await run_agent(agent, "double 4", stream=stream, middleware=run_level)

    assert response.text == "8"
    for scope in scopes:
        in_scope = [e for e in log if e.endswith((f"{scope} before", f"{scope} after"))]
        expected = _nested([f"agent-level {scope}", f"run-level {scope}"])
        calls = 2 if scope == "chat" else 1
        assert in_scope == calls * expected


@pytest.mark.parametrize("stream", [False, True])
async def test_run_level_middleware_applies_to_that_run_only(stream: bool) -> None:
    log: list[str] = []
    client = ScriptedChatClient([text("one"), text("two")])
    agent = Agent(client, middleware=[recorder("chat", "agent-level", log)])

    await run_agent(agent, stream=stream, middleware=[recorder("chat", "run-level", log)])
    await run_agent(agent, stream=stream)

    assert log == [
        *_nested(["agent-level", "run-level"]),
        *_nested(["agent-level"]),
    ]
