"""Workflow scenarios: the engine against a hand-written twin of the same graph.

``seq-3`` is ``a -> b -> c`` with no-op handlers (3 supersteps); ``fan-N`` is a source
fanned out to N workers whose results one fan-in joins (3 supersteps, 2N+1
deliveries); ``chain-N`` is N executors in a line (N supersteps). Figures are
best-of-repeats, on asyncio unless a row names trio; the CPU time of one fan-10,000
run and its tracemalloc peak are reported beside the wall time; that row runs in a
fresh interpreter (:func:`fan10k_run`).
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import anyio
import anyio.to_thread
import attrs
from typing_extensions import Never

from agentcore import Agent
from agentcore.serialization import to_json
from agentcore.workflows import (
    InMemoryCheckpointStore,
    SqliteCheckpointStore,
    Workflow,
    WorkflowBuilder,
    WorkflowContext,
    WorkflowRunResult,
    executor,
    handler,
    response_handler,
)
from benchmarks.fakes import FakeModel, text_response
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


def chain(length: int) -> Workflow[int, int]:
    def link(i: int) -> Any:
        @executor(id=f"s{i}")
        async def step(n: int) -> int:
            return n

        return step

    @executor(id="last")
    async def last(n: int, ctx: WorkflowContext[Never, int]) -> None:
        await ctx.yield_output(n)

    links = [link(i) for i in range(length - 1)]
    builder = WorkflowBuilder(links[0], name=f"chain-{length}", max_supersteps=length)
    return builder.add_chain(*links, last).build()


def measure_on(
    backend: str, run: Callable[[], Awaitable[Any]], iterations: int, repeats: int
) -> float:
    """Best-of-``repeats`` mean microseconds per call of ``run`` on ``backend``."""

    async def batch() -> float:
        for _ in range(min(iterations, 50)):
            await run()
        start = time.perf_counter()
        for _ in range(iterations):
            await run()
        return (time.perf_counter() - start) / iterations * 1e6

    best = float("inf")
    for _ in range(repeats):
        gc.collect()
        best = min(best, anyio.run(batch, backend=backend))
    return best


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


def seq3_superstep(iterations: int, repeats: int) -> Result:
    workflow = seq3()

    async def framework() -> Any:
        return await workflow.run(1)

    async def by_hand() -> Any:
        return await _seq3_by_hand(1)

    return Result(
        "workflow seq-3 per superstep",
        measure(framework, iterations, repeats) / 3,
        measure(by_hand, iterations, repeats) / 3,
        10.0,
        note="run() / 3: the run's setup and result included",
    )


def seq3_stream(iterations: int, repeats: int) -> Result:
    workflow = seq3()

    async def framework() -> Any:
        stream = workflow.run(1, stream=True)
        async for _ in stream:
            pass
        return await stream.get_final_response()

    async def by_hand() -> Any:
        return await _seq3_by_hand(1)

    return Result(
        "workflow seq-3 run(stream=True)",
        measure(framework, iterations, repeats),
        measure(by_hand, iterations, repeats),
        40.0,
        note="every event consumed, then the final result",
    )


def seq3_memory_store(iterations: int, repeats: int) -> Result:
    workflow = seq3()
    store = InMemoryCheckpointStore()

    async def framework() -> Any:
        return await workflow.run(1, checkpoints=store)

    async def by_hand() -> Any:
        return await _seq3_by_hand(1)

    return Result(
        "workflow seq-3, InMemoryCheckpointStore, per superstep",
        measure(framework, iterations, repeats) / 3,
        measure(by_hand, iterations, repeats) / 3,
        20.0,
        note="run() / 3: 4 checkpoints saved per run",
    )


def fan100_run(iterations: int, repeats: int, backend: str = "asyncio") -> Result:
    workflow = fan(100)

    async def framework() -> Any:
        return await workflow.run(1)

    async def by_hand() -> Any:
        return await _fan_by_hand(100)

    return Result(
        "workflow fan-out/fan-in, 100 workers" + ("" if backend == "asyncio" else f", {backend}"),
        measure_on(backend, framework, iterations, repeats),
        measure(by_hand, iterations, repeats),
        1500.0 if backend == "asyncio" else 4000.0,
        note="201 deliveries per run" + ("" if backend == "asyncio" else "; by hand on asyncio"),
    )


def fan10k_run(width: int = 10_000, backend: str = "asyncio") -> Result:
    """One fan-``width`` build and run, measured in a fresh interpreter: in the
    ``python -m benchmarks`` process the adapter benchmarks leave the provider SDKs
    alive (about 215,000 objects), and every full collection during the build or the
    run would walk them, so the figure would be the harness's heap, not the workflow."""
    source = (
        "import json; from benchmarks.workflows import fan10k_fresh; "
        f"print(json.dumps(fan10k_fresh({width}, {backend!r})))"
    )
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    done = subprocess.run(
        [sys.executable, "-c", source], capture_output=True, text=True, check=True, cwd=root
    )
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    on = "" if backend == "asyncio" else f", {backend}"
    return Result(
        f"workflow fan-out/fan-in, {width} workers (one run{on})",
        figures["wall_us"],
        figures["hand_us"],
        300_000.0 if backend == "asyncio" else 700_000.0,
        note=f"in a fresh interpreter; run CPU {figures['cpu_ms']:.0f} ms; tracemalloc peak "
        f"{figures['peak_mib']:.1f} MiB (budget 40); build CPU {figures['build_ms']:.0f} ms "
        "(budget 150)",
    )


def fan10k_fresh(width: int, backend: str) -> dict[str, float]:
    """:func:`fan10k_run`'s figures, taken in the process that calls this (a fresh one)."""
    gc.collect()
    start = time.process_time()
    workflow = fan(width)
    build_ms = (time.process_time() - start) * 1e3

    async def once() -> None:
        result = await workflow.run(1, keep_events=False)
        assert result.output == width

    gc.collect()
    wall = time.perf_counter()
    cpu = time.process_time()
    anyio.run(once, backend=backend)
    cpu_ms = (time.process_time() - cpu) * 1e3
    wall_us = (time.perf_counter() - wall) * 1e6
    gc.collect()
    tracemalloc.start()
    anyio.run(once, backend=backend)
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    hand = time.perf_counter()
    asyncio.run(_fan_by_hand(width))
    hand_us = (time.perf_counter() - hand) * 1e6
    return {
        "wall_us": wall_us,
        "hand_us": hand_us,
        "cpu_ms": cpu_ms,
        "peak_mib": peak,
        "build_ms": build_ms,
    }


# -- checkpoints, a durable store, agents (design §10's remaining rows) -------------------


def _interleaved(runs: Sequence[Any], iterations: int, repeats: int) -> list[float]:
    """Best-of-``repeats`` mean µs per call of each runner, the runners taking turns
    repeat by repeat (a loaded host moves figures minute to minute)."""
    best = [float("inf")] * len(runs)
    for _ in range(repeats):
        for i, run in enumerate(runs):
            best[i] = min(best[i], measure(run, iterations, 1))
    return best


@attrs.frozen
class Question:
    text: str


@attrs.frozen
class GateState:
    asked: int = 0


class _Gate:
    id = "gate"

    @handler
    async def on_text(self, text: str, ctx: WorkflowContext[Never]) -> None:
        ctx.set_state(GateState(1))
        await ctx.request(Question(text), bool, context={"n": 0})

    @response_handler
    async def on_answer(
        self, question: Question, approved: bool, ctx: WorkflowContext[Never, str]
    ) -> None:
        await ctx.yield_output(question.text)


def checkpoint_codec(iterations: int, repeats: int) -> Result:
    """A paused run's checkpoint (one request, a small executor state) written as the
    JSON a store keeps and read back with the definition's types."""
    gate = _Gate()
    workflow: Workflow[str, str] = (
        WorkflowBuilder(gate, name="gate").add(gate, state_type=GateState).build()
    )

    async def pause() -> WorkflowRunResult[str]:
        return await workflow.run("ship it?")

    paused = asyncio.run(pause())
    checkpoint = paused.checkpoint
    assert checkpoint is not None
    assert len(checkpoint.requests) == 1
    text = to_json(checkpoint)
    assert workflow.restore(text) == checkpoint

    async def framework() -> Any:
        return workflow.restore(to_json(checkpoint))

    document = json.loads(text)

    async def by_hand() -> Any:  # the same document through json alone, no types
        return json.loads(json.dumps(document, separators=(",", ":")))

    ours, hand = _interleaved([framework, by_hand], iterations, repeats)
    return Result(
        "paused run's checkpoint, encode + decode",
        ours,
        hand,
        150.0,
        note=f"{len(text)} bytes of JSON; by hand: json.dumps + json.loads of that document",
    )


def seq3_sqlite_run(iterations: int, repeats: int) -> Result:
    """seq-3 with a SQLite store: every superstep's checkpoint is written (in a worker
    thread) before the next superstep starts. Wall time per superstep."""
    folder = tempfile.mkdtemp(prefix="agentcore-bench-")
    try:
        store = SqliteCheckpointStore(os.path.join(folder, "runs.db"))
        workflow = seq3()
        payload = "x" * 900
        db = sqlite3.connect(os.path.join(folder, "hand.db"), check_same_thread=False)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute(
            "CREATE TABLE t (run_id TEXT, step INTEGER, payload TEXT, PRIMARY KEY (run_id, step))"
        )

        async def framework() -> Any:
            return await workflow.run(1, checkpoints=store, keep_events=False)

        runs = iter(range(1 << 62))

        def write(run: int, step: int) -> None:
            with db:
                db.execute("INSERT INTO t VALUES (?, ?, ?)", (str(run), step, payload))

        async def by_hand() -> Any:  # seq-3 by hand, each step's row written in a thread
            run = next(runs)
            for step in range(3):
                await anyio.to_thread.run_sync(write, run, step)
            return await _seq3_by_hand(1)

        ours, hand = _interleaved([framework, by_hand], iterations, repeats)
        db.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return Result(
        "workflow seq-3 with SqliteCheckpointStore, per superstep (wall)",
        ours / 3,
        hand / 3,
        300.0,
        note="each superstep's checkpoint saved before the next; by hand: one ~1 kB row "
        "per step, keyed by (run, step), written in a worker thread",
    )


def agent_executor_run(iterations: int, repeats: int) -> Result:
    """What wrapping an agent as an executor adds per invocation: a one-node workflow
    around a scripted agent, less the agent's own run, less a one-node workflow around
    a no-op function (the engine's cost of any one-superstep run)."""
    agent = Agent(FakeModel([text_response()]), "Be brief.", name="writer")
    around_agent: Workflow[str, Any] = WorkflowBuilder(agent, name="agent").build()

    @executor
    async def noop(text: str, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(text)

    around_noop: Workflow[str, str] = WorkflowBuilder(noop, name="noop").build()

    async def wrapped() -> Any:
        return await around_agent.run("hi", keep_events=False)

    async def alone() -> Any:
        return await agent.run("hi")

    async def engine() -> Any:
        return await around_noop.run("hi", keep_events=False)

    wrapped_us, alone_us, engine_us = _interleaved([wrapped, alone, engine], iterations, repeats)
    return Result(
        "AgentExecutor around a scripted agent, per invocation",
        wrapped_us - engine_us,
        alone_us,
        alone_us + 15.0,
        note=f"one-node workflow {wrapped_us:.1f} µs, minus the same workflow around a no-op "
        f"function {engine_us:.1f} µs; budget: the agent's own run + 15 µs",
    )


def chain_run(length: int, repeats: int) -> Result:
    """One run of a ``length``-executor chain, per superstep: linear when the figure
    stays flat as ``length`` grows (design §9.11 #99)."""
    workflow = chain(length)

    async def framework() -> Any:
        result = await workflow.run(1, keep_events=False)
        assert result.supersteps == length
        return result

    async def by_hand() -> Any:
        n = 1
        for _ in range(length):
            n = await _identity(n)
        return n

    iterations = max(1, 10_000 // length)
    return Result(
        f"workflow chain of {length}, per superstep",
        measure(framework, iterations, repeats) / length,
        measure(by_hand, iterations, repeats) / length,
        None,
        note=f"max_supersteps={length}; linear if flat across lengths",
    )


async def _identity(n: int) -> int:
    return n


def concurrent_seq3(runs: int, repeats: int) -> Result:
    """``runs`` concurrent seq-3 runs of one definition, per run (§9.11 #100)."""
    workflow = seq3()

    async def framework() -> None:
        results = await asyncio.gather(*(workflow.run(i) for i in range(runs)))
        assert all(r.output == 1 for r in results)

    async def by_hand() -> None:
        await asyncio.gather(*(_seq3_by_hand(i) for i in range(runs)))

    return Result(
        f"workflow {runs} concurrent seq-3 runs, per run",
        measure(framework, 1, repeats) / runs,
        measure(by_hand, 1, repeats) / runs,
        None,
        note="one definition shared by every run",
    )
