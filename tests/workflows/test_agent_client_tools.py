"""Agents inside workflows (issue 28 §1.4): a call to a client-side tool
(``additional_tools``) left pending by an agent executor pauses the workflow as a
request answered with a function result; then the agent goes on in the same session,
and the next executor runs on its real answer, never on the empty one. With and
without a history store, in run() and run(stream=True), on asyncio and trio."""

from __future__ import annotations

from typing import Any

import pytest
from typing_extensions import Never

from agentcore import (
    Agent,
    FunctionCallContent,
    FunctionInvocationConfiguration,
    FunctionResultContent,
    InMemoryHistoryStore,
    Message,
    tool,
)
from agentcore.testing import ScriptedChatClient
from agentcore.workflows import (
    AgentTurn,
    ExecutorFailedError,
    Workflow,
    WorkflowBuilder,
    WorkflowContext,
    WorkflowRunResult,
    WorkflowTypeError,
    executor,
)

from ..loop.harness import calls, text

pytestmark = pytest.mark.anyio


@tool
def pick_file() -> str:
    """Pick a file (the caller runs it)."""
    return "unused"


@tool
def pick_folder() -> str:
    """Pick a folder (the caller runs it)."""
    return "unused"


def flow(history: bool) -> tuple[Workflow[str, str], ScriptedChatClient]:
    client = ScriptedChatClient(
        [
            calls(("c1", "pick_file", "{}"), ("c2", "pick_folder", "{}")),
            text("filed report.txt under /docs"),
        ]
    )
    agent = Agent(
        client,
        name="clerk",
        history=InMemoryHistoryStore() if history else None,
        tool_loop=FunctionInvocationConfiguration(additional_tools=[pick_file, pick_folder]),
    )
    seen: list[str] = []

    @executor(id="after")
    async def after(turn: AgentTurn, ctx: WorkflowContext[Never, str]) -> None:
        seen.append(turn.text)
        await ctx.yield_output(f"after: {turn.text}")

    workflow = WorkflowBuilder(agent, name="files").add_edge("clerk", after).build()
    return workflow, client


async def run(workflow: Workflow[Any, str], stream: bool, **kwargs: Any) -> WorkflowRunResult[str]:
    if not stream:
        result: WorkflowRunResult[str] = await workflow.run(**kwargs)
        return result
    live = workflow.run(stream=True, **kwargs)
    async for _ in live:
        pass
    return await live.get_final_response()


@pytest.mark.parametrize("history", [False, True], ids=["no-history", "history"])
@pytest.mark.parametrize("stream", [False, True], ids=["run", "stream"])
async def test_a_pending_client_call_pauses_and_its_result_resumes_the_agent(
    history: bool, stream: bool
) -> None:
    workflow, client = flow(history)
    paused = await run(workflow, stream, message="file the report")
    assert paused.status == "paused"
    assert paused.outputs == ()  # "after" never ran on the empty answer
    asked = {r.id: r for r in paused.requests}
    assert set(asked) == {"c1", "c2"}
    assert all(isinstance(r.data, FunctionCallContent) for r in asked.values())
    assert {r.response_type for r in asked.values()} == {FunctionResultContent}
    # one result first: the agent still waits for the other
    half = await run(
        workflow,
        stream,
        checkpoint=paused.checkpoint,
        responses=[asked["c1"].create_response(FunctionResultContent("c1", result="report.txt"))],
    )
    assert half.status == "paused"
    assert [r.id for r in half.requests] == ["c2"]
    assert len(client.requests) == 1
    done = await run(
        workflow,
        stream,
        checkpoint=half.checkpoint,
        responses=[asked["c2"].create_response(FunctionResultContent("c2", result="/docs"))],
    )
    assert done.output == "after: filed report.txt under /docs"
    # the model's second request carries both calls and both results
    sent = client.requests[1].messages
    results = [c for m in sent for c in m.contents if isinstance(c, FunctionResultContent)]
    assert [(r.call_id, r.result) for r in results] == [("c1", "report.txt"), ("c2", "/docs")]
    assert sent[0] == Message("user", "file the report")


async def test_a_result_for_another_call_is_refused() -> None:
    workflow, _ = flow(history=False)
    paused = await workflow.run("file the report")
    first = paused.requests[0]
    wrong = first.create_response(FunctionResultContent("c9", result="x"))
    with pytest.raises(ExecutorFailedError) as info:
        await workflow.run(checkpoint=paused.checkpoint, responses=[wrong])
    assert isinstance(info.value.__cause__, WorkflowTypeError)
    assert "was given the result of call 'c9'" in str(info.value.__cause__)
