"""Workflow scenarios: the engine against a hand-written twin of the same graph.

``seq-3`` is ``a -> b -> c`` with no-op handlers (3 supersteps); ``fan-N`` is a source
fanned out to N workers whose results one fan-in joins (3 supersteps, 2N+1
deliveries). Figures are best-of-repeats, on asyncio; the CPU time of one fan-10,000
run and its tracemalloc peak are reported beside the wall time.
"""

from __future__ import annotations

import asyncio
import gc
import time
import tracemalloc
from collections.abc import Sequence
from typing import Any

from typing_extensions import Never

from agentcore.workflows import Workflow, WorkflowBuilder, WorkflowContext, executor
from benchmarks.scenarios import Result, measure


def seq3() -> Workflow[int, int]:
    @executor
    async def a(n: int) -> str:
        return "x"

    @executor
    async def b(text: str) -> bytes:
        return b"x"

    @executor
    async def c(data: bytes, ctx: WorkflowContext[Never, int]) -> None:
        await ctx.yield_output(1)

    return WorkflowBuilder(a, name="seq-3").add_chain(a, b, c).build()


def fan(width: int) -> Workflow[int, int]:
    @executor
    async def source(n: int, ctx: WorkflowContext[int]) -> None:
        await ctx.send(n)

    def worker(i: int) -> Any:
        @executor(id=f"w{i}")
        async def work(n: int) -> str:
            return "r"

        return work

    workers = [worker(i) for i in range(width)]

    @executor
    async def join(results: Sequence[str], ctx: WorkflowContext[Never, int]) -> None:
        await ctx.yield_output(len(results))

    return (
        WorkflowBuilder(source, name=f"fan-{width}")
        .add_fan_out(source, workers)
        .add_fan_in(workers, join)
        .build()
    )


async def _seq3_by_hand(n: int) -> int:
    async def a(n: int) -> str:
        return "x"

    async def b(text: str) -> bytes:
        return b"x"

    async def c(data: bytes) -> int:
        return 1

    return await c(await b(await a(n)))


async def _fan_by_hand(width: int) -> int:
    async def work(n: int) -> str:
        return "r"

    results = await asyncio.gather(*(work(1) for _ in range(width)))
    return len(results)


def seq3_run(iterations: int, repeats: int) -> Result:
    workflow = seq3()

    async def framework() -> Any:
        return await workflow.run(1)

    async def by_hand() -> Any:
        return await _seq3_by_hand(1)

    return Result(
        "workflow seq-3 run()",
        measure(framework, iterations, repeats),
        measure(by_hand, iterations, repeats),
        30.0,
        note="3 supersteps, every event kept in the result",
    )


def fan100_run(iterations: int, repeats: int) -> Result:
    workflow = fan(100)

    async def framework() -> Any:
        return await workflow.run(1)

    async def by_hand() -> Any:
        return await _fan_by_hand(100)

    return Result(
        "workflow fan-out/fan-in, 100 workers",
        measure(framework, iterations, repeats),
        measure(by_hand, iterations, repeats),
        1500.0,
        note="201 deliveries per run",
    )


def fan10k_run(width: int = 10_000) -> Result:
    start = time.process_time()
    workflow = fan(width)
    build_ms = (time.process_time() - start) * 1e3

    async def once() -> None:
        result = await workflow.run(1, keep_events=False)
        assert result.output == width

    gc.collect()
    wall = time.perf_counter()
    cpu = time.process_time()
    asyncio.run(once())
    cpu_ms = (time.process_time() - cpu) * 1e3
    wall_us = (time.perf_counter() - wall) * 1e6
    gc.collect()
    tracemalloc.start()
    asyncio.run(once())
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    hand = time.perf_counter()
    asyncio.run(_fan_by_hand(width))
    hand_us = (time.perf_counter() - hand) * 1e6
    return Result(
        f"workflow fan-out/fan-in, {width} workers (one run)",
        wall_us,
        hand_us,
        300_000.0,
        note=f"run CPU {cpu_ms:.0f} ms; tracemalloc peak {peak:.1f} MiB (budget 40); "
        f"build CPU {build_ms:.0f} ms (budget 150)",
    )
