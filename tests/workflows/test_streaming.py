"""Streaming a workflow run: the final value equals a plain run, and leaving the
stream early (break, a deadline, aclose) cancels the run cleanly on both backends."""

from __future__ import annotations

import gc
from collections.abc import Sequence

import anyio
import pytest
from typing_extensions import Never

from agentcore.workflows import (
    InMemoryCheckpointStore,
    Workflow,
    WorkflowBuilder,
    WorkflowContext,
    executor,
)

pytestmark = pytest.mark.anyio


def slow_fan(store: InMemoryCheckpointStore | None = None) -> Workflow[int, int]:
    @executor
    async def source(n: int, ctx: WorkflowContext[int]) -> None:
        for i in range(n):
            await ctx.send(i)

    @executor(id="a")
    async def a(i: int) -> int:
        await anyio.sleep(0.01)
        return i

    @executor(id="b")
    async def b(i: int) -> int:
        await anyio.sleep(0.01)
        return i

    @executor
    async def total(xs: Sequence[int], ctx: WorkflowContext[Never, int]) -> None:
        await ctx.yield_output(sum(xs))

    return (
        WorkflowBuilder(source, name="slow-fan", checkpoints=store)
        .add_fan_out(source, [a, b])
        .add_fan_in([a, b], total)
        .build()
    )


async def test_break_and_deadline_do_not_corrupt_cancel_scopes() -> None:
    workflow = slow_fan()
    stream = workflow.run(3, stream=True)
    async with stream:
        async for event in stream:
            if event.type == "superstep_completed":
                break
    with anyio.move_on_after(0.015):
        async for _ in workflow.run(3, stream=True):
            pass
    # the event loop is healthy afterwards: a full run still works
    assert (await workflow.run(3)).output == 6


async def test_closing_the_stream_early_leaves_a_resumable_run() -> None:
    store = InMemoryCheckpointStore()
    workflow = slow_fan(store)
    stream = workflow.run(2, stream=True, run_id="s1")
    async for event in stream:
        if event.type == "superstep_completed":
            break
    await stream.aclose()
    latest = await store.load("s1")
    assert latest is not None
    assert latest.status == "cancelled"  # closed between supersteps: not "running"
    assert (await workflow.run(run_id="s1")).output == 2


async def test_no_reference_cycles_left_by_a_run() -> None:
    workflow = slow_fan()
    await workflow.run(2)
    gc.collect()
    gc.disable()
    try:
        gc.collect()
        await workflow.run(2)
        assert gc.collect() == 0
    finally:
        gc.enable()
