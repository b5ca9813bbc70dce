"""``ExecutorInvoked`` as the contract says (issue 28 §1.6): it carries the type the
message was sent as and the handler's name; a stream delivers it when the invocation
starts (one invocation or several, with or without a streaming form); a stream
closed between supersteps leaves a stored run ``cancelled``. On asyncio and trio."""

from __future__ import annotations

from collections.abc import Sequence

import anyio
import attrs
import pytest
from typing_extensions import Never

from agentcore.workflows import (
    ExecutorInvoked,
    InMemoryCheckpointStore,
    Workflow,
    WorkflowBuilder,
    WorkflowContext,
    WorkflowEvent,
    executor,
)

pytestmark = pytest.mark.anyio


@attrs.frozen
class Draft:
    text: str


def gated(gate: anyio.Event, width: int) -> Workflow[str, str]:
    """``start`` sends a Draft to ``width`` workers, which wait for ``gate``."""

    @executor(id="start")
    async def start(text: str, ctx: WorkflowContext[Draft]) -> None:
        await ctx.send(Draft(text))

    def worker(i: int) -> object:
        @executor(id=f"w{i}")
        async def work(draft: Draft) -> str:
            await gate.wait()
            return f"{draft.text} {i}"

        return work

    @executor(id="join")
    async def join(parts: Sequence[str], ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(", ".join(parts))

    workers = [worker(i) for i in range(width)]
    return (
        WorkflowBuilder(start, name="gated")
        .add_fan_out(start, workers)
        .add_fan_in(workers, join)
        .build()
    )


async def test_executor_invoked_names_the_message_type_and_the_handler() -> None:
    result = await gated(_open(), 2).run("x")
    invoked = [e for e in result.events if isinstance(e, ExecutorInvoked)]
    assert [(e.executor_id, e.message_type) for e in invoked] == [
        ("start", "str"),
        ("w0", "Draft"),
        ("w1", "Draft"),
        ("join", "tuple"),
    ]
    assert [e.handler.rsplit(".", 1)[-1] for e in invoked] == ["start", "work", "work", "join"]


def _open() -> anyio.Event:
    gate = anyio.Event()
    gate.set()
    return gate


@pytest.mark.parametrize("width", [1, 3])
async def test_a_stream_delivers_executor_invoked_when_the_invocation_starts(width: int) -> None:
    gate = anyio.Event()
    seen: list[str] = []
    with anyio.fail_after(10):  # before the fix the workers waited forever for the gate
        async for event in gated(gate, width).run("x", stream=True):
            if isinstance(event, ExecutorInvoked):
                seen.append(event.executor_id)
                if event.executor_id.startswith("w") and len(seen) == width + 1:
                    gate.set()  # every worker was announced while it still waits
            if event.type == "executor_completed" and event.executor_id.startswith("w"):
                assert gate.is_set()
    assert seen == ["start", *(f"w{i}" for i in range(width)), "join"]


@pytest.mark.parametrize("width", [1, 3])
async def test_open_run_delivers_executor_invoked_when_the_invocation_starts(width: int) -> None:
    gate = anyio.Event()
    seen: list[WorkflowEvent] = []
    with anyio.fail_after(10):
        async with gated(gate, width).open_run("x") as stream:
            async for event in stream:
                seen.append(event)
                invoked = [e for e in seen if isinstance(e, ExecutorInvoked)]
                if len(invoked) == width + 1:
                    gate.set()
            final = await stream.get_final_response()
    assert final.output == ", ".join(f"x {i}" for i in range(width))


async def test_run_and_stream_record_the_same_events() -> None:
    workflow = gated(_open(), 3)
    plain = await workflow.run("x")
    stream = workflow.run("x", stream=True)
    streamed = [e async for e in stream]
    assert [(e.type, getattr(e, "executor_id", None)) for e in streamed] == [
        (e.type, getattr(e, "executor_id", None)) for e in plain.events
    ]


async def test_open_run_left_between_supersteps_leaves_the_run_cancelled() -> None:
    store = InMemoryCheckpointStore()

    @executor(id="first")
    async def first(text: str) -> Draft:
        return Draft(text)

    @executor(id="second")
    async def second(draft: Draft, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(draft.text)

    workflow = WorkflowBuilder(first, name="two", checkpoints=store).add_edge(first, second).build()
    async with workflow.open_run("x", run_id="r1") as stream:
        async for event in stream:
            if event.type == "superstep_completed":
                break
    latest = await store.load("r1")
    assert latest is not None
    assert latest.status == "cancelled"
    assert (await workflow.run(run_id="r1")).output == "x"
