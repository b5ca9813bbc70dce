"""A history store in PostgreSQL."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import anyio
from psycopg import errors, pq, sql
from psycopg.conninfo import conninfo_to_dict

from agentcore import CompactionContent, Message, SessionInfo
from agentcore.compaction import HistoryView, record_of, view_from_parts, visible_ranges
from agentcore.serialization import from_json, to_json
from agentcore_postgres._connections import ConnectionPerThread

if TYPE_CHECKING:
    import psycopg

__all__ = ["PostgresHistoryStore"]

_TABLE_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")
# Any fixed number: the advisory lock that serializes creating the table.
_SCHEMA_LOCK = 0x6167_656E_7463


def _database(url: str) -> tuple[str, str, str, str]:
    """The server and database ``url`` connects to: host, port, database, user.

    Read as libpq reads it, with its defaults (``PGHOST``, ``PGPORT``, ``PGUSER``,
    ``PGDATABASE``, port 5432, the database named after the user) filled in, so two
    spellings of one connection give one answer. ``hostaddr``, when given, is the
    address libpq connects to.
    """
    try:
        given = {key: str(value) for key, value in conninfo_to_dict(url).items()}
    except errors.ProgrammingError as exc:
        reason = str(exc).strip()
        raise ValueError(
            f"PostgresHistoryStore needs a libpq connection string or postgresql:// URL: {reason}"
        ) from None  # the message, not the URL: it may hold a password
    defaults = {
        option.keyword.decode(): option.val.decode() if option.val is not None else ""
        for option in pq.Conninfo.get_defaults()
    }

    def setting(name: str) -> str:
        return given.get(name) or defaults.get(name, "")

    user = setting("user")
    return (
        setting("hostaddr") or setting("host"),
        setting("port") or "5432",
        setting("dbname") or user,
        user,
    )


class PostgresHistoryStore:
    """History in PostgreSQL: the store for several worker processes or machines.

    Same semantics as ``SqliteHistoryStore``: the messages of one ``append`` (a run's
    turn) are committed together or not at all; a session's messages load in the
    order they were appended; appends to one session are serialized across
    processes by a transaction-scoped advisory lock on the session, so concurrent
    turns never interleave. Messages are stored as agentcore's versioned JSON.
    ``list_sessions`` (``SupportsListSessions``) lists sessions by id: the table
    records no order of appends across sessions.

    Uses the synchronous ``psycopg`` driver in worker threads, one connection per
    thread, so it works under asyncio and trio alike. ``url`` is a libpq connection
    string or ``postgresql://`` URL; the table is created on first use.

    Two stores on the same database and table are the same store (``store_key``:
    host, port, database, user and table, however the URL spells them), so a session
    may move between agents that each opened one.
    """

    def __init__(self, url: str, *, table: str = "agentcore_messages") -> None:
        if not _TABLE_NAME.match(table):
            raise ValueError(
                f"table must be a plain lower-case SQL name (letters, digits, _), got {table!r}"
            )
        self.url = url
        self.table = table
        self.store_key: tuple[str, ...] = ("postgresql", *_database(url), table)
        """``("postgresql", host, port, database, user, table)``."""
        name = sql.Identifier(table)
        # ``kind`` marks compaction records ('compaction'), so a session's view is read
        # without the messages its records hide; added to tables made before it existed.
        create_sql = sql.SQL(
            "CREATE TABLE IF NOT EXISTS {} (session_id TEXT NOT NULL, position INTEGER NOT NULL, "
            "message TEXT NOT NULL, kind TEXT NOT NULL DEFAULT 'message', "
            "PRIMARY KEY (session_id, position)); "
            "ALTER TABLE {} ADD COLUMN IF NOT EXISTS kind TEXT NOT NULL DEFAULT 'message'; "
            "CREATE INDEX IF NOT EXISTS {} ON {} (session_id, position) "
            "WHERE kind = 'compaction'"
        ).format(name, name, sql.Identifier(f"{table}_records"), name)
        self._load_sql = sql.SQL(
            "SELECT message FROM {} WHERE session_id = %s ORDER BY position"
        ).format(name)
        self._next_sql = sql.SQL(
            "SELECT COALESCE(MAX(position), -1) + 1 FROM {} WHERE session_id = %s"
        ).format(name)
        self._insert_sql = sql.SQL(
            "INSERT INTO {} (session_id, position, message, kind) VALUES (%s, %s, %s, %s)"
        ).format(name)
        self._records_sql = sql.SQL(
            "SELECT position, message FROM {} WHERE session_id = %s AND kind = 'compaction' "
            "ORDER BY position"
        ).format(name)
        self._ranges_sql = sql.SQL(
            "SELECT m.position, m.message FROM {} m "
            "JOIN unnest(%s::int[], %s::int[]) AS r(lo, hi) ON m.position >= r.lo "
            "AND m.position < r.hi WHERE m.session_id = %s AND m.kind = 'message' "
            "ORDER BY m.position"
        ).format(name)
        self._delete_sql = sql.SQL("DELETE FROM {} WHERE session_id = %s").format(name)
        self._sessions_sql = sql.SQL(
            "SELECT session_id, COUNT(*) FROM {} GROUP BY session_id ORDER BY session_id "
            "LIMIT %s OFFSET %s"
        ).format(name)
        self._connections = ConnectionPerThread(
            url,
            closed_message=f"PostgresHistoryStore for {table!r} is closed",
            schema=create_sql,
            schema_lock=_SCHEMA_LOCK,
        )

    def _connection(self) -> psycopg.Connection[tuple[Any, ...]]:
        return self._connections.get()

    def _load(self, session_id: str) -> list[Message]:
        rows = self._connection().execute(self._load_sql, (session_id,))
        return [from_json(str(text), Message) for (text,) in rows]

    def _load_view(self, session_id: str) -> HistoryView:
        conn = self._connection()
        with conn.transaction():
            # One snapshot for the three reads.
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            row = conn.execute(self._next_sql, (session_id,)).fetchone()
            end = int(str(row[0])) if row is not None else 0
            records: list[tuple[int, CompactionContent]] = []
            for position, text in conn.execute(self._records_sql, (session_id,)):
                record = record_of(from_json(str(text), Message))
                if record is not None:
                    records.append((int(position), record))
            ranges = visible_ranges(records, end)
            rows = conn.execute(
                self._ranges_sql, ([lo for lo, _ in ranges], [hi for _, hi in ranges], session_id)
            ).fetchall()
        messages = [(int(position), from_json(str(text), Message)) for position, text in rows]
        return view_from_parts(messages, records, end)

    def _append(self, session_id: str, payloads: list[tuple[str, str]]) -> None:
        conn = self._connection()
        with conn.transaction():
            # One writer per session at a time, across processes; released at commit.
            conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (session_id,))
            row = conn.execute(self._next_sql, (session_id,)).fetchone()
            start = int(str(row[0])) if row is not None else 0
            with conn.cursor() as cursor:
                cursor.executemany(
                    self._insert_sql,
                    [
                        (session_id, start + i, text, kind)
                        for i, (text, kind) in enumerate(payloads)
                    ],
                )

    async def load(self, session_id: str) -> list[Message]:
        return await anyio.to_thread.run_sync(self._load, session_id)

    async def load_view(self, session_id: str) -> HistoryView:
        """The session's compacted view, read in SQL in one read-only snapshot: the
        records first, then only the messages they leave visible."""
        return await anyio.to_thread.run_sync(self._load_view, session_id)

    async def append(self, session_id: str, messages: Sequence[Message]) -> None:
        if not messages:
            return
        # Fail before touching the database.
        payloads = [
            (to_json(m), "message" if record_of(m) is None else "compaction") for m in messages
        ]
        # Shielded: once the transaction starts, a cancelled run still commits or rolls
        # back in its thread instead of leaving it mid-write.
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(self._append, session_id, payloads)

    async def clear(self, session_id: str) -> None:
        """Forget a session's history."""

        def delete() -> None:
            self._connection().execute(self._delete_sql, (session_id,))

        await anyio.to_thread.run_sync(delete)

    async def list_sessions(self, *, limit: int = 50, offset: int = 0) -> list[SessionInfo]:
        """The stored sessions in the order of their ids, ``limit`` of them after skipping
        ``offset`` (``ValueError`` when ``limit`` is below 1 or ``offset`` below 0)."""
        paging: tuple[tuple[str, object, int], ...] = (("limit", limit, 1), ("offset", offset, 0))
        for name, value, least in paging:
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise ValueError(f"list_sessions: {name} must be an int >= {least}, got {value!r}")

        def select() -> list[SessionInfo]:
            rows = self._connection().execute(self._sessions_sql, (limit, offset))
            return [SessionInfo(str(session_id), int(count)) for session_id, count in rows]

        return await anyio.to_thread.run_sync(select)

    def close(self) -> None:
        """Close every connection this store opened."""
        self._connections.close()
