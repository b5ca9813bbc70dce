"""Nothing a child says is lost (issue 28 §1.5): a sub-workflow's executor events and
intermediate outputs reach the parent attributed ``node/executor``, in ``run()``
results and live in ``run(stream=True)`` and ``open_run`` (each once). On asyncio and
trio."""

from __future__ import annotations

import anyio
import pytest
from typing_extensions import Never

from agentcore.workflows import (
    ExecutorEvent,
    IntermediateOutput,
    Workflow,
    WorkflowBuilder,
    WorkflowContext,
    WorkflowEvent,
    executor,
)

pytestmark = pytest.mark.anyio


def parent(gate: anyio.Event) -> Workflow[str, str]:
    """``child``: ``note`` emits an event and yields an intermediate output, then
    ``finish`` (its output executor) waits for ``gate``. The parent sends the child's
    output to ``sink``."""

    @executor(id="note")
    async def note(text: str, ctx: WorkflowContext[str, str]) -> None:
        await ctx.emit({"seen": text}, name="progress")
        await ctx.yield_output(f"draft of {text}")
        await ctx.send(text)

    @executor(id="finish")
    async def finish(text: str, ctx: WorkflowContext[Never, str]) -> None:
        await gate.wait()
        await ctx.yield_output(text.upper())

    child = (
        WorkflowBuilder(note, name="child", outputs_from=[finish]).add_edge(note, finish).build()
    )

    @executor(id="begin")
    async def begin(text: str) -> str:
        return text

    @executor(id="sink")
    async def sink(text: str, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(f"got {text}")

    return (
        WorkflowBuilder(begin, name="parent")
        .add(child, id="sub")
        .add_edge(begin, "sub")
        .add_edge("sub", sink)
        .build()
    )


def _opened() -> anyio.Event:
    gate = anyio.Event()
    gate.set()
    return gate


def relayed(events: list[WorkflowEvent] | tuple[WorkflowEvent, ...]) -> list[tuple[str, str]]:
    return [
        (e.type, e.executor_id)
        for e in events
        if isinstance(e, (ExecutorEvent, IntermediateOutput))
    ]


async def test_run_results_hold_the_childs_events_and_intermediate_outputs() -> None:
    result = await parent(_opened()).run("otters")
    assert result.output == "got OTTERS"
    assert result.intermediate == ("draft of otters",)
    assert relayed(result.events) == [("executor_event", "sub/note"), ("intermediate", "sub/note")]
    (progress,) = [e for e in result.events if isinstance(e, ExecutorEvent)]
    assert progress.name == "progress"
    assert progress.data == {"seen": "otters"}


async def test_run_stream_delivers_them_live_and_once() -> None:
    gate = anyio.Event()
    seen: list[WorkflowEvent] = []
    with anyio.fail_after(10):  # before the fix: nothing of the child until it finished
        stream = parent(gate).run("otters", stream=True)
        async for event in stream:
            seen.append(event)
            if isinstance(event, IntermediateOutput):
                gate.set()  # the child's "finish" still waits: this arrived live
        final = await stream.get_final_response()
    assert relayed(seen) == [("executor_event", "sub/note"), ("intermediate", "sub/note")]
    assert final.intermediate == ("draft of otters",)
    assert final.output == "got OTTERS"


async def test_open_run_delivers_them_live_and_once() -> None:
    gate = anyio.Event()
    seen: list[WorkflowEvent] = []
    with anyio.fail_after(10):
        async with parent(gate).open_run("otters") as stream:
            async for event in stream:
                seen.append(event)
                if isinstance(event, IntermediateOutput):
                    gate.set()
            final = await stream.get_final_response()
    assert relayed(seen) == [("executor_event", "sub/note"), ("intermediate", "sub/note")]
    assert final.intermediate == ("draft of otters",)
