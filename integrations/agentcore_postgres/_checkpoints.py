"""A workflow checkpoint store in PostgreSQL."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final, TypeVar, get_args

import anyio
from psycopg import sql
from typing_extensions import LiteralString

from agentcore.workflows import CheckpointInfo, CheckpointRecord, RunStatus
from agentcore_postgres._connections import ConnectionPerThread

if TYPE_CHECKING:
    import psycopg

__all__ = ["PostgresCheckpointStore"]

_PREFIX = re.compile(r"^[a-z_][a-z0-9_]{0,40}$")
_STATUSES: tuple[str, ...] = get_args(RunStatus)
# Any fixed number (not the history store's): serializes creating the tables.
_SCHEMA_LOCK = 0x6167_656E_7477
_T = TypeVar("_T")

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS {cp} (
    seq BIGSERIAL PRIMARY KEY,
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
CREATE INDEX IF NOT EXISTS {cp_run} ON {cp} (run_id, seq);
CREATE INDEX IF NOT EXISTS {cp_status} ON {cp} (workflow, status);
CREATE TABLE IF NOT EXISTS {writes} (
    run_id TEXT NOT NULL,
    checkpoint_id TEXT NOT NULL,
    ordinal INTEGER NOT NULL,
    payload TEXT NOT NULL,
    PRIMARY KEY (run_id, checkpoint_id, ordinal)
);
CREATE TABLE IF NOT EXISTS {claims} (
    run_id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL
)
"""

_COLUMNS: Final = (
    "run_id, checkpoint_id, parent_id, superstep, status, workflow, version, created_at, "
    "format, payload"
)


class PostgresCheckpointStore:
    """Workflow checkpoints in PostgreSQL: the store for runs that several worker
    processes or machines share.

    The semantics of ``SqliteCheckpointStore``: one transaction per save (the record,
    dropping the run's pending writes when it closes a superstep, ``keep_last`` pruning,
    which never removes a run's latest ``paused`` checkpoint), saves shielded from
    cancellation, pending writes (``SupportsPendingWrites``) and run claims
    (``SupportsRunClaims``) kept in their own tables. Claims expire by the database
    server's clock, so the machines need not agree on the time.

    Uses the synchronous ``psycopg`` driver in worker threads, one connection per
    thread, so it works under asyncio and trio alike. ``url`` is a libpq connection
    string or ``postgresql://`` URL; the tables (named ``{prefix}_checkpoints``,
    ``{prefix}_pending_writes``, ``{prefix}_claims``) are created on first use.
    """

    def __init__(
        self, url: str, *, keep_last: int | None = None, prefix: str = "agentcore_workflow"
    ) -> None:
        if not _PREFIX.match(prefix):
            raise ValueError(
                f"prefix must be a plain lower-case SQL name of at most 41 characters "
                f"(letters, digits, _), got {prefix!r}"
            )
        if keep_last is not None and not _whole(keep_last):
            raise ValueError(
                f"keep_last must be a whole number of checkpoints of at least 1 (or None to "
                f"keep every checkpoint), got {keep_last!r}"
            )
        self.url = url
        self.keep_last: int | None = keep_last
        self.prefix = prefix
        names = {
            "cp": sql.Identifier(f"{prefix}_checkpoints"),
            "cp_run": sql.Identifier(f"{prefix}_checkpoints_run"),
            "cp_status": sql.Identifier(f"{prefix}_checkpoints_status"),
            "writes": sql.Identifier(f"{prefix}_pending_writes"),
            "claims": sql.Identifier(f"{prefix}_claims"),
        }

        def q(text: LiteralString) -> sql.Composed:
            return sql.SQL(text).format(**names)

        self._insert = q(
            f"INSERT INTO {{cp}} ({_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
        )
        self._drop_writes = q("DELETE FROM {writes} WHERE run_id = %s")
        self._prune = q(
            "DELETE FROM {cp} WHERE run_id = %(run)s"
            " AND seq NOT IN (SELECT seq FROM {cp} WHERE run_id = %(run)s"
            "  ORDER BY seq DESC LIMIT %(keep)s)"
            " AND seq <> COALESCE((SELECT max(seq) FROM {cp}"
            "  WHERE run_id = %(run)s AND status = 'paused'), -1)"
        )
        self._prune_writes = q(
            "DELETE FROM {writes} WHERE run_id = %(run)s"
            " AND checkpoint_id NOT IN (SELECT checkpoint_id FROM {cp} WHERE run_id = %(run)s)"
        )
        self._select = q(f"SELECT {_COLUMNS} FROM {{cp}} WHERE ")
        self._latest = q("seq IN (SELECT max(seq) FROM {cp} GROUP BY run_id)")
        self._delete = q("DELETE FROM {cp} WHERE run_id = %s")
        self._put_write = q(
            "INSERT INTO {writes} (run_id, checkpoint_id, ordinal, payload)"
            " VALUES (%s, %s, %s, %s) ON CONFLICT (run_id, checkpoint_id, ordinal)"
            " DO UPDATE SET payload = EXCLUDED.payload"
        )
        self._load_writes = q(
            "SELECT payload FROM {writes} WHERE run_id = %s AND checkpoint_id = %s ORDER BY ordinal"
        )
        # one statement: taken when free, expired, or already ours (a renewal)
        self._claim = q(
            "INSERT INTO {claims} AS c (run_id, owner, expires_at)"
            " VALUES (%(run)s, %(owner)s, now() + make_interval(secs => %(ttl)s))"
            " ON CONFLICT (run_id) DO UPDATE SET owner = EXCLUDED.owner,"
            " expires_at = EXCLUDED.expires_at"
            " WHERE c.owner = EXCLUDED.owner OR c.expires_at <= now()"
            " RETURNING owner"
        )
        self._release = q("DELETE FROM {claims} WHERE run_id = %s AND owner = %s")
        self._drop_claim = q("DELETE FROM {claims} WHERE run_id = %s")
        self._connections = ConnectionPerThread(
            url,
            closed_message=f"PostgresCheckpointStore with prefix {prefix!r} is closed",
            schema=q(_SCHEMA),
            schema_lock=_SCHEMA_LOCK,
        )

    # -- connections -----------------------------------------------------------------------

    def _connection(self) -> psycopg.Connection[tuple[Any, ...]]:
        return self._connections.get()

    async def _in_thread(self, func: Callable[..., _T], *args: Any, shield: bool = False) -> _T:
        if not shield:
            return await anyio.to_thread.run_sync(func, *args)
        # once a write starts, a cancelled run still commits or rolls back in its thread
        done: list[_T] = []
        with anyio.CancelScope(shield=True):
            done.append(await anyio.to_thread.run_sync(func, *args))
        return done[0]

    def _records(self, where: sql.Composable, args: Sequence[Any]) -> list[CheckpointRecord]:
        rows = self._connection().execute(self._select + where, args).fetchall()
        return [CheckpointRecord(*row) for row in rows]

    # -- CheckpointStore ---------------------------------------------------------------------

    def _save(self, record: CheckpointRecord) -> None:
        conn = self._connection()
        with conn.transaction():
            self._saving(conn, record)

    def _saving(self, conn: psycopg.Connection[tuple[Any, ...]], record: CheckpointRecord) -> None:
        """Inside a transaction: the statements of one save."""
        conn.execute(
            self._insert,
            record.row(),
        )
        if record.status not in ("failed", "cancelled"):  # the superstep is closed
            conn.execute(self._drop_writes, (record.run_id,))
        if self.keep_last is not None:
            args = {"run": record.run_id, "keep": self.keep_last}
            conn.execute(self._prune, args)
            conn.execute(self._prune_writes, args)

    async def save(self, record: CheckpointRecord) -> None:
        await self._in_thread(self._save, record, shield=True)

    def _load(self, run_id: str, checkpoint_id: str | None) -> CheckpointRecord | None:
        if checkpoint_id is None:
            found = self._records(sql.SQL("run_id = %s ORDER BY seq DESC LIMIT 1"), (run_id,))
        else:
            found = self._records(
                sql.SQL("run_id = %s AND checkpoint_id = %s"), (run_id, checkpoint_id)
            )
        return found[0] if found else None

    async def load(self, run_id: str, checkpoint_id: str | None = None) -> CheckpointRecord | None:
        return await self._in_thread(self._load, run_id, checkpoint_id)

    async def list_checkpoints(self, run_id: str) -> Sequence[CheckpointInfo]:
        found = await self._in_thread(self._records, sql.SQL("run_id = %s ORDER BY seq"), (run_id,))
        return [_info(r) for r in found]

    async def delete(self, run_id: str) -> None:
        """Forget ``run_id``: its checkpoints, pending writes and claim (one transaction)."""

        def delete() -> None:
            conn = self._connection()
            with conn.transaction():
                conn.execute(self._delete, (run_id,))
                conn.execute(self._drop_writes, (run_id,))
                conn.execute(self._drop_claim, (run_id,))

        await self._in_thread(delete, shield=True)

    # -- retention ---------------------------------------------------------------------------

    async def prune(self, run_id: str, *, keep_last: int) -> int:
        """Delete all but the newest ``keep_last`` checkpoints of ``run_id`` (never its
        latest ``paused`` one) and their pending writes; the number deleted."""
        if not _whole(keep_last):
            raise ValueError(
                f"keep_last must be a whole number of checkpoints of at least 1, got {keep_last!r}"
            )

        def prune() -> int:
            conn = self._connection()
            with conn.transaction():
                deleted = conn.execute(self._prune, {"run": run_id, "keep": keep_last}).rowcount
                conn.execute(self._prune_writes, {"run": run_id})
            return deleted

        return await self._in_thread(prune, shield=True)

    async def runs(
        self, *, workflow: str | None = None, status: RunStatus | None = None
    ) -> Sequence[CheckpointInfo]:
        """The latest checkpoint of each stored run, the most recently saved last; only
        runs of ``workflow`` and/or whose latest status is ``status`` if given."""
        if status is not None and status not in _STATUSES:
            raise ValueError(
                f"status must be one of {', '.join(_STATUSES)} (or None), got {status!r}"
            )
        where: sql.Composable = self._latest
        args: list[Any] = []
        if workflow is not None:
            where += sql.SQL(" AND workflow = %s")
            args.append(workflow)
        if status is not None:
            where += sql.SQL(" AND status = %s")
            args.append(status)
        found = await self._in_thread(self._records, where + sql.SQL(" ORDER BY seq"), args)
        return [_info(r) for r in found]

    # -- SupportsPendingWrites ---------------------------------------------------------------

    async def save_pending_write(
        self, run_id: str, checkpoint_id: str, ordinal: int, payload: str
    ) -> None:
        def save() -> None:
            self._connection().execute(self._put_write, (run_id, checkpoint_id, ordinal, payload))

        await self._in_thread(save, shield=True)

    def _load_pending_writes(self, run_id: str, checkpoint_id: str) -> list[str]:
        rows = self._connection().execute(self._load_writes, (run_id, checkpoint_id))
        return [str(row[0]) for row in rows]

    async def load_pending_writes(self, run_id: str, checkpoint_id: str) -> Sequence[str]:
        return await self._in_thread(self._load_pending_writes, run_id, checkpoint_id)

    # -- SupportsRunClaims -------------------------------------------------------------------

    async def claim(self, run_id: str, owner: str, ttl: float) -> bool:
        """Take (or renew) the claim on ``run_id`` for ``ttl`` seconds; ``False`` while
        another owner holds an unexpired one (expiry by the server's clock)."""
        if not ttl > 0:
            raise ValueError(f"a claim's ttl is a number of seconds above 0, got {ttl!r}")

        return await self._in_thread(self._take, run_id, owner, ttl, shield=True)

    def _take(self, run_id: str, owner: str, ttl: float) -> bool:
        args = {"run": run_id, "owner": owner, "ttl": float(ttl)}
        return self._connection().execute(self._claim, args).fetchone() is not None

    async def release(self, run_id: str, owner: str) -> None:
        def release() -> None:
            self._connection().execute(self._release, (run_id, owner))

        await self._in_thread(release, shield=True)

    # -- SupportsCombinedClaims -------------------------------------------------------------

    async def claim_and_load(
        self, run_id: str, owner: str, ttl: float, checkpoint_id: str | None = None
    ) -> tuple[CheckpointRecord | None, Sequence[str]] | None:
        """``claim`` and, if taken, ``load`` with the record's pending writes: one
        worker-thread call and one transaction; ``None`` when another owner holds an
        unexpired claim."""
        if not ttl > 0:
            raise ValueError(f"a claim's ttl is a number of seconds above 0, got {ttl!r}")

        def claim_and_load() -> tuple[CheckpointRecord | None, Sequence[str]] | None:
            with self._connection().transaction():
                if not self._take(run_id, owner, ttl):
                    return None
                record = self._load(run_id, checkpoint_id)
                if record is None:
                    return None, ()
                return record, self._load_pending_writes(run_id, record.checkpoint_id)

        return await self._in_thread(claim_and_load, shield=True)

    async def save_and_claim(self, record: CheckpointRecord, owner: str, ttl: float) -> bool:
        """``claim`` the record's run and, if taken, ``save`` the record: one
        worker-thread call and one transaction; ``False`` (nothing written) when
        another owner holds an unexpired claim."""
        if not ttl > 0:
            raise ValueError(f"a claim's ttl is a number of seconds above 0, got {ttl!r}")

        def save_and_claim() -> bool:
            conn = self._connection()
            with conn.transaction():
                if not self._take(record.run_id, owner, ttl):
                    return False
                self._saving(conn, record)
                return True

        return await self._in_thread(save_and_claim, shield=True)

    async def save_and_release(
        self, records: Sequence[CheckpointRecord], run_id: str, owner: str
    ) -> None:
        """``save`` each record in order, then ``release``: one worker-thread call and
        one transaction, shielded from cancellation like a save."""

        def save_and_release() -> None:
            conn = self._connection()
            with conn.transaction():
                for record in records:
                    self._saving(conn, record)
                conn.execute(self._release, (run_id, owner))

        await self._in_thread(save_and_release, shield=True)

    def close(self) -> None:
        """Close every connection this store opened (it cannot be used afterwards)."""
        self._connections.close()


def _whole(value: object) -> bool:
    """A whole number of checkpoints to keep: an ``int`` (not a ``bool``) of at least 1."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _info(record: CheckpointRecord) -> CheckpointInfo:
    return CheckpointInfo(
        record.run_id,
        record.checkpoint_id,
        record.parent_id,
        record.superstep,
        record.status,
        record.created_at,
    )
