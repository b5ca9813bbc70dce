"""Per-run changes: agent middleware reconfigures one run; chat middleware rewrites messages."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import anyio
import pytest

from agentcore import (
    Agent,
    AgentContext,
    AgentResponse,
    ChatContext,
    ChatResponse,
    FunctionTool,
    Message,
    tool,
)
from agentcore.middleware import CallNext, Middleware
from agentcore.testing import FunctionChatClient, ScriptedChatClient

from .harness import one_call, results, run_agent, text

pytestmark = pytest.mark.anyio


@tool
def alpha() -> str:
    """Tool of run one."""
    return "alpha result"


@tool
def beta() -> str:
    """Tool of run two."""
    return "beta result"


@tool
def admin() -> str:
    """Only for administrators."""
    return "secret"


class Rendezvous:
    """Holds every caller until ``parties`` callers have arrived."""

    def __init__(self, parties: int) -> None:
        self.parties = parties
        self.arrived = 0
        self.all_here = anyio.Event()

    async def wait(self) -> None:
        self.arrived += 1
        if self.arrived == self.parties:
            self.all_here.set()
        await self.all_here.wait()


def reconfigure(tag: str, extra: FunctionTool[..., Any], temperature: float) -> Middleware:
    async def configure(context: AgentContext, call_next: CallNext) -> None:
        context.instructions = f"{context.instructions} (run {tag})"
        context.tools.append(extra)
        context.options["temperature"] = temperature
        context.return_directly.add(extra.name)
        await call_next()

    return configure


def call_first_tool(rendezvous: Rendezvous) -> Any:
    async def respond(
        messages: Sequence[Message], options: Mapping[str, Any]
    ) -> ChatResponse[None]:
        await rendezvous.wait()  # both runs are inside the model call at once
        name = options["tools"][-1].name
        return one_call(name, "{}", f"call_{name}")

    return respond


@pytest.mark.parametrize("stream", [False, True])
async def test_two_concurrent_runs_each_see_only_their_own_changes(stream: bool) -> None:
    client = FunctionChatClient(call_first_tool(Rendezvous(2)))
    agent = Agent(client, "Be brief.", tools=[admin], default_options={"temperature": 0.0})
    answers: dict[str, AgentResponse[Any]] = {}

    async def run(tag: str, extra: FunctionTool[..., Any], temperature: float) -> None:
        middleware = [reconfigure(tag, extra, temperature)]
        answers[tag], _ = await run_agent(agent, tag, stream=stream, middleware=middleware)

    async with anyio.create_task_group() as group:
        group.start_soon(run, "one", alpha, 0.1)
        group.start_soon(run, "two", beta, 0.2)

    by_run = {r.messages[-1].text: r.options for r in client.requests}
    assert by_run["one"]["instructions"] == "Be brief. (run one)"
    assert by_run["two"]["instructions"] == "Be brief. (run two)"
    assert [t.name for t in by_run["one"]["tools"]] == ["admin", "alpha"]
    assert [t.name for t in by_run["two"]["tools"]] == ["admin", "beta"]
    assert (by_run["one"]["temperature"], by_run["two"]["temperature"]) == (0.1, 0.2)
    # Each run's own tool was return-directly for it alone: one model call per run.
    assert len(client.requests) == 2
    assert answers["one"].text == "alpha result"
    assert answers["two"].text == "beta result"
    assert agent.instructions == "Be brief."
    assert agent.tools == (admin,)
    assert agent.default_options == {"temperature": 0.0}


@pytest.mark.parametrize("stream", [False, True])
async def test_a_run_after_a_reconfigured_run_sees_the_agent_configuration(stream: bool) -> None:
    client = ScriptedChatClient([one_call("alpha"), one_call("alpha"), text("done")])
    agent = Agent(client, "Be brief.", default_options={"temperature": 0.0})

    first, _ = await run_agent(
        agent, "one", stream=stream, middleware=[reconfigure("one", alpha, 0.5)]
    )
    second, _ = await run_agent(agent, "two", stream=stream)

    assert first.text == "alpha result"
    assert client.requests[1].options == {"instructions": "Be brief.", "temperature": 0.0}
    # Without the tool this run's call is an error result, and the loop goes on.
    assert second.text == "done"


@pytest.mark.parametrize("stream", [False, True])
async def test_agent_middleware_can_remove_a_tool_for_one_run(stream: bool) -> None:
    async def no_admin(context: AgentContext, call_next: CallNext) -> None:
        context.tools = [t for t in context.tools if getattr(t, "name", None) != "admin"]
        await call_next()

    client = ScriptedChatClient([text("no"), text("yes")])
    agent = Agent(client, tools=[admin, alpha])

    await run_agent(agent, "guest", stream=stream, middleware=[no_admin])
    await run_agent(agent, "root", stream=stream)

    assert [t.name for t in client.requests[0].options["tools"]] == ["alpha"]
    assert [t.name for t in client.requests[1].options["tools"]] == ["admin", "alpha"]


def _conversation() -> list[Message]:
    return [Message("user", "one"), Message("assistant", "two"), Message("user", "look it up")]


@pytest.mark.parametrize("stream", [False, True])
async def test_changing_context_messages_rewrites_one_model_call_only(stream: bool) -> None:
    async def trim_first_call(context: ChatContext, call_next: CallNext) -> None:
        if not results(context.messages):
            context.messages = [Message("system", "summary: one, two"), context.messages[-1]]
        await call_next()

    client = ScriptedChatClient([one_call("alpha"), text("found")])
    agent = Agent(client, tools=[alpha], middleware=[trim_first_call])
    response, _ = await run_agent(agent, _conversation(), stream=stream)

    first, second = (list(r.messages) for r in client.requests)
    assert first == [Message("system", "summary: one, two"), Message("user", "look it up")]
    assert second[:3] == _conversation()  # the next call sees the original transcript
    assert results(second) == ["alpha result"]
    assert response.text == "found"


@pytest.mark.parametrize("stream", [False, True])
async def test_rewrite_transcript_changes_what_every_later_call_sees(stream: bool) -> None:
    compacted = [Message("system", "summary: one, two"), Message("user", "look it up")]

    async def compact_once(context: ChatContext, call_next: CallNext) -> None:
        if len(context.messages) == 3:
            context.rewrite_transcript(compacted)
        await call_next()

    client = ScriptedChatClient([one_call("alpha"), text("found")])
    agent = Agent(client, tools=[alpha], middleware=[compact_once])
    response, _ = await run_agent(agent, _conversation(), stream=stream)

    first, second = (list(r.messages) for r in client.requests)
    assert first == compacted
    assert second[:2] == compacted
    assert [m.role for m in second[2:]] == ["assistant", "tool"]
    # What the run produced is unchanged by the compaction.
    assert [m.role for m in response.messages] == ["assistant", "tool", "assistant"]
