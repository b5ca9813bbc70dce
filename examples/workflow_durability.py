"""Durability modes, run claims and retention with the embedded SQLite store.

Runs offline. A run in ``"exit"`` mode writes one checkpoint when it ends; a run in
``"sync"`` mode (the default) writes every barrier. While one call drives a run, a
second call for the same run is refused (the claim is a row in the file, so a second
process would be refused too). ``keep_last`` keeps the file small without losing the
checkpoint a paused run waits at; ``runs()`` lists each run's latest checkpoint.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import anyio
from typing_extensions import Never

from agentcore.errors import RunStateError
from agentcore.workflows import (
    SqliteCheckpointStore,
    Workflow,
    WorkflowBuilder,
    WorkflowContext,
    executor,
)


class Gate:
    """Lets the example hold a run inside its second step."""

    def __init__(self) -> None:
        self.inside = anyio.Event()
        self.open = anyio.Event()


def counter(store: SqliteCheckpointStore, gate: Gate) -> Workflow[str, str]:
    @executor
    async def parse(text: str) -> int:
        return len(text.split())

    @executor
    async def check(words: int) -> int:
        gate.inside.set()
        await gate.open.wait()
        return words

    @executor
    async def publish(words: int, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(f"{words} words")

    return (
        WorkflowBuilder(parse, name="word-count", checkpoints=store)
        .add_edge(parse, check)
        .add_edge(check, publish)
        .build()
    )


async def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        store = SqliteCheckpointStore(Path(folder) / "runs.db", keep_last=2)
        gate = Gate()
        gate.open.set()
        workflow = counter(store, gate)

        done = await workflow.run("one two three", run_id="quick", durability="exit")
        print(done.output, [i.status for i in await store.list_checkpoints("quick")])
        await workflow.run("four five", run_id="synced")  # three barriers, pruned to two
        print([i.status for i in await store.list_checkpoints("synced")])

        gate = Gate()
        held = counter(store, gate)
        outputs: list[str] = []

        async def first_driver() -> None:
            outputs.append((await held.run("six seven eight", run_id="held")).output)

        async with anyio.create_task_group() as tg:
            tg.start_soon(first_driver)
            await gate.inside.wait()  # the first call is inside its `check` step
            try:
                await held.run(run_id="held")
            except RunStateError as refused:
                print("second driver:", str(refused).split(" (")[0])
            gate.open.set()
        print(outputs[0])
        print([(i.run_id, i.status) for i in await store.runs(workflow="word-count")])
        store.close()


if __name__ == "__main__":
    anyio.run(main)
