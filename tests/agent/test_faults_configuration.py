"""An agent's tools and middleware: changes take effect, mistakes fail when it is built.

Assigning ``agent.tools`` or ``agent.middleware`` after construction changes later
runs (never silently ignored), except a change of tool providers inside ``async with
agent:``, which is refused (the new ones would never be entered). Middleware is
checked when the agent is built: a single middleware not in a list, one without a
``call_next`` parameter, or a decorator that contradicts the context type hint gets a
clear ``TypeError`` there.
"""

from __future__ import annotations

from typing import Any

import pytest

from agentcore import (
    Agent,
    AgentContext,
    ChatContext,
    ToolLoop,
    chat_middleware,
    function_middleware,
    tool,
)
from agentcore.middleware import CallNext
from agentcore.testing import ScriptedChatClient

from ..loop.harness import one_call, results, run_agent, text

pytestmark = pytest.mark.anyio


@tool
def ping() -> str:
    """Answer pong."""
    return "pong"


def plain_pong() -> str:
    """A plain function, made a tool by the setter."""
    return "plain pong"


@pytest.mark.parametrize("stream", [False, True])
async def test_assigned_tools_are_used_by_later_runs(stream: bool) -> None:
    client = ScriptedChatClient(
        [one_call("ping", call_id="a"), text("one"), one_call("plain_pong", call_id="b"), "two"]
    )
    agent = Agent(client, tools=[ping])
    await run_agent(agent, "first", stream=stream)

    agent.tools = [plain_pong]
    response, _ = await run_agent(agent, "second", stream=stream)

    assert [r.result for r in results(response.messages)] == ["plain pong"]
    declared = [t.name for t in client.requests[2].options["tools"]]
    assert declared == ["plain_pong"]


def test_assigned_tools_are_checked() -> None:
    agent = Agent(ScriptedChatClient([]), tools=[ping])

    with pytest.raises(ValueError, match="two tools named 'ping'"):
        agent.tools = (ping, ping)
    assert [t.name for t in agent.tools] == ["ping"]


@pytest.mark.parametrize("stream", [False, True])
async def test_assigned_middleware_is_used_by_later_runs(stream: bool) -> None:
    seen: list[str] = []

    async def record(context: AgentContext, call_next: CallNext) -> None:
        seen.append("agent")
        await call_next()

    agent = Agent(ScriptedChatClient(["one", "two"]))
    await run_agent(agent, "first", stream=stream)
    assert seen == []

    agent.middleware = [record]
    await run_agent(agent, "second", stream=stream)

    assert seen == ["agent"]
    assert agent.middleware == (record,)


async def _agent_mw(context: AgentContext, call_next: CallNext) -> None:
    await call_next()


async def _no_call_next(context: AgentContext) -> None:
    return None


class _ProcessWithoutCallNext:
    async def process(self, context: ChatContext) -> None:
        return None


@chat_middleware
async def _says_chat_but_takes_agent(context: AgentContext, call_next: CallNext) -> None:
    await call_next()


@function_middleware
class _SaysFunctionButTakesChat:
    async def process(self, context: ChatContext, call_next: CallNext) -> None:
        await call_next()


@pytest.mark.parametrize(
    ("middleware", "said"),
    [
        (_agent_mw, r"takes a list of middleware.*middleware=\[_agent_mw\]"),
        ([_no_call_next], r"_no_call_next.* needs a call_next parameter"),
        (
            [_ProcessWithoutCallNext()],
            r"needs a call_next parameter: its handler _ProcessWithoutCallNext\.process",
        ),
        ([_says_chat_but_takes_agent], r"marked as chat middleware, but .* AgentContext"),
        ([_SaysFunctionButTakesChat()], r"marked as function middleware, but .* ChatContext"),
    ],
    ids=["single", "no-call-next", "process-no-call-next", "decorator-fn", "decorator-cls"],
)
def test_malformed_middleware_fails_when_the_agent_is_built(middleware: Any, said: str) -> None:
    with pytest.raises(TypeError, match=said):
        Agent(ScriptedChatClient([]), middleware=middleware)


def test_assigning_malformed_middleware_fails_and_keeps_the_old() -> None:
    agent = Agent(ScriptedChatClient([]), middleware=[_agent_mw])

    with pytest.raises(TypeError, match="needs a call_next parameter"):
        agent.middleware = [_no_call_next]  # type: ignore[list-item]  # the mistake under test
    assert agent.middleware == (_agent_mw,)


@pytest.mark.parametrize("stream", [False, True])
async def test_a_single_run_middleware_not_in_a_list_is_refused(stream: bool) -> None:
    client = ScriptedChatClient(["unused"])

    with pytest.raises(TypeError, match="takes a list of middleware"):
        Agent(client).run("hi", stream=stream, middleware=_agent_mw)  # type: ignore[call-overload]  # the mistake under test
    assert client.requests == []


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(
    ("middleware", "said"),
    [
        (_no_call_next, r"_no_call_next.* needs a call_next parameter"),
        (_says_chat_but_takes_agent, r"marked as chat middleware, but .* AgentContext"),
    ],
    ids=["no-call-next", "decorator-fn"],
)
async def test_malformed_run_middleware_is_refused_when_run_is_called(
    stream: bool, middleware: Any, said: str
) -> None:
    client = ScriptedChatClient(["unused"])

    with pytest.raises(TypeError, match=said):
        Agent(client).run("hi", stream=stream, middleware=[middleware])
    assert client.requests == []


def test_a_tool_loop_checks_its_middleware_too() -> None:
    with pytest.raises(TypeError, match="needs a call_next parameter"):
        ToolLoop(ScriptedChatClient([]), middleware=[_ProcessWithoutCallNext()])  # type: ignore[list-item]  # the mistake under test


class _Provider:
    """A tool provider with a connection: ``async with agent:`` enters it."""

    def __init__(self, *tools: Any) -> None:
        self.tools = tools
        self.entered = 0

    async def get_tools(self, context: AgentContext) -> tuple[Any, ...]:
        return self.tools

    async def __aenter__(self) -> _Provider:
        self.entered += 1
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self.entered -= 1


@pytest.mark.parametrize("stream", [False, True])
async def test_changing_the_tool_providers_inside_async_with_agent_is_refused(
    stream: bool,
) -> None:
    first, second = _Provider(ping), _Provider(plain_pong)
    client = ScriptedChatClient([one_call("ping", call_id="a"), text("one")])
    agent = Agent(client, tools=[first])

    async with agent:
        with pytest.raises(RuntimeError, match=r"cannot change inside `async with agent:`"):
            agent.tools = [second]
        assert agent.tool_providers == (first,)
        # Own tools may change beside the same providers: later runs see them.
        agent.tools = [first, plain_pong]
        response, _ = await run_agent(agent, "go", stream=stream)

    assert [r.result for r in results(response.messages)] == ["pong"]
    assert [t.name for t in client.requests[0].options["tools"]] == ["plain_pong", "ping"]
    assert (first.entered, second.entered) == (0, 0)
    agent.tools = [second]  # outside the block, any change goes
    assert agent.tool_providers == (second,)
