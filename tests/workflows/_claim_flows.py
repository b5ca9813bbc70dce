"""A run that waits in its second superstep until a file appears: two processes on one
SQLite file, the second trying to drive the same run (``python -m`` from the tests)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio
from typing_extensions import Never

from agentcore.errors import RunStateError
from agentcore.workflows import (
    CheckpointStore,
    Workflow,
    WorkflowBuilder,
    WorkflowContext,
    executor,
)

RUN_ID = "shared-run"


def waiting(db: str, folder: Path) -> Workflow[int, str]:
    """``db``: a SQLite path, or a ``postgresql://`` URL (then agentcore_postgres's store)."""
    store: CheckpointStore | str = db
    if db.startswith("postgresql://"):
        from agentcore_postgres import PostgresCheckpointStore

        store = PostgresCheckpointStore(db)

    @executor
    async def first(n: int) -> int:
        return n + 1

    @executor
    async def wait(n: int, ctx: WorkflowContext[Never, str]) -> None:
        (folder / "waiting").touch()  # the test starts the second process now
        # the signal comes from another process: a file, polled (no Event reaches here)
        while not (folder / "go").exists():  # noqa: ASYNC110  # a file: no Event crosses processes
            await anyio.sleep(0.05)
        await ctx.yield_output(f"done {n}")

    return WorkflowBuilder(first, name="claimed", checkpoints=store).add_edge(first, wait).build()


async def _main(db: str, folder: str, step: str) -> None:
    workflow = waiting(db, Path(folder))
    try:
        if step == "drive":
            result = await workflow.run(1, run_id=RUN_ID)
        else:
            result = await workflow.run(run_id=RUN_ID)
    except RunStateError as exc:
        print("refused:", exc)
        return
    print(result.status, result.output)


if __name__ == "__main__":
    sys.path.insert(0, os.getcwd())
    anyio.run(_main, sys.argv[1], sys.argv[2], sys.argv[3])
