"""The workflow scenarios side by side with Microsoft Agent Framework's workflow runner.

A benchmark-only comparison, never a dependency of agentcore: install the runner with
``pip install agent-framework-core==1.23.0`` (MIT licensed) in the environment that
runs ``python -m benchmarks workflows --compare-maf``. When it is not installed the
comparison is skipped with a note, so ``make check`` does not need it.

The graphs are the ones of ``benchmarks/workflows.py``, written with MAF's own API:
function executors (``agent_framework.executor``, explicit types, the twin of
agentcore's ``@executor``), ``WorkflowBuilder(start_executor=...)``, ``add_chain``,
``add_fan_out_edges`` and ``add_fan_in_edges``. MAF's instrumentation is turned off
(``ENABLE_INSTRUMENTATION=false``, its default is on) because agentcore records no
spans without an observer. Both engines run in the same process, interleaved repeat by
repeat, and are timed as CPU time (``time.process_time``), which the load of a shared
host inflates less than wall time.
"""

from __future__ import annotations

import asyncio
import gc
import importlib
import importlib.util
import os
import time
from collections.abc import Awaitable, Callable
from typing import Any

import attrs

from benchmarks.workflows import fan, seq3

__all__ = ["MEASURED_WITH", "MafRow", "compare", "maf_available", "maf_version", "report"]

MEASURED_WITH = "1.23.0"
"""The version the figures in docs/performance.md were taken with."""


def maf_available() -> bool:
    return importlib.util.find_spec("agent_framework") is not None


def maf_version() -> str:
    from importlib.metadata import version

    return version("agent-framework-core")


def _maf() -> Any:
    os.environ.setdefault("ENABLE_INSTRUMENTATION", "false")
    return importlib.import_module("agent_framework")


def _executor(fn: Callable[..., Awaitable[None]], **types: Any) -> Any:
    """A MAF function executor in explicit mode (types from ``types``). MAF reads the
    ``ctx`` annotation even then and wants its own ``WorkflowContext`` there, which
    this module can only name at run time (MAF is optional)."""
    maf = _maf()
    fn.__annotations__ = {"ctx": maf.WorkflowContext}
    return maf.executor(**types)(fn)


def maf_seq3() -> Any:
    """``a -> b -> c``: int -> str -> bytes, then ``c`` yields an int."""
    maf = _maf()

    async def a(n: Any, ctx: Any) -> None:
        await ctx.send_message("x")

    async def b(text: Any, ctx: Any) -> None:
        await ctx.send_message(b"x")

    async def c(data: Any, ctx: Any) -> None:
        await ctx.yield_output(1)

    ea = _executor(a, id="a", input=int, output=str)
    eb = _executor(b, id="b", input=str, output=bytes)
    ec = _executor(c, id="c", input=bytes, workflow_output=int)
    return maf.WorkflowBuilder(start_executor=ea, name="seq-3").add_chain([ea, eb, ec]).build()


def maf_fan(width: int) -> Any:
    """A source fanned out to ``width`` workers whose results one fan-in joins."""
    maf = _maf()

    async def source(n: Any, ctx: Any) -> None:
        await ctx.send_message(n)

    async def work(n: Any, ctx: Any) -> None:
        await ctx.send_message("r")

    async def join(results: Any, ctx: Any) -> None:
        await ctx.yield_output(len(results))

    src = _executor(source, id="source", input=int, output=int)
    workers = [_executor(work, id=f"w{i}", input=int, output=str) for i in range(width)]
    sink = _executor(join, id="join", input=list[str], workflow_output=int)
    return (
        maf.WorkflowBuilder(start_executor=src, name=f"fan-{width}")
        .add_fan_out_edges(src, workers)
        .add_fan_in_edges(workers, sink)
        .build()
    )


@attrs.frozen
class MafRow:
    """One scenario: CPU µs per run of agentcore and of MAF."""

    name: str
    agentcore_us: float
    maf_us: float
    note: str = ""

    @property
    def times(self) -> float:
        return self.maf_us / self.agentcore_us


def _cpu_per_run(run: Callable[[], Awaitable[Any]], iterations: int) -> float:
    async def batch() -> float:
        await run()  # warm: first-run caches on both sides
        gc.collect()
        start = time.process_time()
        for _ in range(iterations):
            await run()
        return (time.process_time() - start) / iterations * 1e6

    return asyncio.run(batch())


def _check_outputs(ours: Any, theirs: Any, expected: int) -> None:
    mine = asyncio.run(ours.run(1)).output
    other = asyncio.run(theirs.run(1)).get_outputs()
    if mine != expected or other != [expected]:
        raise AssertionError(f"the twins disagree: agentcore {mine!r}, MAF {other!r}")


def _per_run(
    name: str, ours: Any, theirs: Any, expected: int, iterations: int, repeats: int, note: str
) -> MafRow:
    _check_outputs(ours, theirs, expected)
    best_ours = best_theirs = float("inf")
    for _ in range(repeats):  # interleaved, so both see the same load
        best_ours = min(best_ours, _cpu_per_run(lambda: ours.run(1), iterations))
        best_theirs = min(best_theirs, _cpu_per_run(lambda: theirs.run(1), iterations))
    return MafRow(name, best_ours, best_theirs, note)


def _once(build: Callable[[], Any], keep_events: bool) -> tuple[float, float]:
    """CPU µs of ``build()`` and of one run of what it built."""
    gc.collect()
    start = time.process_time()
    workflow = build()
    built = (time.process_time() - start) * 1e6
    gc.collect()

    async def run() -> Any:
        if keep_events:
            return await workflow.run(1)
        return await workflow.run(1, keep_events=False)

    start = time.process_time()
    asyncio.run(run())
    return built, (time.process_time() - start) * 1e6


def compare(*, quick: bool, width: int = 10_000) -> list[MafRow]:
    """The side-by-side rows (``quick``: few iterations, and no 10,000-way run, which
    takes MAF about 20 s)."""
    iterations, repeats = (50, 1) if quick else (500, 5)
    rows = [
        _per_run(
            "seq-3 run() per run",
            seq3(),
            maf_seq3(),
            1,
            iterations,
            repeats,
            "3 supersteps; every event kept on both sides",
        ),
        _per_run(
            "fan-100 run() per run",
            fan(100),
            maf_fan(100),
            100,
            max(iterations // 20, 5),
            repeats,
            "201 deliveries",
        ),
    ]
    if not quick:
        ours = [_once(lambda: fan(width), keep_events=False) for _ in range(3)]
        ours_build, ours_run = min(b for b, _ in ours), min(r for _, r in ours)
        maf_build, maf_run = _once(lambda: maf_fan(width), keep_events=True)
        rows.append(MafRow(f"fan-{width:,} build()", ours_build, maf_build, "one build each"))
        rows.append(
            MafRow(f"fan-{width:,} one run", ours_run, maf_run, "best of 3 for agentcore; MAF once")
        )
    return rows


def report(rows: list[MafRow]) -> str:
    lines = [
        f"workflows beside Microsoft Agent Framework {maf_version()} (CPU time per run, "
        "instrumentation off)",
        "| scenario | agentcore | MAF | MAF / agentcore | note |",
        "|---|---:|---:|---:|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r.name} | {_fmt(r.agentcore_us)} | {_fmt(r.maf_us)} | {r.times:.0f}x | {r.note} |"
        )
    return "\n".join(lines)


def _fmt(us: float) -> str:
    if us >= 1e6:
        return f"{us / 1e6:.2f} s"
    if us >= 1e3:
        return f"{us / 1e3:.1f} ms"
    return f"{us:.1f} µs"
