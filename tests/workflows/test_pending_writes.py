"""Pending writes: what finished inside a superstep that then failed (or was cancelled)
is kept with the checkpoint, and a resume replays it instead of running it again; in
this process (from the value and from a store) and in a fresh one, on asyncio and trio."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from agentcore.serialization import to_json
from agentcore.workflows import (
    CheckpointStore,
    ExecutorFailedError,
    InMemoryCheckpointStore,
    SqliteCheckpointStore,
    SupportsPendingWrites,
    WorkflowCheckpoint,
)
from tests.workflows._counting_store import CountingStore
from tests.workflows._replay_flows import Flow, Tally

pytestmark = pytest.mark.anyio
ROOT = Path(__file__).parents[2]
DONE = "counted 5 + flaky 5 (seen 5)"


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[CheckpointStore]:
    if request.param == "memory":
        yield InMemoryCheckpointStore()
        return
    sqlite = SqliteCheckpointStore(tmp_path / "runs.db")
    yield sqlite
    sqlite.close()


async def _fail(
    flow: Flow,
    *,
    store: CheckpointStore | None = None,
    run_id: str | None = None,
    checkpoint: WorkflowCheckpoint | None = None,
) -> WorkflowCheckpoint:
    flow.mode = "fail"
    finished = flow.arm()
    if checkpoint is not None:
        finished.set()  # counted is replayed this time, so it will not set the event
    workflow = flow.build(store)
    if checkpoint is None:
        running = workflow.run(5, run_id=run_id)
    else:
        running = workflow.run(checkpoint=checkpoint)
    with pytest.raises(ExecutorFailedError) as info:
        await running
    assert info.value.executor_id == "flaky"
    checkpoint = info.value.checkpoint
    assert checkpoint is not None
    return checkpoint


async def test_a_finished_sibling_is_replayed_not_rerun_from_the_value(tmp_path: Path) -> None:
    flow = Flow(tmp_path / "log", mode="fail")
    failed = await _fail(flow)
    assert flow.runs() == 1
    assert failed.status == "failed"
    assert failed.state is not None
    assert [d.executor_id for d in failed.state.finished.values()] == ["counted"]
    flow.mode = "ok"
    workflow = flow.build()
    done = await workflow.run(checkpoint=failed)
    assert flow.runs() == 1
    assert done.output == DONE
    types = [(e.type, getattr(e, "executor_id", None)) for e in done.events]
    assert ("executor_replayed", "counted") in types
    assert ("executor_invoked", "flaky") in types
    assert ("executor_invoked", "counted") not in types
    progress = [e for e in done.events if e.type == "executor_event"]
    assert [(e.name, e.data) for e in progress] == [("progress", {"counted": 5})]
    final = done.checkpoint
    assert final is not None
    assert final.state is not None
    assert final.state.states["counted"] == Tally(1)
    assert final.state.finished == {}


async def test_pending_writes_survive_json_and_a_store(
    tmp_path: Path, store: CheckpointStore
) -> None:
    flow = Flow(tmp_path / "log", mode="fail")
    failed = await _fail(flow, store=store, run_id="r")
    flow.mode = "ok"
    workflow = flow.build(store)
    restored = workflow.restore(to_json(failed))
    assert restored.state is not None
    assert failed.state is not None
    assert restored.state.finished == failed.state.finished
    done = await workflow.run(run_id="r")
    assert done.output == DONE
    assert flow.runs() == 1
    assert [i.status for i in await store.list_checkpoints("r")][-1] == "completed"


async def test_emitted_values_of_stored_types_replay_and_unstorable_work_reruns(
    tmp_path: Path,
) -> None:
    flow = Flow(tmp_path / "log", mode="fail")
    flow.event_data = Tally(7)  # not JSON, but a type the workflow stores
    failed = await _fail(flow)
    flow.mode = "ok"
    done = await flow.build().run(checkpoint=flow.build().restore(to_json(failed)))
    assert [e.data for e in done.events if e.type == "executor_event"] == [Tally(7)]
    assert flow.runs() == 1

    flow.event_data = object()  # no checkpoint key: this invocation cannot be saved
    failed = await _fail(flow)
    assert flow.runs() == 2
    flow.mode = "ok"
    restored = flow.build().restore(to_json(failed))
    assert restored.state is not None
    assert restored.state.finished == {}
    assert (await flow.build().run(checkpoint=restored)).output == DONE
    assert flow.runs() == 3


async def test_work_is_found_by_executor_and_message_when_the_order_changes(
    tmp_path: Path,
) -> None:
    flow = Flow(tmp_path / "log", mode="fail")
    failed = await _fail(flow)
    assert failed.state is not None
    assert list(failed.state.finished) == [0]  # counted ran first in this definition
    flow.mode = "ok"
    reordered = flow.build(flaky_first=True)  # a compatible edit: flaky now commits first
    done = await reordered.run(checkpoint=reordered.restore(to_json(failed)))
    assert flow.runs() == 1
    replayed = [e for e in done.events if e.type == "executor_replayed"]
    assert [(e.executor_id, e.ordinal) for e in replayed] == [("counted", 1)]
    assert done.output == DONE  # the fan-in orders by its own sources, not commit order


async def test_a_second_failure_keeps_the_replayed_work(tmp_path: Path) -> None:
    flow = Flow(tmp_path / "log", mode="fail")
    first = await _fail(flow)
    second = await _fail(flow, checkpoint=first)
    assert flow.runs() == 1
    assert second.state is not None
    assert [d.executor_id for d in second.state.finished.values()] == ["counted"]
    assert second.parent_id == first.checkpoint_id
    flow.mode = "ok"
    assert (await flow.build().run(checkpoint=second)).output == DONE
    assert flow.runs() == 1


async def test_cancelled_superstep_keeps_finished_work(tmp_path: Path) -> None:
    store = InMemoryCheckpointStore()
    flow = Flow(tmp_path / "log", mode="hang")
    finished = flow.arm()
    workflow = flow.build(store)

    async def cancel_once_counted_finished(scope: anyio.CancelScope) -> None:
        await finished.wait()
        scope.cancel()

    async with anyio.create_task_group() as tg:
        tg.start_soon(cancel_once_counted_finished, tg.cancel_scope)
        await workflow.run(5, run_id="c")
    latest = await store.load("c")
    assert latest is not None
    assert latest.status == "cancelled"
    assert flow.runs() == 1
    flow.mode = "ok"
    done = await workflow.run(run_id="c")
    assert done.output == DONE
    assert flow.runs() == 1


async def test_a_fresh_process_does_not_redo_finished_work(tmp_path: Path) -> None:
    db, log = str(tmp_path / "runs.db"), str(tmp_path / "log")

    def step(name: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "tests.workflows._replay_flows", db, log, name],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        return done.stdout.strip()

    assert await anyio.to_thread.run_sync(step, "start") == "failed ExecutorFailedError"
    assert await anyio.to_thread.run_sync(step, "resume") == f"completed {DONE}"
    assert Flow(Path(log), mode="ok").runs() == 1


async def test_finished_work_is_saved_as_it_finishes(
    tmp_path: Path, store: CheckpointStore
) -> None:
    """Each finished invocation of a superstep with several is saved at once under the
    checkpoint the superstep started from, so a resume from that checkpoint replays it
    even when no failed or cancelled checkpoint was ever written (a crash)."""
    assert isinstance(store, SupportsPendingWrites)
    flow = Flow(tmp_path / "log", mode="hang")
    finished = flow.arm()
    workflow = flow.build(store)

    async def cancel_once_counted_finished(scope: anyio.CancelScope) -> None:
        await finished.wait()
        scope.cancel()

    async with anyio.create_task_group() as tg:
        tg.start_soon(cancel_once_counted_finished, tg.cancel_scope)
        await workflow.run(5, run_id="w")
    infos = await store.list_checkpoints("w")
    assert [i.status for i in infos] == ["running", "cancelled"]
    barrier = infos[0].checkpoint_id
    saved = await store.load_pending_writes("w", barrier)
    assert len(saved) == 1  # counted's; flaky never finished
    flow.mode = "ok"
    # resume from the barrier checkpoint, as a process that died before the cancelled
    # checkpoint was written would: its own state holds no finished work
    barrier_state = workflow.restore(await _record(store, "w", barrier)).state
    assert barrier_state is not None
    assert barrier_state.finished == {}
    done = await workflow.run(run_id="w", checkpoint=barrier)
    assert done.output == DONE
    assert flow.runs() == 1
    replayed = [e.executor_id for e in done.events if e.type == "executor_replayed"]
    assert replayed == ["counted"]


async def _record(store: CheckpointStore, run_id: str, checkpoint_id: str) -> Any:
    record = await store.load(run_id, checkpoint_id)
    assert record is not None
    return record


async def test_a_lone_invocation_saves_no_pending_write(
    tmp_path: Path, store: CheckpointStore
) -> None:
    assert isinstance(store, (InMemoryCheckpointStore, SqliteCheckpointStore))
    counting = CountingStore(store)
    flow = Flow(tmp_path / "log", mode="ok")
    assert (await flow.build(counting).run(5, run_id="one")).output == DONE
    infos = await store.list_checkpoints("one")
    # supersteps 1 and 3 have one invocation; 2 has two (both saved as they finished,
    # under the barrier checkpoint of superstep 1)
    barrier_1 = next(i.checkpoint_id for i in infos if i.superstep == 1)
    assert sorted(counting.writes) == [(barrier_1, 0), (barrier_1, 1)]
    # the barrier that closed superstep 2 dropped them in its own save
    for info in infos:
        assert await store.load_pending_writes("one", info.checkpoint_id) == []


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
async def test_a_killed_process_does_not_redo_finished_work(tmp_path: Path) -> None:
    """The process dies mid-superstep (SIGKILL: no failed or cancelled checkpoint is
    written); a fresh process resumes from the SQLite file and does not run the
    invocation that had finished again."""
    db, log = str(tmp_path / "runs.db"), tmp_path / "log"

    def hang_then_kill() -> None:
        child = subprocess.Popen(
            [sys.executable, "-m", "tests.workflows._replay_flows", db, str(log), "hang"],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            for _ in range(1200):  # until counted's pending write is in the file
                if _pending_rows(db) or child.poll() is not None:
                    break
                time.sleep(0.05)
        finally:
            os.kill(child.pid, signal.SIGKILL)
            child.wait(timeout=30)
        assert child.returncode == -signal.SIGKILL  # killed, not ended on its own

    await anyio.to_thread.run_sync(hang_then_kill)
    assert Flow(log, mode="ok").runs() == 1
    resumed = await anyio.to_thread.run_sync(
        lambda: subprocess.run(
            [sys.executable, "-m", "tests.workflows._replay_flows", db, str(log), "resume"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        ).stdout.strip()
    )
    assert resumed == f"completed {DONE}"
    assert Flow(log, mode="ok").runs() == 1


def _pending_rows(db: str) -> int:
    if not os.path.exists(db):
        return 0
    conn = sqlite3.connect(db)
    try:
        row = conn.execute("SELECT count(*) FROM agentcore_workflow_pending_writes").fetchone()
        return int(row[0])
    except sqlite3.OperationalError:  # the table is not there yet
        return 0
    finally:
        conn.close()
