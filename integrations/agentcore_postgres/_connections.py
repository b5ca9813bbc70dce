"""One psycopg connection per worker thread, for the stores of this package.

The stores run their blocking calls in anyio's worker threads, and a psycopg
connection must not be used by two threads at once: each thread gets its own,
opened on first use. The store's tables are created once, by the first connection,
under a transaction-scoped advisory lock (two processes creating them at once would
collide in the catalog).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import psycopg
    from psycopg import sql

__all__ = ["ConnectionPerThread"]


class ConnectionPerThread:
    """The connections one store opened: ``get()`` in a worker thread, ``close()`` once."""

    def __init__(
        self,
        url: str,
        *,
        closed_message: str,
        schema: sql.Composed,
        schema_lock: int,
    ) -> None:
        self._url = url
        self._closed_message = closed_message
        self._schema = schema
        self._schema_lock = schema_lock
        self._local = threading.local()
        self._lock = threading.Lock()
        self._opened: list[psycopg.Connection[tuple[Any, ...]]] = []
        self._closed = False
        self._schema_ready = False

    def get(self) -> psycopg.Connection[tuple[Any, ...]]:
        """This thread's connection (opened, and the schema made, on first use)."""
        if self._closed:
            raise RuntimeError(self._closed_message)
        conn: psycopg.Connection[tuple[Any, ...]] | None = getattr(self._local, "conn", None)
        if conn is None or conn.closed:
            import psycopg

            conn = psycopg.connect(self._url, autocommit=True)
            self._local.conn = conn
            with self._lock:
                self._opened.append(conn)
        if not self._schema_ready:
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (self._schema_lock,))
                conn.execute(self._schema)
            self._schema_ready = True
        return conn

    def close(self) -> None:
        """Close every connection opened; later ``get()`` calls raise."""
        with self._lock:
            self._closed = True
            for conn in self._opened:
                conn.close()
            self._opened.clear()
