"""PostgresCheckpointStore against a real PostgreSQL server: the semantics of
SqliteCheckpointStore (lineage, pending writes, durability modes, atomic shielded saves,
run claims, retention), with a second process on the same database."""

from __future__ import annotations

import itertools
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import anyio
import psycopg
import pytest
from agentcore_postgres import PostgresCheckpointStore

from agentcore.errors import RunStateError
from agentcore.workflows import (
    CheckpointRecord,
    ExecutorFailedError,
    RunStatus,
    SupportsCombinedClaims,
    SupportsPendingWrites,
    SupportsRunClaims,
)
from tests.workflows._checkpoint_flows import BATCH, expenses
from tests.workflows._claim_flows import RUN_ID
from tests.workflows._counting_store import CountingStore
from tests.workflows._replay_flows import Flow

from .postgres_server import create_database

pytestmark = [pytest.mark.durable_engines, pytest.mark.anyio]
ROOT = Path(__file__).parents[2]
DONE = "counted 5 + flaky 5 (seen 5)"


@pytest.fixture(scope="module")
def database(postgres_url: str) -> str:
    return create_database(postgres_url, f"w_{uuid.uuid4().hex[:12]}")


@pytest.fixture
def store(database: str) -> Iterator[PostgresCheckpointStore]:
    opened = PostgresCheckpointStore(database, prefix=f"t{uuid.uuid4().hex[:10]}")
    yield opened
    opened.close()


async def test_a_paused_run_resumes_by_id_and_keeps_its_lineage(
    store: PostgresCheckpointStore,
) -> None:
    assert isinstance(store, SupportsPendingWrites)
    assert isinstance(store, SupportsRunClaims)
    assert isinstance(store, SupportsCombinedClaims)
    workflow = expenses(store)
    paused = await workflow.run(BATCH, run_id="r")
    snapshot = await workflow.inspect("r")
    assert (snapshot.status, snapshot.checkpoint_id) == ("paused", paused.checkpoint_id)
    [question] = snapshot.requests
    done = await workflow.run(responses=[question.create_response(True)], run_id="r")
    assert done.output == "e-1=True, e-2=True"
    infos = await store.list_checkpoints("r")
    statuses = [i.status for i in infos]
    # the two barriers, the pause, the accepted answer, the two barriers after it, the end
    assert statuses == [
        "running",
        "running",
        "paused",
        "running",
        "running",
        "running",
        "completed",
    ]
    assert all(b.parent_id == a.checkpoint_id for a, b in itertools.pairwise(infos))
    await store.delete("r")
    assert await store.load("r") is None


async def test_finished_work_is_replayed_and_durability_modes_hold(
    store: PostgresCheckpointStore, tmp_path: Path
) -> None:
    counting = CountingStore(store)
    flow = Flow(tmp_path / "log", mode="fail")
    flow.arm()
    with pytest.raises(ExecutorFailedError):
        await flow.build(counting).run(5, run_id="f")
    assert counting.statuses() == ["running", "failed"]
    assert len(counting.writes) == 1  # counted finished before flaky failed
    flow.mode = "ok"
    assert (await flow.build(counting).run(run_id="f")).output == DONE
    assert flow.runs() == 1
    for info in await store.list_checkpoints("f"):  # the closing barrier dropped them
        assert await store.load_pending_writes("f", info.checkpoint_id) == []

    exiting = CountingStore(store)
    assert (await flow.build(exiting).run(5, run_id="e", durability="exit")).output == DONE
    assert exiting.statuses() == ["completed"]
    assert exiting.writes == []


async def test_a_save_is_whole_or_absent(store: PostgresCheckpointStore, database: str) -> None:
    await store.save_pending_write("r", "ck_parent", 0, "{}")
    record = CheckpointRecord("r", "ck_child", "ck_parent", 2, "running", "w", None, "t", 1, "{}")
    writes = f"{store.prefix}_pending_writes"
    with psycopg.connect(database, autocommit=True) as outside:
        outside.execute(
            "CREATE FUNCTION fail_cleanup() RETURNS trigger LANGUAGE plpgsql AS "
            "$$ BEGIN RAISE EXCEPTION 'cleanup failed'; END $$"
        )
        outside.execute(
            f"CREATE TRIGGER fail_cleanup BEFORE DELETE ON {writes} "
            "FOR EACH ROW EXECUTE FUNCTION fail_cleanup()"
        )
        with pytest.raises(psycopg.errors.RaiseException, match="cleanup failed"):
            await store.save(record)
        assert await store.load("r") is None
        assert await store.load_pending_writes("r", "ck_parent") == ["{}"]
        outside.execute(f"DROP TRIGGER fail_cleanup ON {writes}")
        outside.execute("DROP FUNCTION fail_cleanup()")
    with anyio.CancelScope() as scope:
        scope.cancel()
        await store.save(record)  # shielded: written whole although cancelled
    assert await store.load("r") == record
    assert await store.load_pending_writes("r", "ck_parent") == []


async def test_claims_refuse_a_second_driver_and_expire(store: PostgresCheckpointStore) -> None:
    assert await store.claim("r", "first", 60)
    assert await store.claim("r", "first", 60)  # a renewal
    assert not await store.claim("r", "second", 60)
    workflow = expenses(store)
    with pytest.raises(RunStateError, match="run 'r' is being driven by another process"):
        await workflow.run(BATCH, run_id="r")
    await store.release("r", "second")  # not the holder: nothing happens
    assert not await store.claim("r", "second", 60)
    await store.release("r", "first")
    assert await store.claim("r", "crashed", 0.2)
    await anyio.sleep(0.3)  # past its ttl by the server's clock (a wait, not a measurement)
    assert (await workflow.run(BATCH, run_id="r")).status == "paused"
    assert await store.claim("r", "next", 60)  # the run released its claim when it paused
    with pytest.raises(ValueError, match="ttl is a number of seconds above 0"):
        await store.claim("r", "next", 0)


async def test_delete_forgets_the_run_with_its_claim(
    store: PostgresCheckpointStore, tmp_path: Path
) -> None:
    flow = Flow(tmp_path / "log", mode="fail")
    flow.arm()
    with pytest.raises(ExecutorFailedError):
        await flow.build(store).run(5, run_id="r")
    [failed] = [i for i in await store.list_checkpoints("r") if i.status == "failed"]
    assert await store.load_pending_writes("r", failed.parent_id or "") != []
    assert await store.claim("r", "crashed process", 600)  # died holding the claim
    await store.delete("r")
    assert await store.load("r") is None
    assert await store.load_pending_writes("r", failed.parent_id or "") == []
    assert await store.claim("r", "the next process", 60)  # the deleted run's claim is gone
    await store.release("r", "the next process")
    flow.mode = "ok"
    assert (await flow.build(store).run(5, run_id="r")).output == DONE


async def test_a_claim_joins_the_first_load_and_a_release_the_last_save(
    store: PostgresCheckpointStore, database: str
) -> None:
    def record(checkpoint_id: str, parent: str | None, status: RunStatus) -> CheckpointRecord:
        return CheckpointRecord("r", checkpoint_id, parent, 1, status, "w", None, "t", 1, "{}")

    found = await store.claim_and_load("r", "a", 60)
    assert found is not None
    assert (found[0], list(found[1])) == (None, [])  # taken; no such run yet
    first = record("ck_1", None, "running")
    await store.save(first)
    await store.save_pending_write("r", "ck_1", 0, '{"w":0}')
    found = await store.claim_and_load("r", "a", 60)  # a renewal, and the latest record
    assert found is not None
    assert (found[0], list(found[1])) == (first, ['{"w":0}'])
    assert await store.claim_and_load("r", "b", 60) is None  # a's claim holds
    last = [record("ck_2", "ck_1", "running"), record("ck_3", "ck_2", "completed")]
    claims = f"{store.prefix}_claims"
    with psycopg.connect(database, autocommit=True) as outside:  # all of it or none of it
        outside.execute(
            "CREATE FUNCTION fail_release() RETURNS trigger LANGUAGE plpgsql AS "
            "$$ BEGIN RAISE EXCEPTION 'release failed'; END $$"
        )
        outside.execute(
            f"CREATE TRIGGER fail_release BEFORE DELETE ON {claims} "
            "FOR EACH ROW EXECUTE FUNCTION fail_release()"
        )
        with pytest.raises(psycopg.errors.RaiseException, match="release failed"):
            await store.save_and_release(last, "r", "a")
        assert await store.load("r") == first
        assert not await store.claim("r", "b", 60)
        outside.execute(f"DROP TRIGGER fail_release ON {claims}")
        outside.execute("DROP FUNCTION fail_release()")
    await store.save_and_release(last, "r", "a")
    assert [i.checkpoint_id for i in await store.list_checkpoints("r")] == ["ck_1", "ck_2", "ck_3"]
    assert await store.load_pending_writes("r", "ck_1") == []
    assert await store.claim("r", "b", 60)  # released


async def test_a_new_runs_claim_joins_its_first_save(
    store: PostgresCheckpointStore, tmp_path: Path
) -> None:
    def record(checkpoint_id: str, parent: str | None) -> CheckpointRecord:
        return CheckpointRecord("r", checkpoint_id, parent, 1, "running", "w", None, "t", 1, "{}")

    first = record("ck_1", None)
    assert await store.save_and_claim(first, "a", 60)
    assert await store.load("r") == first
    assert not await store.claim("r", "b", 60)  # taken with the save
    assert not await store.save_and_claim(record("ck_2", "ck_1"), "b", 60)  # refused
    assert [i.checkpoint_id for i in await store.list_checkpoints("r")] == ["ck_1"]
    assert await store.save_and_claim(record("ck_2", "ck_1"), "a", 60)  # the holder's
    with pytest.raises(ValueError, match="ttl is a number of seconds above 0"):
        await store.save_and_claim(record("ck_3", "ck_2"), "a", 0)
    flow = Flow(tmp_path / "log", mode="ok")
    done = await flow.build(store).run(5)  # a new run: claimed with its first barrier
    assert done.output == DONE
    assert await store.claim(done.run_id, "b", 60)  # released at its end


async def test_keep_last_prune_and_runs(
    database: str, store: PostgresCheckpointStore, tmp_path: Path
) -> None:
    keeping = PostgresCheckpointStore(database, keep_last=2, prefix=f"k{uuid.uuid4().hex[:10]}")
    try:
        workflow = expenses(keeping)
        paused = await workflow.run(BATCH, run_id="r")
        [question] = paused.requests
        await workflow.run(responses=[question.create_response(True)], run_id="r")
        infos = await keeping.list_checkpoints("r")
        assert [i.status for i in infos] == ["paused", "running", "completed"]
        assert infos[0].checkpoint_id == paused.checkpoint_id
    finally:
        keeping.close()
    workflow = expenses(store)
    paused = await workflow.run(BATCH, run_id="a")
    await Flow(tmp_path / "log", mode="ok").build(store).run(5, run_id="b")
    assert await store.prune("a", keep_last=1) == 2  # the two barriers before the pause
    assert [i.status for i in await store.list_checkpoints("a")] == ["paused"]
    assert [(i.run_id, i.status) for i in await store.runs()] == [
        ("a", "paused"),
        ("b", "completed"),
    ]
    assert [i.run_id for i in await store.runs(workflow="replay", status="completed")] == ["b"]
    assert await store.runs(status="failed") == []
    with pytest.raises(ValueError, match="status must be one of"):
        await store.runs(status="done")  # type: ignore[arg-type]  # the mistake under test
    with pytest.raises(ValueError, match="prefix must be a plain lower-case SQL name"):
        PostgresCheckpointStore(database, prefix="Robert'); DROP TABLE x;--")


async def test_two_processes_cannot_drive_one_run(database: str, tmp_path: Path) -> None:
    def flow(step: str) -> list[str]:
        return [sys.executable, "-m", "tests.workflows._claim_flows", database, str(tmp_path), step]

    def both() -> tuple[str, str]:
        first = subprocess.Popen(flow("drive"), cwd=ROOT, stdout=subprocess.PIPE, text=True)
        try:
            for _ in range(1200):
                if (tmp_path / "waiting").exists() or first.poll() is not None:
                    break
                time.sleep(0.05)
            second = subprocess.run(
                flow("resume"), cwd=ROOT, capture_output=True, text=True, timeout=60, check=True
            )
        finally:
            (tmp_path / "go").touch()
            out, _ = first.communicate(timeout=60)
        return second.stdout.strip(), out.strip()

    refused, finished = await anyio.to_thread.run_sync(both)
    assert refused.startswith(f"refused: run {RUN_ID!r} is being driven by another process")
    assert finished == "completed done 2"


async def test_the_store_lists_runs_as_the_protocol_says(database: str) -> None:
    from tests.workflows._list_runs_conformance import check_list_runs

    fresh = PostgresCheckpointStore(database, prefix=f"l{uuid.uuid4().hex[:10]}")
    try:
        await check_list_runs(fresh)
    finally:
        fresh.close()
