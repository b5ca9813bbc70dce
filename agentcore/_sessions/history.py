"""History stores: where a session's messages live between runs.

Both stores append the messages of one run all at once or not at all, so a
failed or cancelled run never leaves half a turn behind. Both list their sessions
(``SupportsListSessions``), the one appended to last first.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING

import anyio
import attrs

from agentcore._equality import fields_eq, fields_hash
from agentcore._repr import fields_repr
from agentcore._sessions.view import (
    HistoryView,
    compacted_view,
    record_of,
    view_from_parts,
    visible_ranges,
)
from agentcore._types.contents import (
    FunctionApprovalRequestContent,
    FunctionApprovalResponseContent,
    UserInputRequestContent,
    UserInputResponseContent,
)
from agentcore._types.messages import Message

if TYPE_CHECKING:
    import sqlite3
    from pathlib import Path  # 4 ms of import time: annotations only

_RUN_STATE_CONTENTS = (
    FunctionApprovalRequestContent,
    FunctionApprovalResponseContent,
    UserInputRequestContent,
    UserInputResponseContent,
)

__all__ = [
    "InMemoryHistoryStore",
    "SessionInfo",
    "SqliteHistoryStore",
    "history_view",
    "indexed_history_view",
    "store_key",
]


@attrs.frozen
class SessionInfo:
    """One stored session, as a history store lists it: its id and how many messages it
    holds (``HistoryStore.load(session_id)`` reads them)."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    session_id: str
    messages: int


def check_page(limit: object, offset: object) -> None:
    """``list_sessions``' paging arguments, refused with the reason when not whole
    numbers (``limit`` at least 1, ``offset`` at least 0)."""
    for name, value, least in (("limit", limit, 1), ("offset", offset, 0)):
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise ValueError(f"list_sessions: {name} must be an int >= {least}, got {value!r}")


def history_view(messages: Sequence[Message]) -> list[Message]:
    """Messages as a store keeps them: approval and user-input requests and their
    answers are run state (kept in the session while a run is paused), not conversation."""
    out: list[Message] = []
    for message in messages:
        contents = tuple(c for c in message.contents if not isinstance(c, _RUN_STATE_CONTENTS))
        if len(contents) == len(message.contents):
            out.append(message)
        elif contents:
            out.append(Message(message.role, contents, message.author_name, message.message_id))
    return out


def indexed_history_view(
    messages: Sequence[Message],
) -> tuple[list[Message], dict[int, int]]:
    """:func:`history_view` of ``messages``, and the index each kept message got there,
    by the id of the message it was made from."""
    out: list[Message] = []
    index: dict[int, int] = {}
    for message in messages:
        kept = history_view((message,))
        if kept:
            index[id(message)] = len(out)
            out.append(kept[0])
    return out, index


class _SameObject:
    """The key of a store that names no database: equal only for that very object."""

    __slots__ = ("target",)

    def __init__(self, target: object) -> None:
        self.target = target

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _SameObject) and other.target is self.target

    def __hash__(self) -> int:
        return id(self.target)


def store_key(store: object) -> Hashable:
    """What tells whether two history stores hold the same histories.

    A store names the database it writes to with a ``store_key`` attribute (the
    SQLite file, the PostgreSQL database and table): two stores with equal keys are
    one store, whichever objects they are. A store without one (in memory) is only
    itself.
    """
    key: Hashable | None = getattr(store, "store_key", None)
    return _SameObject(store) if key is None else key


class InMemoryHistoryStore:
    """History in a dict: for tests and for processes that need no persistence."""

    def __init__(self) -> None:
        self._sessions: dict[str, list[Message]] = {}
        self._views: dict[str, HistoryView] = {}

    async def load(self, session_id: str) -> list[Message]:
        return list(self._sessions.get(session_id, ()))

    async def load_view(self, session_id: str) -> HistoryView:
        """The session's compacted view (:func:`~agentcore.compaction.compacted_view` of
        its log), kept until the next ``append``."""
        view = self._views.get(session_id)
        if view is None:
            view = compacted_view(self._sessions.get(session_id, ()))
            self._views[session_id] = view
        return view

    async def append(self, session_id: str, messages: Sequence[Message]) -> None:
        if not messages:
            return
        # One list extension: a run's messages land together. The session moves to the
        # end of the dict, which keeps sessions in the order they were last appended to.
        history = self._sessions.pop(session_id, [])
        history.extend(messages)
        self._sessions[session_id] = history
        self._views.pop(session_id, None)

    async def clear(self, session_id: str) -> None:
        """Forget a session's history."""
        self._sessions.pop(session_id, None)
        self._views.pop(session_id, None)

    async def list_sessions(self, *, limit: int = 50, offset: int = 0) -> list[SessionInfo]:
        """The stored sessions, the one appended to last first (``limit`` of them after
        skipping ``offset``)."""
        check_page(limit, offset)
        newest_first = reversed(self._sessions.items())
        return [
            SessionInfo(session_id, len(history))
            for session_id, history in itertools.islice(newest_first, offset, offset + limit)
        ]


_SCHEMA = """
CREATE TABLE IF NOT EXISTS agentcore_messages (
    session_id TEXT NOT NULL,
    position   INTEGER NOT NULL,
    run_id     TEXT,
    message    TEXT NOT NULL,
    kind       TEXT NOT NULL DEFAULT 'message',
    PRIMARY KEY (session_id, position)
)
"""

# Compaction records are found by an index of their own, so reading a session's view
# never reads the messages its records hide.
_RECORDS_INDEX = (
    "CREATE INDEX IF NOT EXISTS agentcore_messages_records "
    "ON agentcore_messages (session_id, position) WHERE kind = 'compaction'"
)


class SqliteHistoryStore:
    """History in a SQLite file: the embedded default for persistence.

    Uses the standard ``sqlite3`` module in worker threads (the event loop never
    blocks), WAL journaling, and one transaction per ``append``: the messages of a
    run are committed together or not at all, even if the process dies mid-write.
    Messages are stored as versioned JSON (:mod:`agentcore.serialization`). The file
    is created at the first run; its directory must exist (``FileNotFoundError``
    naming it otherwise). ``":memory:"`` and ``file:`` URIs are passed to SQLite as
    they are.

    Two stores on the same file are the same store (``store_key``: the file's
    resolved path), so a session may move between agents that each opened the file
    (an agent built per request, for example). ``":memory:"`` and ``file:`` URIs are
    only themselves.
    """

    def __init__(self, path: str | Path) -> None:
        self.path: str = str(path)
        self.store_key: tuple[str, str] | None = None
        """``("sqlite", <resolved path>)``; ``None`` for ``":memory:"``, ``""`` and URIs."""
        if self.path != ":memory:" and not self.path.startswith("file:"):
            import os

            directory = os.path.dirname(os.path.abspath(self.path))
            if not os.path.isdir(directory):
                raise FileNotFoundError(
                    f"SqliteHistoryStore({self.path!r}): the directory {directory!r} does not "
                    "exist; create it first (os.makedirs(..., exist_ok=True)) or choose "
                    "another path"
                )
            if self.path:  # "" is a temporary database of its own
                # Resolved now, against the current directory, as the directory was.
                self.store_key = ("sqlite", os.path.realpath(self.path))
        self._local = threading.local()
        self._lock = threading.Lock()
        self._connections: list[sqlite3.Connection] = []
        self._closed = False

    def _connection(self) -> sqlite3.Connection:
        if self._closed:
            raise RuntimeError(f"SqliteHistoryStore({self.path!r}) is closed")
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            import sqlite3  # only stores that are used pay for the import

            conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA busy_timeout=5000")
            conn.execute(_SCHEMA)
            columns = {row[1] for row in conn.execute("PRAGMA table_info(agentcore_messages)")}
            if "kind" not in columns:  # a file written before compaction records existed
                try:
                    conn.execute(
                        "ALTER TABLE agentcore_messages "
                        "ADD COLUMN kind TEXT NOT NULL DEFAULT 'message'"
                    )
                except sqlite3.OperationalError as exc:  # another connection added it first
                    if "duplicate column" not in str(exc):
                        raise
            conn.execute(_RECORDS_INDEX)
            self._local.conn = conn
            with self._lock:
                self._connections.append(conn)
        return conn

    def _load(self, session_id: str) -> list[Message]:
        from agentcore.serialization import from_json

        rows = self._connection().execute(
            "SELECT message FROM agentcore_messages WHERE session_id = ? ORDER BY position",
            (session_id,),
        )
        return [from_json(text, Message) for (text,) in rows]

    def _load_view(self, session_id: str) -> HistoryView:
        from agentcore._types.contents import CompactionContent
        from agentcore.serialization import from_json

        conn = self._connection()
        conn.execute("BEGIN")  # one snapshot for the three reads
        try:
            (end,) = conn.execute(
                "SELECT COALESCE(MAX(position), -1) + 1 FROM agentcore_messages "
                "WHERE session_id = ?",
                (session_id,),
            ).fetchone()
            records: list[tuple[int, CompactionContent]] = []
            for position, text in conn.execute(
                "SELECT position, message FROM agentcore_messages "
                "WHERE session_id = ? AND kind = 'compaction' ORDER BY position",
                (session_id,),
            ):
                record = record_of(from_json(text, Message))
                if record is not None:
                    records.append((position, record))
            ranges = visible_ranges(records, end)
            rows: list[tuple[int, str]] = []
            # A few ranges a query: SQLite bounds the parameters of one statement.
            for first in range(0, len(ranges), 200):
                chunk = ranges[first : first + 200]
                where = " OR ".join(["(position >= ? AND position < ?)"] * len(chunk))
                params: list[object] = [session_id]
                for start, stop in chunk:
                    params += [start, stop]
                rows += conn.execute(
                    "SELECT position, message FROM agentcore_messages WHERE session_id = ? "
                    f"AND kind = 'message' AND ({where}) ORDER BY position",
                    params,
                ).fetchall()
        finally:
            conn.execute("COMMIT")
        messages = [(position, from_json(text, Message)) for position, text in rows]
        return view_from_parts(messages, records, end)

    def _append(self, session_id: str, payloads: list[tuple[str, str]]) -> None:
        conn = self._connection()
        conn.execute("BEGIN IMMEDIATE")
        try:
            (start,) = conn.execute(
                "SELECT COALESCE(MAX(position), -1) + 1 FROM agentcore_messages "
                "WHERE session_id = ?",
                (session_id,),
            ).fetchone()
            conn.executemany(
                "INSERT INTO agentcore_messages (session_id, position, message, kind) "
                "VALUES (?, ?, ?, ?)",
                [(session_id, start + i, text, kind) for i, (text, kind) in enumerate(payloads)],
            )
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    async def load(self, session_id: str) -> list[Message]:
        return await anyio.to_thread.run_sync(self._load, session_id)

    async def load_view(self, session_id: str) -> HistoryView:
        """The session's compacted view, read in SQL: the records first, then only the
        messages they leave visible (a long compacted session reads its view, not its log)."""
        return await anyio.to_thread.run_sync(self._load_view, session_id)

    async def append(self, session_id: str, messages: Sequence[Message]) -> None:
        if not messages:
            return
        from agentcore.serialization import to_json

        # Fail before touching the database.
        payloads = [
            (to_json(m), "message" if record_of(m) is None else "compaction") for m in messages
        ]
        # Shielded: once the transaction starts, a cancelled run still finishes or
        # rolls back cleanly instead of leaving the worker thread mid-write.
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(self._append, session_id, payloads)

    async def clear(self, session_id: str) -> None:
        """Forget a session's history."""

        def delete() -> None:
            self._connection().execute(
                "DELETE FROM agentcore_messages WHERE session_id = ?", (session_id,)
            )

        await anyio.to_thread.run_sync(delete)

    async def list_sessions(self, *, limit: int = 50, offset: int = 0) -> list[SessionInfo]:
        """The stored sessions, the one appended to last first (by the newest row each
        holds), ``limit`` of them after skipping ``offset``."""
        check_page(limit, offset)

        def select() -> list[SessionInfo]:
            rows = self._connection().execute(
                "SELECT session_id, COUNT(*) FROM agentcore_messages GROUP BY session_id "
                "ORDER BY MAX(rowid) DESC LIMIT ? OFFSET ?",
                (limit, offset),
            )
            return [SessionInfo(str(session_id), int(count)) for session_id, count in rows]

        return await anyio.to_thread.run_sync(select)

    def close(self) -> None:
        """Close every connection this store opened."""
        with self._lock:
            self._closed = True
            for conn in self._connections:
                conn.close()
            self._connections.clear()
