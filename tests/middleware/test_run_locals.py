"""Run-local values and custom events: shared by every scope and tool of one run only."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from agentcore import (
    Agent,
    AgentContext,
    AgentSession,
    ChatContext,
    CustomEvent,
    FunctionInvocationContext,
    Message,
    RunContext,
    ToolContext,
    tool,
)
from agentcore.middleware import CallNext
from agentcore.serialization import from_json, to_json
from agentcore.testing import ScriptedChatClient

from .harness import one_call, run_agent, text

pytestmark = pytest.mark.anyio


def append(run: RunContext, key: str, item: str) -> None:
    run.set(key, [*run.get(key, []), item])


@pytest.mark.parametrize("stream", [False, True])
async def test_run_locals_are_shared_by_every_scope_and_the_tools_of_a_run(stream: bool) -> None:
    runs: list[RunContext] = []

    async def agent_layer(context: AgentContext, call_next: CallNext) -> None:
        runs.append(context.run)
        append(context.run, "trail", "agent")
        await call_next()

    async def chat_layer(context: ChatContext, call_next: CallNext) -> None:
        append(context.run, "trail", "chat")
        await call_next()

    async def function_layer(context: FunctionInvocationContext, call_next: CallNext) -> None:
        append(context.run, "trail", "function")
        await call_next()

    @tool
    def note(ctx: ToolContext) -> str:
        """Leave a note in the run."""
        ctx.locals["trail"] = [*ctx.locals["trail"], "tool"]
        return "noted"

    client = ScriptedChatClient([one_call("note"), text("done")])
    agent = Agent(client, tools=[note], middleware=[agent_layer, chat_layer, function_layer])
    await run_agent(agent, stream=stream)

    assert runs[0].get("trail") == ["agent", "chat", "function", "tool", "chat"]


def test_run_context_get_set_delete_and_the_locals_mapping() -> None:
    run = RunContext()
    run.set("count", 1)
    run.locals["name"] = "x"

    assert run.get("count") == 1
    assert run.get("missing", "default") == "default"
    assert dict(run.locals) == {"count": 1, "name": "x"}
    run.delete("count")
    run.delete("never set")
    del run.locals["name"]
    assert len(run.locals) == 0
    assert "count" not in run.locals


@pytest.mark.parametrize("value", [{1, 2}, object(), 1j])
def test_a_value_that_is_not_json_serializable_is_refused_naming_the_key(value: object) -> None:
    run = RunContext()
    with pytest.raises(TypeError, match="'cursor' must be JSON-serializable"):
        run.set("cursor", value)
    assert "cursor" not in run.locals


@pytest.mark.parametrize("stream", [False, True])
async def test_setting_a_non_serializable_value_in_a_run_fails_the_run(stream: bool) -> None:
    async def bad(context: ChatContext, call_next: CallNext) -> None:
        context.run.set("client", context.client)
        await call_next()

    client = ScriptedChatClient([text("never")])
    agent = Agent(client, middleware=[bad])
    with pytest.raises(TypeError, match="'client' must be JSON-serializable"):
        await run_agent(agent, stream=stream)
    assert client.requests == []


@pytest.mark.parametrize("stream", [False, True])
async def test_run_locals_are_isolated_between_concurrent_runs(stream: bool) -> None:
    arrived = 0
    both_set = anyio.Event()

    async def tag_run(context: AgentContext, call_next: CallNext) -> None:
        nonlocal arrived
        assert context.run.get("who") is None  # every run starts empty
        context.run.set("who", context.messages[0].text)
        arrived += 1
        if arrived == 2:
            both_set.set()
        await call_next()

    @tool(return_directly=True)
    async def whoami(ctx: ToolContext) -> str:
        """Say which run this is."""
        await both_set.wait()  # the other run has set its value by now
        return str(ctx.locals["who"])

    client = ScriptedChatClient([one_call("whoami"), one_call("whoami")])
    agent = Agent(client, tools=[whoami], middleware=[tag_run])
    answers: dict[str, str] = {}

    async def run(tag: str) -> None:
        response, _ = await run_agent(agent, tag, stream=stream)
        answers[tag] = response.text

    async with anyio.create_task_group() as group:
        group.start_soon(run, "first")
        group.start_soon(run, "second")

    assert answers == {"first": "first", "second": "second"}


@pytest.mark.parametrize("stream", [False, True])
async def test_run_locals_survive_an_approval_pause_saved_with_the_session(stream: bool) -> None:
    seen_by_tool: list[dict[str, Any]] = []

    @tool(approval_mode="always_require")
    def wipe(path: str, ctx: ToolContext) -> str:
        """Delete a path."""
        seen_by_tool.append(dict(ctx.locals))
        return f"wiped {path}"

    async def count_calls(context: ChatContext, call_next: CallNext) -> None:
        context.run.set("model_calls", context.run.get("model_calls", 0) + 1)
        await call_next()

    def make_agent(client: ScriptedChatClient) -> Agent:
        return Agent(client, tools=[wipe], middleware=[count_calls])

    first = make_agent(ScriptedChatClient([one_call("wipe", '{"path": "/tmp/x"}')]))
    session = first.create_session()
    paused, _ = await run_agent(first, "wipe it", session=session, stream=stream)
    assert paused.approval_requests
    assert seen_by_tool == []

    # Another process: the session comes back from JSON, the agent is built anew.
    restored = from_json(to_json(session), AgentSession)
    client = ScriptedChatClient([text("wiped"), text("hello again")])
    resumed_agent = make_agent(client)
    approval = paused.approval_requests[0].create_response(True)
    resumed, _ = await run_agent(
        resumed_agent, Message("user", (approval,)), session=restored, stream=stream
    )

    assert resumed.text == "wiped"
    assert seen_by_tool == [{"model_calls": 1}]  # the value set before the pause

    runs: list[RunContext] = []

    async def capture(context: AgentContext, call_next: CallNext) -> None:
        runs.append(context.run)
        await call_next()

    await run_agent(resumed_agent, "hi", session=restored, stream=stream, middleware=[capture])
    assert runs[0].get("model_calls") == 1  # a new run starts afresh (only its own call)


@pytest.mark.parametrize("stream", [False, True])
async def test_emitted_events_reach_the_stream_and_the_response(stream: bool) -> None:
    async def chat_layer(context: ChatContext, call_next: CallNext) -> None:
        await context.run.emit({"messages": len(context.messages)}, name="model_call")
        await call_next()

    async def function_layer(context: FunctionInvocationContext, call_next: CallNext) -> None:
        await context.run.emit(CustomEvent("tool_call", context.call_id, source="audit"))
        await call_next()

    @tool
    async def slow(ctx: ToolContext) -> str:
        """Report progress."""
        await ctx.emit("half way")
        return "done"

    client = ScriptedChatClient([one_call("slow"), text("finished")])
    agent = Agent(client, tools=[slow], middleware=[chat_layer, function_layer])
    response, updates = await run_agent(agent, stream=stream)

    expected = (
        CustomEvent("model_call", {"messages": 1}),
        CustomEvent("tool_call", "c1", source="audit"),
        CustomEvent("tool_progress", "half way", source="slow"),
        CustomEvent("model_call", {"messages": 3}),
    )
    assert response.events == expected
    if stream:
        assert tuple(u.event for u in updates if u.event is not None) == expected
        # Each event arrives in its place among the model output and tool results.
        order: list[str] = []
        for update in updates:
            label = update.event.name if update.event else str(update.role)
            if (update.event or update.contents) and (not order or order[-1] != label):
                order.append(label)
        assert order == [
            "model_call",
            "assistant",
            "tool_call",
            "tool_progress",
            "tool",
            "model_call",
            "assistant",
        ]
