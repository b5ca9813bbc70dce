"""Durable-run overhead: one tool round (model call, tool call, model call) run in
memory, as three hand-written DBOS steps, and as an agentcore durable agent on DBOS
with SQLite. ``python -m benchmarks.durable [--quick]``; ``python -m benchmarks``
prints this table after its own when DBOS is installed.

What it shows: the cost a durable run adds per step over the same run in memory,
and how much of that is agentcore's (the agent against the hand-written DBOS steps,
which record the same JSON). Every DBOS step is a write to the system database, so
the figures depend on the disk; the SQLite file lives in a temporary directory.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import attrs

from agentcore import Agent, Message, tool
from agentcore.serialization import to_dict
from benchmarks.fakes import FakeModel, calls_response, lookup, text_response

STEPS = 3  # model call, tool call, model call (the run key is one more DBOS step id)


@attrs.frozen
class DurableResult:
    in_memory_us: float
    dbos_by_hand_us: float
    agentcore_dbos_us: float

    @property
    def per_step_us(self) -> float:
        return (self.agentcore_dbos_us - self.in_memory_us) / STEPS

    @property
    def agentcore_share_us(self) -> float:
        return (self.agentcore_dbos_us - self.dbos_by_hand_us) / STEPS


async def _median_us(
    runs: Sequence[Callable[[int], Awaitable[Any]]], iterations: int
) -> list[float]:
    """The median microseconds of each of ``runs``, called in turns (a, b, c, a, b, ...)
    so that a slow spell of the shared disk or CPU hits each of them alike."""
    samples: list[list[float]] = [[] for _ in runs]
    for n in range(iterations):
        for each, run in zip(samples, runs, strict=True):
            gc.collect()
            start = time.perf_counter()
            await run(n + 1)
            each.append((time.perf_counter() - start) * 1e6)
    return [statistics.median(each) for each in samples]


def measure(iterations: int) -> DurableResult:
    from agentcore_dbos import dbos_agent, dbos_config
    from dbos import DBOS, SetWorkflowID

    plain_tools = Agent(
        FakeModel([calls_response(1), text_response()]),
        "Be brief.",
        name="bench",
        tools=[tool(lookup)],
    )
    durable = dbos_agent(plain_tools)
    hand_model = FakeModel([calls_response(1), text_response()])

    @DBOS.workflow(name="bench.agent")
    async def agent_turn(question: str) -> str:
        return (await durable.run(question)).text

    @DBOS.workflow(name="bench.by_hand")
    async def by_hand_turn(question: str) -> str:
        # The same work as the agent, recorded as the same JSON, with no agentcore loop.
        async def first() -> Any:
            return to_dict(await hand_model.get_response([Message("user", question)]))

        async def tool() -> Any:
            return {"value": await lookup("c0")}

        async def second() -> Any:
            return to_dict(await hand_model.get_response([Message("user", question)]))

        await DBOS.run_step_async({"name": "bench.model"}, first)
        await DBOS.run_step_async({"name": "bench.tool.lookup"}, tool)
        done = await DBOS.run_step_async({"name": "bench.model"}, second)
        return str(done["data"]["messages"][0]["contents"][0]["text"])

    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'bench.sqlite'}"
        DBOS(config=dbos_config("bench", database_url=url, log_level="WARNING"))
        DBOS.launch()
        try:

            async def all_three() -> DurableResult:
                async def memory(_: int) -> Any:
                    return await plain_tools.run("weather?")

                async def hand(n: int) -> Any:
                    with SetWorkflowID(f"hand-{n}"):
                        return await by_hand_turn("weather?")

                async def agentcore(n: int) -> Any:
                    with SetWorkflowID(f"agent-{n}"):
                        return await agent_turn("weather?")

                for warm in (memory, hand, agentcore):
                    await warm(0)
                in_memory, by_hand, durable_us = await _median_us(
                    [memory, hand, agentcore], iterations
                )
                return DurableResult(in_memory, by_hand, durable_us)

            return asyncio.run(all_three())
        finally:
            DBOS.destroy()


def report(result: DurableResult) -> str:
    rows = [
        "| one tool round (3 steps), median | per run |",
        "|---|---|",
        f"| in memory | {result.in_memory_us:,.0f} µs |",
        f"| DBOS + SQLite, 3 hand-written steps | {result.dbos_by_hand_us:,.0f} µs |",
        f"| agentcore durable agent, DBOS + SQLite | {result.agentcore_dbos_us:,.0f} µs |",
        "",
        f"durable overhead per step: {result.per_step_us:,.0f} µs; of which agentcore's "
        f"(against the hand-written steps): {result.agentcore_share_us:,.0f} µs",
    ]
    return "\n".join(rows)


def iterations(*, quick: bool) -> int:
    """Runs of each kind: every durable run writes to disk, so few are affordable."""
    return 5 if quick else 60


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="few iterations: checks it runs")
    args = parser.parse_args()
    print(report(measure(iterations(quick=args.quick))))


if __name__ == "__main__":
    main()
