"""The SQLite store's file across versions (a file written with the earlier schema,
its ``(workflow, status)`` index since dropped, still loads, lists and resumes its runs,
and an earlier store opening a newer file finds what it expects), and the store's own
thread: calls run there one at a time in the order made, from any event loop, and the
thread ends with ``close()`` or with the store."""

from __future__ import annotations

import gc
import sqlite3
import threading
from pathlib import Path

import anyio
import pytest

from agentcore.workflows import CheckpointRecord, InMemoryCheckpointStore, SqliteCheckpointStore
from tests.workflows._checkpoint_flows import BATCH, expenses

pytestmark = pytest.mark.anyio

EARLIER_SCHEMA = """
CREATE TABLE IF NOT EXISTS agentcore_workflow_checkpoints (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id TEXT NOT NULL,
    checkpoint_id TEXT NOT NULL,
    parent_id TEXT,
    superstep INTEGER NOT NULL,
    status TEXT NOT NULL,
    workflow TEXT NOT NULL,
    version TEXT,
    format INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    payload TEXT NOT NULL,
    UNIQUE (run_id, checkpoint_id)
);
CREATE INDEX IF NOT EXISTS agentcore_workflow_checkpoints_run
    ON agentcore_workflow_checkpoints (run_id, seq);
CREATE INDEX IF NOT EXISTS agentcore_workflow_checkpoints_status
    ON agentcore_workflow_checkpoints (workflow, status);
CREATE TABLE IF NOT EXISTS agentcore_workflow_pending_writes (
    run_id TEXT NOT NULL,
    checkpoint_id TEXT NOT NULL,
    ordinal INTEGER NOT NULL,
    payload TEXT NOT NULL,
    PRIMARY KEY (run_id, checkpoint_id, ordinal)
);
CREATE TABLE IF NOT EXISTS agentcore_workflow_claims (
    run_id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    expires_at REAL NOT NULL
);
"""
"""The schema as stores wrote it until 2026-11-26 (with the ``(workflow, status)``
index every save had to update)."""


def _indexes(path: Path) -> set[str]:
    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'").fetchall()
    return {name for (name,) in rows if not name.startswith("sqlite_autoindex")}


async def _paused_records() -> list[CheckpointRecord]:
    """The records of a run of ``expenses`` paused on its question, as any store keeps them."""
    memory = InMemoryCheckpointStore()
    await expenses(memory).run(BATCH, run_id="old")
    infos = await memory.list_checkpoints("old")
    records = [await memory.load("old", i.checkpoint_id) for i in infos]
    return [r for r in records if r is not None]


def _write_earlier_file(path: Path, records: list[CheckpointRecord]) -> None:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.executescript(EARLIER_SCHEMA)
    conn.executemany(
        "INSERT INTO agentcore_workflow_checkpoints (run_id, checkpoint_id, parent_id, "
        "superstep, status, workflow, version, created_at, format, payload) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                r.run_id,
                r.checkpoint_id,
                r.parent_id,
                r.superstep,
                r.status,
                r.workflow,
                r.workflow_version,
                r.created_at,
                r.format,
                r.payload,
            )
            for r in records
        ],
    )
    conn.execute(
        "INSERT INTO agentcore_workflow_claims VALUES ('held', 'an earlier process', 1e12)"
    )
    conn.commit()
    conn.close()


async def test_a_file_of_the_earlier_schema_loads_lists_and_resumes_its_runs(
    tmp_path: Path,
) -> None:
    path = tmp_path / "earlier.db"
    records = await _paused_records()
    _write_earlier_file(path, records)
    assert "agentcore_workflow_checkpoints_status" in _indexes(path)

    store = SqliteCheckpointStore(path)
    try:
        [latest] = await store.runs(workflow=records[-1].workflow, status="paused")
        assert latest.checkpoint_id == records[-1].checkpoint_id
        assert await store.load("old") == records[-1]
        assert [i.checkpoint_id for i in await store.list_checkpoints("old")] == [
            r.checkpoint_id for r in records
        ]
        assert not await store.claim("held", "this process", 60)  # its claims hold too
        workflow = expenses(store)
        [question] = (await workflow.inspect("old")).requests
        done = await workflow.run(responses=[question.create_response(True)], run_id="old")
        assert done.output == "e-1=True, e-2=True"
        assert [i.status for i in await store.list_checkpoints("old")][-1] == "completed"
    finally:
        store.close()
    assert "agentcore_workflow_checkpoints_status" not in _indexes(path)

    # a store of the earlier schema opening the file makes its index again and reads
    # every row, the new ones included
    conn = sqlite3.connect(path)
    conn.executescript(EARLIER_SCHEMA)
    statuses = conn.execute(
        "SELECT status FROM agentcore_workflow_checkpoints WHERE run_id = 'old' ORDER BY seq"
    ).fetchall()
    conn.close()
    assert [s for (s,) in statuses][-1] == "completed"
    assert "agentcore_workflow_checkpoints_status" in _indexes(path)


RECORD = CheckpointRecord("r", "ck_1", None, 1, "running", "w", None, "t", 1, "{}")


def _store_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("agentcore-sqlite-store")]


class _HeldStore(SqliteCheckpointStore):
    """Holds its first save (inside the store's thread) until told, noting the thread."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.entered = threading.Event()
        self.proceed = threading.Event()
        self.threads: set[int] = set()

    def _save(self, record: CheckpointRecord) -> None:
        self.threads.add(threading.get_ident())
        if not self.entered.is_set():
            self.entered.set()
            self.proceed.wait(30)
        super()._save(record)

    def _load(self, run_id: str, checkpoint_id: str | None) -> CheckpointRecord | None:
        self.threads.add(threading.get_ident())
        return super()._load(run_id, checkpoint_id)


async def test_calls_run_in_the_stores_thread_in_the_order_made(tmp_path: Path) -> None:
    before = _store_threads()
    store = _HeldStore(tmp_path / "runs.db")
    assert _store_threads() == before  # no thread until the first call
    loaded: list[CheckpointRecord | None] = []

    async def load_while_the_save_is_held() -> None:
        await anyio.to_thread.run_sync(store.entered.wait, 30)
        async with anyio.create_task_group() as tg:

            async def load() -> None:
                loaded.append(await store.load("r"))

            tg.start_soon(load)
            await anyio.sleep(0.05)  # the load is queued behind the held save
            assert loaded == []
            store.proceed.set()

    async with anyio.create_task_group() as tg:
        tg.start_soon(load_while_the_save_is_held)
        await store.save(RECORD)
    assert loaded == [RECORD]  # made after the save began, so it ran after it
    [thread] = [t for t in _store_threads() if t not in before]
    assert store.threads == {thread.ident}
    store.close()
    assert not thread.is_alive()  # close() joins it
    assert _store_threads() == before
    store.close()  # twice does nothing
    with pytest.raises(RuntimeError, match=r"SqliteCheckpointStore\(.*\) is closed"):
        await store.load("r")


async def test_close_lets_the_calls_already_made_finish(tmp_path: Path) -> None:
    store = _HeldStore(tmp_path / "runs.db")
    closed = threading.Event()

    def close() -> None:
        store.close()
        closed.set()

    async def close_while_the_save_is_held() -> None:
        await anyio.to_thread.run_sync(store.entered.wait, 30)
        async with anyio.create_task_group() as tg:
            tg.start_soon(anyio.to_thread.run_sync, close)
            await anyio.sleep(0.05)
            assert not closed.is_set()  # close() waits for the save
            store.proceed.set()

    async with anyio.create_task_group() as tg:
        tg.start_soon(close_while_the_save_is_held)
        await store.save(RECORD)  # completes: it was made before close()
    assert closed.is_set()
    with sqlite3.connect(tmp_path / "runs.db") as conn:
        rows = conn.execute("SELECT checkpoint_id FROM agentcore_workflow_checkpoints").fetchall()
    assert rows == [("ck_1",)]
    with pytest.raises(RuntimeError, match="is closed"):
        await store.save(RECORD)


def test_a_store_serves_one_event_loop_after_another(tmp_path: Path) -> None:
    store = SqliteCheckpointStore(tmp_path / "runs.db")
    try:
        anyio.run(store.save, RECORD, backend="asyncio")
        assert anyio.run(store.load, "r", backend="trio") == RECORD
        anyio.run(store.delete, "r", backend="asyncio")
        assert anyio.run(store.load, "r", backend="trio") is None
    finally:
        store.close()


def test_a_store_dropped_without_close_ends_its_thread(tmp_path: Path) -> None:
    before = _store_threads()
    store = SqliteCheckpointStore(tmp_path / "runs.db")
    anyio.run(store.save, RECORD)
    [thread] = [t for t in _store_threads() if t not in before]
    del store
    gc.collect()
    thread.join(30)
    assert not thread.is_alive()
