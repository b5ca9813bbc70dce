"""PostgreSQL stores, for several processes or machines sharing one database.

Needs the ``postgres`` extra: ``pip install 'agentcore-framework[postgres]'``.
:class:`PostgresHistoryStore` keeps sessions' histories with the semantics of the
kernel's ``SqliteHistoryStore``; :class:`PostgresCheckpointStore` keeps workflow
checkpoints, pending writes and run claims with the semantics of
``SqliteCheckpointStore``.
"""

import importlib.util

if importlib.util.find_spec("psycopg") is None:
    raise ImportError(
        "agentcore_postgres needs the psycopg driver: pip install 'agentcore-framework[postgres]'"
    )

from agentcore_postgres._checkpoints import PostgresCheckpointStore
from agentcore_postgres._history import PostgresHistoryStore

__all__ = ["PostgresCheckpointStore", "PostgresHistoryStore"]
