"""The checkpoint stores: atomic, cancellation-shielded SQLite saves, run claims
(in one process and across two), and retention (``keep_last``, ``prune``, ``runs``)."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

import anyio
import pytest
from typing_extensions import Never

from agentcore.errors import RunStateError
from agentcore.workflows import (
    CheckpointRecord,
    ExecutorFailedError,
    InMemoryCheckpointStore,
    SqliteCheckpointStore,
    SupportsCombinedClaims,
    SupportsPendingWrites,
    SupportsRunClaims,
    WorkflowBuilder,
    WorkflowContext,
    executor,
)
from tests.workflows._checkpoint_flows import BATCH, expenses
from tests.workflows._claim_flows import RUN_ID
from tests.workflows._replay_flows import Flow

pytestmark = pytest.mark.anyio
ROOT = Path(__file__).parents[2]
DONE = "counted 5 + flaky 5 (seen 5)"
Store = InMemoryCheckpointStore | SqliteCheckpointStore


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "memory":
        yield InMemoryCheckpointStore()
        return
    sqlite = SqliteCheckpointStore(tmp_path / "runs.db")
    yield sqlite
    sqlite.close()


def test_both_stores_have_every_capability(store: Store) -> None:
    assert isinstance(store, SupportsPendingWrites)
    assert isinstance(store, SupportsRunClaims)
    assert isinstance(store, SupportsCombinedClaims)


# -- atomic, shielded saves ----------------------------------------------------------------


class _GatedStore(SqliteCheckpointStore):
    """Holds its first barrier save (in the worker thread, inside the save) until told."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.entered = threading.Event()
        self.proceed = threading.Event()

    def _save(self, record: CheckpointRecord) -> None:
        if record.status == "running" and not self.entered.is_set():
            self.entered.set()
            self.proceed.wait(30)
        super()._save(record)


async def test_sqlite_save_is_atomic_and_shielded_from_cancellation(tmp_path: Path) -> None:
    # cancelled while its first barrier save is under way: the save completes whole,
    # then the cancellation lands in the next superstep and is saved as such
    gated = _GatedStore(tmp_path / "runs.db")
    flow = Flow(tmp_path / "log", mode="hang")  # superstep 2 waits: the cancel lands there
    flow.arm()
    workflow = flow.build(gated)

    async def cancel_during_the_save(scope: anyio.CancelScope) -> None:
        await anyio.to_thread.run_sync(gated.entered.wait)
        scope.cancel()
        gated.proceed.set()

    async with anyio.create_task_group() as tg:
        tg.start_soon(cancel_during_the_save, tg.cancel_scope)
        await workflow.run(5, run_id="c")
    infos = await gated.list_checkpoints("c")
    assert [i.status for i in infos] == ["running", "cancelled"]
    barrier = await gated.load("c", infos[0].checkpoint_id)
    assert barrier is not None
    assert workflow.restore(barrier).superstep == 1  # the whole document, readable
    flow.mode = "ok"
    assert (await workflow.run(run_id="c")).output == DONE
    assert flow.runs() == 1
    gated.close()

    # a save that fails after its insert leaves nothing: no record, and the pending
    # writes it would have dropped are still there
    store = SqliteCheckpointStore(tmp_path / "atomic.db")
    await store.save_pending_write("r", "ck_parent", 0, '{"kept": true}')
    record = CheckpointRecord("r", "ck_child", "ck_parent", 2, "running", "w", None, "t", 1, "{}")
    outside = sqlite3.connect(tmp_path / "atomic.db")
    outside.execute(
        "CREATE TRIGGER fail_cleanup BEFORE DELETE ON agentcore_workflow_pending_writes "
        "BEGIN SELECT RAISE(ABORT, 'cleanup failed'); END"
    )
    outside.commit()
    with pytest.raises(sqlite3.IntegrityError, match="cleanup failed"):
        await store.save(record)
    assert await store.load("r") is None
    assert await store.load_pending_writes("r", "ck_parent") == ['{"kept": true}']
    outside.execute("DROP TRIGGER fail_cleanup")
    outside.commit()
    outside.close()
    await store.save(record)  # the barrier save and the cleanup, in one transaction
    assert await store.load("r") == record
    assert await store.load_pending_writes("r", "ck_parent") == []
    store.close()
    with pytest.raises(RuntimeError, match="is closed"):
        await store.load("r")


async def test_pending_writes_go_once_their_superstep_closes_after_a_resume(
    store: Store, tmp_path: Path
) -> None:
    """The writes of a failed superstep sit under the barrier before it; the resumed
    superstep starts from the failed checkpoint, and its barrier still drops them."""
    flow = Flow(tmp_path / "log", mode="fail")
    flow.arm()
    with pytest.raises(ExecutorFailedError):
        await flow.build(store).run(5, run_id="f")
    barrier = (await store.list_checkpoints("f"))[0].checkpoint_id
    assert len(await store.load_pending_writes("f", barrier)) == 1
    flow.mode = "ok"
    assert (await flow.build(store).run(run_id="f")).output == DONE
    assert await store.load_pending_writes("f", barrier) == []


# -- run claims ----------------------------------------------------------------------------


async def test_a_second_driver_of_one_run_is_refused(store: Store) -> None:
    gate, started = anyio.Event(), anyio.Event()

    @executor
    async def first(n: int) -> int:
        return n

    @executor
    async def hold(n: int, ctx: WorkflowContext[Never, int]) -> None:
        started.set()
        await gate.wait()
        await ctx.yield_output(n)

    workflow = WorkflowBuilder(first, name="held", checkpoints=store).add_edge(first, hold).build()
    outputs: list[int] = []

    async def drive() -> None:
        outputs.append((await workflow.run(7, run_id="r")).output)

    async with anyio.create_task_group() as tg:
        tg.start_soon(drive)
        await started.wait()
        with pytest.raises(RunStateError, match="run 'r' is being driven by another process"):
            await workflow.run(run_id="r")
        stream = workflow.run(run_id="r", stream=True)
        with pytest.raises(RunStateError, match="being driven by another process"):
            await stream.get_final_response()
        with pytest.raises(RunStateError, match="being driven by another process"):
            async with workflow.open_run(run_id="r") as live:
                await live.get_final_response()
        gate.set()
    assert outputs == [7]
    assert await store.claim("r", "someone else", 60)  # released when the run returned


@pytest.mark.parametrize("outcome", ["paused", "failed", "cancelled"])
async def test_the_claim_is_released_however_the_call_ends(
    store: Store, tmp_path: Path, outcome: Literal["paused", "failed", "cancelled"]
) -> None:
    if outcome == "paused":
        assert (await expenses(store).run(BATCH, run_id="r")).status == "paused"
    elif outcome == "failed":
        flow = Flow(tmp_path / "log", mode="fail")
        flow.arm()
        with pytest.raises(ExecutorFailedError):
            await flow.build(store).run(5, run_id="r")
    else:
        flow = Flow(tmp_path / "log", mode="hang")
        finished = flow.arm()
        async with anyio.create_task_group() as tg:

            async def cancel_when_counted_finished() -> None:
                await finished.wait()
                tg.cancel_scope.cancel()

            tg.start_soon(cancel_when_counted_finished)
            await flow.build(store).run(5, run_id="r")
    assert (await store.list_checkpoints("r"))[-1].status == outcome
    assert await store.claim("r", "the next process", 60)


async def test_crashed_claim_expires_after_ttl(store: Store, tmp_path: Path) -> None:
    flow = Flow(tmp_path / "log", mode="fail")
    flow.arm()
    with pytest.raises(ExecutorFailedError):
        await flow.build(store).run(5, run_id="r")
    # a process took the claim and died without releasing it
    assert await store.claim("r", "crashed process", 0.2)
    flow.mode = "ok"
    with pytest.raises(RunStateError, match="being driven by another process"):
        await flow.build(store).run(run_id="r")
    assert not await store.claim("r", "a third process", 60)
    await anyio.sleep(0.3)  # past the crashed claim's ttl (a wait, not a measurement)
    assert (await flow.build(store).run(run_id="r")).output == DONE
    # release only drops the holder's own claim
    assert await store.claim("r", "holder", 60)
    await store.release("r", "not the holder")
    assert not await store.claim("r", "another", 60)
    await store.release("r", "holder")
    assert await store.claim("r", "another", 60)
    with pytest.raises(ValueError, match="ttl is a number of seconds above 0"):
        await store.claim("r", "another", 0)


async def test_delete_forgets_the_run_with_its_claim(store: Store, tmp_path: Path) -> None:
    flow = Flow(tmp_path / "log", mode="fail")
    flow.arm()
    with pytest.raises(ExecutorFailedError):
        await flow.build(store).run(5, run_id="r")
    [failed] = [i for i in await store.list_checkpoints("r") if i.status == "failed"]
    assert await store.load_pending_writes("r", failed.parent_id or "") != []
    # a process took the claim and died holding it; then the run is deleted
    assert await store.claim("r", "crashed process", 600)
    await store.delete("r")
    assert await store.load("r") is None
    assert await store.list_checkpoints("r") == []
    assert await store.load_pending_writes("r", failed.parent_id or "") == []
    # a new run under the same id is not refused for the deleted run's claim
    assert await store.claim("r", "the next process", 60)
    await store.release("r", "the next process")
    flow.mode = "ok"
    assert (await flow.build(store).run(5, run_id="r")).output == DONE


async def test_two_processes_cannot_drive_one_run(tmp_path: Path) -> None:
    db = str(tmp_path / "shared.db")

    def flow(step: str) -> list[str]:
        return [sys.executable, "-m", "tests.workflows._claim_flows", db, str(tmp_path), step]

    def second_process() -> str:
        done = subprocess.run(
            flow("resume"), cwd=ROOT, capture_output=True, text=True, timeout=60, check=True
        )
        return done.stdout.strip()

    def both() -> tuple[str, str, str]:
        first = subprocess.Popen(flow("drive"), cwd=ROOT, stdout=subprocess.PIPE, text=True)
        try:
            for _ in range(1200):  # until the first process is inside its second superstep
                if (tmp_path / "waiting").exists() or first.poll() is not None:
                    break
                time.sleep(0.05)
            assert (tmp_path / "waiting").exists(), "the first process never reached the wait"
            refused = second_process()
        finally:
            (tmp_path / "go").touch()
            out, _ = first.communicate(timeout=60)
        return refused, out.strip(), second_process()

    refused, finished, after = await anyio.to_thread.run_sync(both)
    assert refused == (
        f"refused: run {RUN_ID!r} is being driven by another process (it holds the run's "
        "claim); wait for it to pause or finish, or, if that process crashed, for its claim "
        "to expire (600 s after it was last renewed)"
    )
    assert finished == "completed done 2"
    assert after.startswith(f"refused: run {RUN_ID!r} has nothing to resume")  # not "driven"
    store = SqliteCheckpointStore(db)
    try:
        assert await store.claim(RUN_ID, "a later process", 60)  # the first one released
    finally:
        store.close()


# -- retention -----------------------------------------------------------------------------


async def test_keep_last_never_prunes_latest_paused(tmp_path: Path, store: Store) -> None:
    keeping = (
        InMemoryCheckpointStore(keep_last=2)
        if isinstance(store, InMemoryCheckpointStore)
        else SqliteCheckpointStore(tmp_path / "keep.db", keep_last=2)
    )
    workflow = expenses(keeping)
    paused = await workflow.run(BATCH, run_id="r")
    assert [i.status for i in await keeping.list_checkpoints("r")] == ["running", "paused"]
    [question] = paused.requests
    await workflow.run(responses=[question.create_response(True)], run_id="r")
    infos = await keeping.list_checkpoints("r")
    # two newest, plus the paused one however old: it is where the question can be
    # answered differently
    assert [i.status for i in infos] == ["paused", "running", "completed"]
    assert infos[0].checkpoint_id == paused.checkpoint_id
    other = await workflow.run(
        responses=[question.create_response(False)], run_id="r", checkpoint=paused.checkpoint_id
    )
    assert other.output == "e-1=True, e-2=False"
    keeping.close()

    # prune by hand, on a store that keeps everything
    workflow = expenses(store)
    paused = await workflow.run(BATCH, run_id="p")
    [question] = paused.requests
    await workflow.run(responses=[question.create_response(True)], run_id="p")
    before = await store.list_checkpoints("p")
    assert await store.prune("p", keep_last=1) == len(before) - 2
    assert [i.status for i in await store.list_checkpoints("p")] == ["paused", "completed"]
    assert await store.prune("p", keep_last=1) == 0
    with pytest.raises(ValueError, match="keep_last must be a whole number"):
        await store.prune("p", keep_last=0)
    with pytest.raises(ValueError, match="keep_last must be a whole number"):
        InMemoryCheckpointStore(keep_last=True)


async def test_runs_lists_the_latest_checkpoint_of_each_run(store: Store, tmp_path: Path) -> None:
    await expenses(store).run(BATCH, run_id="a")
    await Flow(tmp_path / "log", mode="ok").build(store).run(5, run_id="b")
    paused = await expenses(store).run(BATCH, run_id="c")
    [question] = paused.requests
    await expenses(store).run(responses=[question.create_response(True)], run_id="c")
    every = await store.runs()
    assert [(i.run_id, i.status) for i in every] == [
        ("a", "paused"),
        ("b", "completed"),
        ("c", "completed"),
    ]
    assert [i.run_id for i in await store.runs(workflow="expense-approval")] == ["a", "c"]
    assert [i.run_id for i in await store.runs(status="paused")] == ["a"]
    assert [i.run_id for i in await store.runs(workflow="replay", status="completed")] == ["b"]
    assert await store.runs(workflow="nope") == []
    with pytest.raises(ValueError, match="status must be one of running, paused"):
        await store.runs(status="done")  # type: ignore[arg-type]  # the mistake under test
