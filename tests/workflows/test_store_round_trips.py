"""What a run costs a SQLite store, counted (not timed): the hops to the store's thread
(each one a thread round trip of the event loop) and the write transactions (each one a
commit to the WAL), per seq-3 run, on asyncio and trio, for ``run()``,
``run(stream=True)`` and ``open_run``. A change that adds a hop or a transaction to
the common path fails here before it shows in the benchmark (docs/performance.md)."""

from __future__ import annotations

import re
import sqlite3
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Literal

import pytest
from typing_extensions import Never

from agentcore.workflows import (
    ExecutorFailedError,
    SqliteCheckpointStore,
    Workflow,
    WorkflowBuilder,
    WorkflowContext,
    _stores,
    executor,
)

pytestmark = pytest.mark.anyio
How = Literal["run", "stream", "open_run"]
_WRITE = re.compile(
    r"^\s*(?:INSERT(?: OR REPLACE)? INTO|DELETE FROM|UPDATE)\s+agentcore_workflow_(\w+)"
)


class Trips:
    """The hops a store made (the store function each ran in its thread) and its write
    transactions (each as the sorted tables it wrote), in order."""

    def __init__(self) -> None:
        self.hops: list[str] = []
        self.transactions: list[tuple[str, ...]] = []
        self._lock = threading.Lock()

    def tracer(self) -> Callable[[str], None]:
        """A trace callback for one connection (one thread): groups its writes by
        ``BEGIN`` ... ``COMMIT``; a write outside one is a transaction of its own."""
        open_tables: list[set[str]] = []

        def trace(statement: str) -> None:
            text = statement.lstrip().upper()
            if text.startswith("BEGIN"):
                open_tables.append(set())
            elif text.startswith("COMMIT"):
                self._add(open_tables.pop())
            elif text.startswith("ROLLBACK"):
                open_tables.pop()
            elif found := _WRITE.match(statement):
                if open_tables:
                    open_tables[-1].add(found[1])
                else:
                    self._add({found[1]})

        return trace

    def _add(self, tables: set[str]) -> None:
        if tables:
            with self._lock:
                self.transactions.append(tuple(sorted(tables)))

    def reset(self) -> None:
        self.hops.clear()
        self.transactions.clear()


@pytest.fixture
def trips(monkeypatch: pytest.MonkeyPatch) -> Trips:
    counted = Trips()
    connect = sqlite3.connect
    in_thread = _stores._in_thread

    def traced_connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        conn: sqlite3.Connection = connect(*args, **kwargs)
        conn.set_trace_callback(counted.tracer())
        return conn

    async def counted_hop(thread: Any, func: Callable[..., Any], *args: Any) -> Any:
        counted.hops.append(func.__qualname__.removeprefix("SqliteCheckpointStore."))
        return await in_thread(thread, func, *args)

    monkeypatch.setattr(sqlite3, "connect", traced_connect)
    monkeypatch.setattr(_stores, "_in_thread", counted_hop)
    return counted


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteCheckpointStore]:
    opened = SqliteCheckpointStore(tmp_path / "runs.db")
    yield opened
    opened.close()


@pytest.fixture(params=["run", "stream", "open_run"])
def how(request: pytest.FixtureRequest) -> How:
    value: How = request.param
    return value


def seq3(store: SqliteCheckpointStore) -> Workflow[int, int]:
    """The benchmark's seq-3: three no-op executors in a chain, one output."""

    @executor
    async def a(n: int) -> str:
        return "x"

    @executor
    async def b(text: str) -> bytes:
        return b"x"

    @executor
    async def c(data: bytes, ctx: WorkflowContext[Never, int]) -> None:
        await ctx.yield_output(1)

    return WorkflowBuilder(a, name="seq-3", checkpoints=store).add_chain(a, b, c).build()


async def drive(workflow: Workflow[int, int], how: How, **kwargs: Any) -> object:
    """The run's output, driven the way ``how`` says (every event consumed)."""
    if how == "run":
        return (await workflow.run(1, **kwargs)).output
    if how == "stream":
        stream = workflow.run(1, stream=True, **kwargs)
        async for _ in stream:
            pass
        return (await stream.get_final_response()).output
    async with workflow.open_run(1, **kwargs) as live:
        async for _ in live:
            pass
        return (await live.get_final_response()).output


CLAIM = ("claims",)
BARRIER = ("checkpoints", "pending_writes")  # a save that closes a superstep drops its writes
LAST = ("checkpoints", "claims", "pending_writes")  # the last barrier, the end, the release


async def test_a_new_seq3_run_costs_three_hops_and_three_transactions(
    store: SqliteCheckpointStore, trips: Trips, how: How
) -> None:
    workflow = seq3(store)
    assert await drive(workflow, how) == 1  # the first run opens the store's connection
    trips.reset()
    assert await drive(workflow, how) == 1
    assert trips.hops == [
        "_save_and_claim",  # superstep 1's barrier, with the run's claim
        "_save",  # superstep 2's
        "_save_and_release",  # superstep 3's, the completion, the claim's release
    ]
    assert trips.transactions == [LAST, BARRIER, LAST]
    [*_, barrier, completed] = await store.list_checkpoints(await _last_run(store))
    assert (barrier.status, barrier.superstep) == ("running", 3)
    assert (completed.status, completed.parent_id) == ("completed", barrier.checkpoint_id)


async def test_a_named_run_loads_in_its_claims_round_trip(
    store: SqliteCheckpointStore, trips: Trips, how: How
) -> None:
    workflow = seq3(store)
    assert await drive(workflow, how, run_id="warm") == 1
    trips.reset()
    assert await drive(workflow, how, run_id="named") == 1
    assert trips.hops == [
        "_claim_and_load",  # the run's latest checkpoint: none, so a new run
        "_save",
        "_save",
        "_save_and_release",
    ]
    assert trips.transactions == [CLAIM, BARRIER, BARRIER, LAST]
    trips.reset()
    assert await drive(workflow, how, run_id="named") == 1  # a new turn of that run
    assert trips.hops == ["_claim_and_load", "_save", "_save", "_save_and_release"]


async def _last_run(store: SqliteCheckpointStore) -> str:
    return (await store.runs())[-1].run_id


async def test_a_resume_reads_its_checkpoint_and_pending_writes_in_the_claims_round_trip(
    store: SqliteCheckpointStore, trips: Trips, how: How
) -> None:
    failing = [True]

    @executor
    async def a(n: int) -> str:
        return "x"

    @executor
    async def b(text: str) -> bytes:
        if failing[0]:
            raise RuntimeError("b fails once")
        return b"x"

    @executor
    async def c(data: bytes, ctx: WorkflowContext[Never, int]) -> None:
        await ctx.yield_output(1)

    workflow = WorkflowBuilder(a, name="seq-3", checkpoints=store).add_chain(a, b, c).build()
    with pytest.raises(ExecutorFailedError):
        await workflow.run(1, run_id="r")
    failing[0] = False
    trips.reset()
    if how == "run":
        assert (await workflow.run(run_id="r")).output == 1
    elif how == "stream":
        assert (await workflow.run(run_id="r", stream=True).get_final_response()).output == 1
    else:
        async with workflow.open_run(run_id="r") as live:
            assert (await live.get_final_response()).output == 1
    # claim, latest checkpoint and its pending writes in one; superstep 2's barrier;
    # then the end (superstep 3's barrier, the completion, the release)
    assert trips.hops == ["_claim_and_load", "_save", "_save_and_release"]
    assert trips.transactions == [CLAIM, BARRIER, LAST]
