"""Checkpoint stores: in memory, and the embedded default on SQLite."""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread

from agentcore.workflows._checkpoint import CheckpointInfo, CheckpointRecord

if TYPE_CHECKING:
    import sqlite3

__all__ = ["InMemoryCheckpointStore", "SqliteCheckpointStore"]


def _info(record: CheckpointRecord) -> CheckpointInfo:
    return CheckpointInfo(
        record.run_id,
        record.checkpoint_id,
        record.parent_id,
        record.superstep,
        record.status,
        record.created_at,
    )


class InMemoryCheckpointStore:
    """Checkpoints in a dict: for tests and single-process use."""

    def __init__(self) -> None:
        self._runs: dict[str, list[CheckpointRecord]] = {}
        self._pending: dict[tuple[str, str], dict[int, str]] = {}

    async def save(self, record: CheckpointRecord) -> None:
        self._runs.setdefault(record.run_id, []).append(record)

    async def load(self, run_id: str, checkpoint_id: str | None = None) -> CheckpointRecord | None:
        records = self._runs.get(run_id, [])
        if checkpoint_id is None:
            return records[-1] if records else None
        return next((r for r in records if r.checkpoint_id == checkpoint_id), None)

    async def list_checkpoints(self, run_id: str) -> Sequence[CheckpointInfo]:
        return [_info(r) for r in self._runs.get(run_id, [])]

    async def delete(self, run_id: str) -> None:
        self._runs.pop(run_id, None)
        for key in [k for k in self._pending if k[0] == run_id]:
            del self._pending[key]

    async def save_pending_write(
        self, run_id: str, checkpoint_id: str, ordinal: int, payload: str
    ) -> None:
        self._pending.setdefault((run_id, checkpoint_id), {})[ordinal] = payload

    async def load_pending_writes(self, run_id: str, checkpoint_id: str) -> Sequence[str]:
        found = self._pending.get((run_id, checkpoint_id), {})
        return [found[ordinal] for ordinal in sorted(found)]


_SCHEMA = """
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
CREATE TABLE IF NOT EXISTS agentcore_workflow_pending_writes (
    run_id TEXT NOT NULL,
    checkpoint_id TEXT NOT NULL,
    ordinal INTEGER NOT NULL,
    payload TEXT NOT NULL,
    PRIMARY KEY (run_id, checkpoint_id, ordinal)
);
"""

_COLUMNS = (
    "run_id, checkpoint_id, parent_id, superstep, status, workflow, version, created_at, "
    "format, payload"
)


class SqliteCheckpointStore:
    """The embedded default: a SQLite file, used from worker threads (the event loop
    never blocks), WAL journaling, one transaction per save, saves shielded from
    cancellation so a record is written whole or not at all. Several processes may
    share one file; only one should drive a given run at a time."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path: str = os.fspath(path)
        self._local = threading.local()
        self._lock = threading.Lock()
        self._connections: list[sqlite3.Connection] = []
        self._closed = False

    def _connection(self) -> sqlite3.Connection:
        if self._closed:
            raise RuntimeError(f"SqliteCheckpointStore({self.path!r}) is closed")
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            import sqlite3  # only stores that are used pay for the import

            conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA busy_timeout=5000")
            conn.executescript(_SCHEMA)
            self._local.conn = conn
            with self._lock:
                self._connections.append(conn)
        return conn

    def _save(self, record: CheckpointRecord) -> None:
        conn = self._connection()
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute(
                f"INSERT INTO agentcore_workflow_checkpoints ({_COLUMNS}) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    record.run_id,
                    record.checkpoint_id,
                    record.parent_id,
                    record.superstep,
                    record.status,
                    record.workflow,
                    record.workflow_version,
                    record.created_at,
                    record.format,
                    record.payload,
                ),
            )
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def _select(self, where: str, args: tuple[Any, ...]) -> list[CheckpointRecord]:
        rows = self._connection().execute(
            f"SELECT {_COLUMNS} FROM agentcore_workflow_checkpoints WHERE {where}", args
        )
        return [CheckpointRecord(*row) for row in rows]

    async def save(self, record: CheckpointRecord) -> None:
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(self._save, record)

    async def load(self, run_id: str, checkpoint_id: str | None = None) -> CheckpointRecord | None:
        args: tuple[str, ...]
        if checkpoint_id is None:
            where, args = "run_id = ? ORDER BY seq DESC LIMIT 1", (run_id,)
        else:
            where, args = "run_id = ? AND checkpoint_id = ?", (run_id, checkpoint_id)
        found = await anyio.to_thread.run_sync(self._select, where, args)
        return found[0] if found else None

    async def list_checkpoints(self, run_id: str) -> Sequence[CheckpointInfo]:
        found = await anyio.to_thread.run_sync(self._select, "run_id = ? ORDER BY seq", (run_id,))
        return [_info(r) for r in found]

    async def delete(self, run_id: str) -> None:
        def delete() -> None:
            conn = self._connection()
            conn.execute("DELETE FROM agentcore_workflow_checkpoints WHERE run_id = ?", (run_id,))
            conn.execute(
                "DELETE FROM agentcore_workflow_pending_writes WHERE run_id = ?", (run_id,)
            )

        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(delete)

    async def save_pending_write(
        self, run_id: str, checkpoint_id: str, ordinal: int, payload: str
    ) -> None:
        def save() -> None:
            self._connection().execute(
                "INSERT OR REPLACE INTO agentcore_workflow_pending_writes "
                "(run_id, checkpoint_id, ordinal, payload) VALUES (?, ?, ?, ?)",
                (run_id, checkpoint_id, ordinal, payload),
            )

        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(save)

    async def load_pending_writes(self, run_id: str, checkpoint_id: str) -> Sequence[str]:
        def load() -> list[str]:
            rows = self._connection().execute(
                "SELECT payload FROM agentcore_workflow_pending_writes "
                "WHERE run_id = ? AND checkpoint_id = ? ORDER BY ordinal",
                (run_id, checkpoint_id),
            )
            return [row[0] for row in rows]

        return await anyio.to_thread.run_sync(load)

    def close(self) -> None:
        """Close every connection this store opened."""
        self._closed = True
        with self._lock:
            for conn in self._connections:
                conn.close()
            self._connections.clear()
