"""Checkpoint stores: in memory, and the embedded default on SQLite.

Both keep pending writes (``SupportsPendingWrites``) and run claims
(``SupportsRunClaims``), and join a claim to the load after it (or to a new run's
first save) and a release to the saves before it (``SupportsCombinedClaims``: one
transaction on SQLite). A save that closes a superstep (a ``running``, ``paused`` or
``completed`` record) drops the run's pending writes (those of the superstep it
closes, kept under its parent or, after a resume from a failed checkpoint, under an
older barrier), and ``keep_last`` prunes older records of the run, in the same step
(one transaction on SQLite); the latest ``paused`` record of a run is never pruned.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar, get_args

from agentcore.workflows._checkpoint import CheckpointInfo, CheckpointRecord, RunStatus
from agentcore.workflows._store_thread import StoreThread

if TYPE_CHECKING:
    import sqlite3

__all__ = ["InMemoryCheckpointStore", "SqliteCheckpointStore"]

_STATUSES: tuple[str, ...] = get_args(RunStatus)
_T = TypeVar("_T")
_Statement: TypeAlias = "tuple[str, tuple[Any, ...]]"
_KEEPS_WRITES = frozenset({"failed", "cancelled"})
"""Statuses whose save leaves the run's pending writes alone (a resume from the
barrier before a failed or cancelled superstep still replays them)."""


def _info(record: CheckpointRecord) -> CheckpointInfo:
    return CheckpointInfo(
        record.run_id,
        record.checkpoint_id,
        record.parent_id,
        record.superstep,
        record.status,
        record.created_at,
    )


def _check_keep_last(keep_last: object) -> int | None:
    if keep_last is None:
        return None
    if isinstance(keep_last, bool) or not isinstance(keep_last, int) or keep_last < 1:
        raise ValueError(
            f"keep_last must be a whole number of checkpoints of at least 1 (or None to keep "
            f"every checkpoint), got {keep_last!r}"
        )
    return keep_last


def _check_status(status: str | None) -> None:
    if status is not None and status not in _STATUSES:
        raise ValueError(f"status must be one of {', '.join(_STATUSES)} (or None), got {status!r}")


def _check_ttl(ttl: float) -> None:
    if not ttl > 0:
        raise ValueError(f"a claim's ttl is a number of seconds above 0, got {ttl!r}")


class InMemoryCheckpointStore:
    """Checkpoints in a dict: for tests and single-process use. Claims hold within
    this process only. It keeps what the SQLite store keeps: records whose payload is
    the checkpoint's JSON, so a run that saves here proves its checkpoints serialize
    (a run writes them with ``_fastpaths.RecordWriter``). Its methods never suspend,
    so the engine calls them without a shielding cancel scope: no cancellation can
    land inside them (a subclass gets the scope)."""

    def __init__(self, *, keep_last: int | None = None) -> None:
        self.keep_last: int | None = _check_keep_last(keep_last)
        self._runs: dict[str, list[CheckpointRecord]] = {}
        self._pending: dict[str, dict[str, dict[int, str]]] = {}  # run, checkpoint, ordinal
        self._claims: dict[str, tuple[str, float]] = {}

    async def save(self, record: CheckpointRecord) -> None:
        run_id, runs = record.run_id, self._runs
        records = runs.pop(run_id, None)  # reinserted: runs() order
        if records is None:
            runs[run_id] = [record]
        else:
            records.append(record)
            runs[run_id] = records
        if self._pending and record.status not in _KEEPS_WRITES:
            self._pending.pop(run_id, None)
        if self.keep_last is not None:
            self._prune(record.run_id, self.keep_last)

    async def load(self, run_id: str, checkpoint_id: str | None = None) -> CheckpointRecord | None:
        records = self._runs.get(run_id, [])
        if checkpoint_id is None:
            return records[-1] if records else None
        return next((r for r in records if r.checkpoint_id == checkpoint_id), None)

    async def list_checkpoints(self, run_id: str) -> Sequence[CheckpointInfo]:
        return [_info(r) for r in self._runs.get(run_id, [])]

    async def delete(self, run_id: str) -> None:
        """Forget ``run_id``: its checkpoints, pending writes and claim."""
        self._runs.pop(run_id, None)
        self._pending.pop(run_id, None)
        self._claims.pop(run_id, None)

    async def prune(self, run_id: str, *, keep_last: int) -> int:
        """Delete all but the newest ``keep_last`` checkpoints of ``run_id`` (never its
        latest ``paused`` one); the number deleted."""
        return self._prune(run_id, _check_keep_last(keep_last) or 1)

    def _prune(self, run_id: str, keep_last: int) -> int:
        records = self._runs.get(run_id, [])
        if len(records) <= keep_last:
            return 0
        paused = next((r for r in reversed(records) if r.status == "paused"), None)
        kept = [r for n, r in enumerate(records) if n >= len(records) - keep_last or r is paused]
        self._runs[run_id] = kept
        ids = {r.checkpoint_id for r in kept}
        pending = self._pending.get(run_id, {})
        for checkpoint_id in [c for c in pending if c not in ids]:
            del pending[checkpoint_id]
        return len(records) - len(kept)

    async def runs(
        self, *, workflow: str | None = None, status: RunStatus | None = None
    ) -> Sequence[CheckpointInfo]:
        """The latest checkpoint of each stored run, the most recently saved last;
        only runs of ``workflow`` and/or whose latest status is ``status`` if given."""
        _check_status(status)
        return [
            _info(records[-1])
            for records in self._runs.values()
            if records
            and (workflow is None or records[-1].workflow == workflow)
            and (status is None or records[-1].status == status)
        ]

    async def save_pending_write(
        self, run_id: str, checkpoint_id: str, ordinal: int, payload: str
    ) -> None:
        self._pending.setdefault(run_id, {}).setdefault(checkpoint_id, {})[ordinal] = payload

    async def load_pending_writes(self, run_id: str, checkpoint_id: str) -> Sequence[str]:
        found = self._pending.get(run_id, {}).get(checkpoint_id, {})
        return [found[ordinal] for ordinal in sorted(found)]

    async def claim(self, run_id: str, owner: str, ttl: float) -> bool:
        _check_ttl(ttl)
        now = time.monotonic()
        held = self._claims.get(run_id)
        if held is not None and held[0] != owner and held[1] > now:
            return False
        self._claims[run_id] = (owner, now + ttl)
        return True

    async def release(self, run_id: str, owner: str) -> None:
        held = self._claims.get(run_id)
        if held is not None and held[0] == owner:
            del self._claims[run_id]

    async def claim_and_load(
        self, run_id: str, owner: str, ttl: float, checkpoint_id: str | None = None
    ) -> tuple[CheckpointRecord | None, Sequence[str]] | None:
        """``claim``, then (if taken) ``load`` and the record's pending writes: none of
        these methods suspends, so nothing runs between them."""
        if not await self.claim(run_id, owner, ttl):
            return None
        record = await self.load(run_id, checkpoint_id)
        if record is None:
            return None, ()
        return record, await self.load_pending_writes(run_id, record.checkpoint_id)

    async def save_and_claim(self, record: CheckpointRecord, owner: str, ttl: float) -> bool:
        """``claim`` the record's run and, if taken, ``save`` it, with nothing between
        them; ``False`` (nothing saved) when another owner holds the claim."""
        if not await self.claim(record.run_id, owner, ttl):
            return False
        await self.save(record)
        return True

    async def save_and_release(
        self, records: Sequence[CheckpointRecord], run_id: str, owner: str
    ) -> None:
        """``save`` each record, then ``release``, with nothing between them."""
        for record in records:
            await self.save(record)
        await self.release(run_id, owner)

    def close(self) -> None:
        """Nothing to close (there for parity with the SQLite store)."""


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
DROP INDEX IF EXISTS agentcore_workflow_checkpoints_status;
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
"""The tables of a store's file. A file written before the ``(workflow, status)`` index
was dropped (it cost every save a fourth B-tree write, for the ``runs()`` listing
alone, which reads each run's latest row through ``(run_id, seq)`` anyway) loses it
the first time a store opens it; a store of that time opening a newer file makes it
again; neither changes what the other reads."""

_COLUMNS = (
    "run_id, checkpoint_id, parent_id, superstep, status, workflow, version, created_at, "
    "format, payload"
)

_INSERT = (
    f"INSERT INTO agentcore_workflow_checkpoints ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)

_CLAIM = """
INSERT INTO agentcore_workflow_claims (run_id, owner, expires_at) VALUES (?1, ?2, ?3 + ?4)
ON CONFLICT (run_id) DO UPDATE SET owner = ?2, expires_at = ?3 + ?4
WHERE agentcore_workflow_claims.owner = ?2 OR agentcore_workflow_claims.expires_at <= ?3
"""
"""Take the claim if it is free, expired or already the owner's: one statement whose
changed-row count (1 or 0) says whether it was taken."""

_PRUNE = """
DELETE FROM agentcore_workflow_checkpoints
WHERE run_id = ?1
  AND seq NOT IN (
      SELECT seq FROM agentcore_workflow_checkpoints WHERE run_id = ?1 ORDER BY seq DESC LIMIT ?2)
  AND seq != coalesce((
      SELECT max(seq) FROM agentcore_workflow_checkpoints WHERE run_id = ?1 AND status = 'paused'
  ), -1)
"""

_PRUNE_WRITES = """
DELETE FROM agentcore_workflow_pending_writes
WHERE run_id = ?1
  AND checkpoint_id NOT IN (
      SELECT checkpoint_id FROM agentcore_workflow_checkpoints WHERE run_id = ?1)
"""


def _release(run_id: str, owner: str) -> _Statement:
    return ("DELETE FROM agentcore_workflow_claims WHERE run_id = ? AND owner = ?", (run_id, owner))


async def _in_thread(thread: StoreThread, func: Callable[..., _T], *args: Any) -> _T:
    """``func(*args)`` in the store's thread, waited for shielded from cancellation: the
    one way every call goes (``tests/workflows/test_store_round_trips.py`` counts them)."""
    return await thread.call(func, *args)


class SqliteCheckpointStore:
    """The embedded default: a SQLite file, used from a thread of the store's own (the
    event loop never blocks; one connection, the calls in the order they were made),
    WAL journaling, one ``BEGIN IMMEDIATE`` transaction per save (with its
    pending-write cleanup and pruning; the run's last saves share one with its claim's
    release), every call waited for shielded from cancellation so a record is written
    whole or not at all. Several processes may share one file; run claims (a row per
    run in ``agentcore_workflow_claims``) keep two of them from driving one run at
    once. ``close()`` ends the thread (after the calls already made) and the
    connection; a store dropped without it ends its thread when collected."""

    def __init__(self, path: str | os.PathLike[str], *, keep_last: int | None = None) -> None:
        self.path: str = os.fspath(path)
        self.keep_last: int | None = _check_keep_last(keep_last)
        self._thread = StoreThread(f"agentcore-sqlite-store:{os.path.basename(self.path)}")
        self._conn: sqlite3.Connection | None = None
        self._closed = False

    def _connection(self) -> sqlite3.Connection:
        """The store's connection (in the store's thread, its only user; ``_call``
        refuses calls once the store is closed, and ``close()`` lets those already made
        run first)."""
        conn = self._conn
        if conn is None:
            import sqlite3  # only stores that are used pay for the import

            conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA busy_timeout=5000")
            conn.executescript(_SCHEMA)
            self._conn = conn
        return conn

    async def _call(self, func: Callable[..., _T], *args: Any) -> _T:
        if self._closed:
            raise RuntimeError(f"SqliteCheckpointStore({self.path!r}) is closed")
        return await _in_thread(self._thread, func, *args)

    def _transaction(self, body: Callable[[sqlite3.Connection], _T]) -> _T:
        """``body(connection)`` in one ``BEGIN IMMEDIATE`` transaction (all or none)."""
        conn = self._connection()
        conn.execute("BEGIN IMMEDIATE")
        try:
            done = body(conn)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        return done

    def _write(self, *statements: _Statement) -> list[int]:
        """Run ``statements`` in one transaction; the rows each changed."""
        return self._transaction(
            lambda conn: [conn.execute(sql, args).rowcount for sql, args in statements]
        )

    def _save(self, record: CheckpointRecord) -> None:
        self._write(*self._saving(record))

    def _saving(self, record: CheckpointRecord) -> list[_Statement]:
        """The statements of one save (run in one transaction)."""
        statements: list[_Statement] = [(_INSERT, record.row())]
        if record.status not in _KEEPS_WRITES:
            statements.append(
                ("DELETE FROM agentcore_workflow_pending_writes WHERE run_id = ?", (record.run_id,))
            )
        if self.keep_last is not None:
            statements.append((_PRUNE, (record.run_id, self.keep_last)))
            statements.append((_PRUNE_WRITES, (record.run_id,)))
        return statements

    def _select(self, where: str, args: tuple[Any, ...]) -> list[CheckpointRecord]:
        rows = self._connection().execute(
            f"SELECT {_COLUMNS} FROM agentcore_workflow_checkpoints WHERE {where}", args
        )
        return [CheckpointRecord(*row) for row in rows]

    async def save(self, record: CheckpointRecord) -> None:
        await self._call(self._save, record)

    def _load(self, run_id: str, checkpoint_id: str | None) -> CheckpointRecord | None:
        args: tuple[str, ...]
        if checkpoint_id is None:
            where, args = "run_id = ? ORDER BY seq DESC LIMIT 1", (run_id,)
        else:
            where, args = "run_id = ? AND checkpoint_id = ?", (run_id, checkpoint_id)
        found = self._select(where, args)
        return found[0] if found else None

    async def load(self, run_id: str, checkpoint_id: str | None = None) -> CheckpointRecord | None:
        return await self._call(self._load, run_id, checkpoint_id)

    async def list_checkpoints(self, run_id: str) -> Sequence[CheckpointInfo]:
        found = await self._call(self._select, "run_id = ? ORDER BY seq", (run_id,))
        return [_info(r) for r in found]

    async def delete(self, run_id: str) -> None:
        """Forget ``run_id``: its checkpoints, pending writes and claim (one transaction)."""
        await self._call(
            self._write,
            ("DELETE FROM agentcore_workflow_checkpoints WHERE run_id = ?", (run_id,)),
            ("DELETE FROM agentcore_workflow_pending_writes WHERE run_id = ?", (run_id,)),
            ("DELETE FROM agentcore_workflow_claims WHERE run_id = ?", (run_id,)),
        )

    async def prune(self, run_id: str, *, keep_last: int) -> int:
        """Delete all but the newest ``keep_last`` checkpoints of ``run_id`` (never its
        latest ``paused`` one) and their pending writes; the number of checkpoints
        deleted."""
        keep = _check_keep_last(keep_last) or 1
        changed: list[int] = await self._call(
            self._write, (_PRUNE, (run_id, keep)), (_PRUNE_WRITES, (run_id,))
        )
        return changed[0]

    async def runs(
        self, *, workflow: str | None = None, status: RunStatus | None = None
    ) -> Sequence[CheckpointInfo]:
        """The latest checkpoint of each stored run, the most recently saved last;
        only runs of ``workflow`` and/or whose latest status is ``status`` if given."""
        _check_status(status)
        where = "seq IN (SELECT max(seq) FROM agentcore_workflow_checkpoints GROUP BY run_id)"
        args: list[Any] = []
        if workflow is not None:
            where += " AND workflow = ?"
            args.append(workflow)
        if status is not None:
            where += " AND status = ?"
            args.append(status)
        found = await self._call(self._select, where + " ORDER BY seq", tuple(args))
        return [_info(r) for r in found]

    async def save_pending_write(
        self, run_id: str, checkpoint_id: str, ordinal: int, payload: str
    ) -> None:
        def save() -> None:
            self._connection().execute(
                "INSERT OR REPLACE INTO agentcore_workflow_pending_writes "
                "(run_id, checkpoint_id, ordinal, payload) VALUES (?, ?, ?, ?)",
                (run_id, checkpoint_id, ordinal, payload),
            )

        await self._call(save)

    def _load_pending_writes(self, run_id: str, checkpoint_id: str) -> list[str]:
        rows = self._connection().execute(
            "SELECT payload FROM agentcore_workflow_pending_writes "
            "WHERE run_id = ? AND checkpoint_id = ? ORDER BY ordinal",
            (run_id, checkpoint_id),
        )
        return [row[0] for row in rows]

    async def load_pending_writes(self, run_id: str, checkpoint_id: str) -> Sequence[str]:
        return await self._call(self._load_pending_writes, run_id, checkpoint_id)

    @staticmethod
    def _claim_in(conn: sqlite3.Connection, run_id: str, owner: str, ttl: float) -> bool:
        """Inside a transaction: take the claim if it is free, expired or ``owner``'s."""
        return conn.execute(_CLAIM, (run_id, owner, time.time(), ttl)).rowcount == 1

    def _claim(self, run_id: str, owner: str, ttl: float) -> bool:
        return self._transaction(lambda conn: self._claim_in(conn, run_id, owner, ttl))

    async def claim(self, run_id: str, owner: str, ttl: float) -> bool:
        """Take (or renew) the claim on ``run_id`` for ``ttl`` seconds; ``False`` when
        another owner holds an unexpired one. Wall-clock time, shared by processes."""
        _check_ttl(ttl)
        taken: bool = await self._call(self._claim, run_id, owner, ttl)
        return taken

    async def release(self, run_id: str, owner: str) -> None:
        await self._call(self._write, _release(run_id, owner))

    def _claim_and_load(
        self, run_id: str, owner: str, ttl: float, checkpoint_id: str | None
    ) -> tuple[CheckpointRecord | None, list[str]] | None:
        def body(conn: sqlite3.Connection) -> tuple[CheckpointRecord | None, list[str]] | None:
            if not self._claim_in(conn, run_id, owner, ttl):
                return None
            record = self._load(run_id, checkpoint_id)
            if record is None:
                return None, []
            return record, self._load_pending_writes(run_id, record.checkpoint_id)

        return self._transaction(body)

    async def claim_and_load(
        self, run_id: str, owner: str, ttl: float, checkpoint_id: str | None = None
    ) -> tuple[CheckpointRecord | None, Sequence[str]] | None:
        """``claim`` and, if taken, ``load`` with the record's pending writes, in one
        call in the store's thread and one transaction (the read sees the state the claim
        was taken in: no other process can write between them)."""
        _check_ttl(ttl)
        found: tuple[CheckpointRecord | None, Sequence[str]] | None = await self._call(
            self._claim_and_load, run_id, owner, ttl, checkpoint_id
        )
        return found

    def _save_and_claim(self, record: CheckpointRecord, owner: str, ttl: float) -> bool:
        def body(conn: sqlite3.Connection) -> bool:
            if not self._claim_in(conn, record.run_id, owner, ttl):
                return False
            for sql, args in self._saving(record):
                conn.execute(sql, args)
            return True

        return self._transaction(body)

    async def save_and_claim(self, record: CheckpointRecord, owner: str, ttl: float) -> bool:
        """``claim`` the record's run and, if taken, ``save`` the record: one
        call in the store's thread and one transaction, shielded from cancellation like a save;
        ``False`` (nothing written) when another owner holds an unexpired claim."""
        _check_ttl(ttl)
        taken: bool = await self._call(self._save_and_claim, record, owner, ttl)
        return taken

    def _save_and_release(
        self, records: Sequence[CheckpointRecord], run_id: str, owner: str
    ) -> None:
        self._write(*[s for r in records for s in self._saving(r)], _release(run_id, owner))

    async def save_and_release(
        self, records: Sequence[CheckpointRecord], run_id: str, owner: str
    ) -> None:
        """``save`` each record in order, then ``release``: one call in the store's thread and
        one transaction, shielded from cancellation like a save."""
        await self._call(self._save_and_release, records, run_id, owner)

    def close(self) -> None:
        """End the store's thread, once the calls already made have run, and close its
        connection (the store cannot be used afterwards; closing twice does nothing)."""
        self._closed = True
        self._thread.stop()
        if self._conn is not None:
            self._conn.close()
            self._conn = None
