"""``run(deps=...)`` reaches every handler as ``ctx.deps``, and through them the agents,
sub-workflows and workflow agents of the run; never saved, so a resumed run has the
deps of the call that resumes it; a handler asking without any gets a clear error."""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from typing_extensions import Never

from agentcore import Agent, AgentSession, ChatResponse, FunctionCallContent, Message, ToolContext
from agentcore import tool as make_tool
from agentcore.serialization import to_json
from agentcore.testing import ScriptedChatClient
from agentcore.workflows import (
    Workflow,
    WorkflowBuilder,
    WorkflowContext,
    WorkflowRunResult,
    executor,
    handler,
    response_handler,
)

pytestmark = pytest.mark.anyio


@attrs.frozen
class Deps:
    user: str


@attrs.frozen
class Ask:
    text: str


async def drive(workflow: Workflow[Any, Any], mode: str, **kwargs: Any) -> WorkflowRunResult[Any]:
    """One call, as a plain run, a stream, or under open_run."""
    message = kwargs.pop("message", None)
    if mode == "plain":
        result: WorkflowRunResult[Any] = await workflow.run(message, **kwargs)
        return result
    if mode == "stream":
        running = workflow.run(message, stream=True, **kwargs)
        async for _ in running:
            pass
        return await running.get_final_response()
    async with workflow.open_run(message, **kwargs) as stream:
        async for _ in stream:
            pass
        return await stream.get_final_response()


MODES = ["plain", "stream", "open_run"]


class Clerk:
    """Asks a question; the answer's handler reads the deps of the resuming call."""

    id = "clerk"

    @handler
    async def on_text(self, text: str, ctx: WorkflowContext[Never, str, Deps]) -> None:
        await ctx.request(Ask(f"{ctx.deps.user}: {text}?"), str)

    @response_handler
    async def on_answer(
        self, ask: Ask, answer: str, ctx: WorkflowContext[Never, str, Deps]
    ) -> None:
        await ctx.yield_output(f"{ask.text} {answer} (for {ctx.deps.user})")


@pytest.mark.parametrize("mode", MODES)
async def test_deps_reach_handlers_and_a_resumed_run_has_the_resuming_calls(mode: str) -> None:
    workflow = WorkflowBuilder(Clerk(), name="clerk").build()
    paused = await drive(workflow, mode, message="tea", deps=Deps("grace"))
    [asked] = paused.requests
    assert asked.data == Ask("grace: tea?")
    # never saved (a name no run id or checkpoint id can hold: not hex digits)
    assert "grace" not in to_json(paused.checkpoint).replace("grace: tea?", "")
    done = await drive(
        workflow,
        mode,
        responses=[asked.create_response("yes")],
        checkpoint=paused.checkpoint,
        deps=Deps("bob"),
    )
    assert done.output == "grace: tea? yes (for bob)"


@pytest.mark.parametrize("mode", MODES)
async def test_a_handler_asking_for_deps_without_any_is_told_how_to_pass_them(mode: str) -> None:
    from agentcore.workflows import ExecutorFailedError

    workflow = WorkflowBuilder(Clerk(), name="clerk").build()
    with pytest.raises(ExecutorFailedError) as info:
        await drive(workflow, mode, message="tea")
    cause = info.value.__cause__
    assert isinstance(cause, LookupError)
    assert "'clerk' asked for deps" in str(cause)
    assert "workflow.run(..., deps=...)" in str(cause)


@executor(id="inner")
async def inner(text: str, ctx: WorkflowContext[Never, str, Deps]) -> None:
    await ctx.yield_output(f"inner saw {ctx.deps.user} on {text}")


@pytest.mark.parametrize("mode", MODES)
async def test_agents_sub_workflows_and_workflow_agents_get_the_same_deps(mode: str) -> None:
    @make_tool
    def whoami(context: ToolContext[Deps]) -> str:
        """Who the user is."""
        return context.deps.user

    call = FunctionCallContent("c1", "whoami", "{}")
    client = ScriptedChatClient(
        [
            ChatResponse(messages=[Message("assistant", [call])], finish_reason="tool_calls"),
            "the user is known",
        ]
    )
    agent = Agent(client, "Look the user up.", tools=[whoami], name="agent", deps_type=Deps)
    child = WorkflowBuilder(inner, name="child").build()
    helper = WorkflowBuilder(inner, name="helper").build().as_agent(name="helper")

    @executor(id="desk")
    async def desk(text: str, ctx: WorkflowContext[str]) -> None:
        await ctx.send(text)

    @executor(id="note")
    async def note(text: str, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(text)

    workflow = (
        WorkflowBuilder(desk, name="desk", outputs_from=["note", agent, helper])
        .add(child, id="child")
        .add_fan_out(desk, [agent, "child", helper])
        .add_edge("child", note)
        .build()
    )
    result = await drive(workflow, mode, message="tea", deps=Deps("ada"))
    texts = sorted(o if isinstance(o, str) else o.text for o in result.outputs)
    assert texts == ["inner saw ada on tea", "inner saw ada on tea", "the user is known"]
    # the agent's tool result carried the deps into the conversation the model saw
    [_, second] = client.requests
    results = [c for m in second.messages for c in m.contents if c.type == "function_result"]
    assert [r.result for r in results] == ["ada"]


async def test_a_workflow_agent_passes_its_callers_deps_through() -> None:
    helper = WorkflowBuilder(inner, name="helper").build().as_agent(name="helper")
    response = await helper.run("tea", deps=Deps("ada"))
    assert response.text == "inner saw ada on tea"
    running = helper.run("tea", stream=True, deps=Deps("bob"))
    assert (await running.get_final_response()).text == "inner saw bob on tea"


async def test_a_workflow_tool_passes_the_outer_runs_deps_through() -> None:
    tool = WorkflowBuilder(inner, name="helper").build().as_tool(name="helper")
    call = FunctionCallContent("c1", "helper", '{"task": "tea"}')
    client = ScriptedChatClient(
        [ChatResponse(messages=[Message("assistant", [call])], finish_reason="tool_calls"), "ok"]
    )
    outer = Agent(client, "Use the helper.", tools=[tool], name="outer")
    session = AgentSession()
    await outer.run("go", session=session, deps=Deps("ada"))
    [_, second] = client.requests
    results = [c for m in second.messages for c in m.contents if c.type == "function_result"]
    assert [r.result for r in results] == ["inner saw ada on tea"]
