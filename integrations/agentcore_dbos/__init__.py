"""Durable agent runs on DBOS: SQLite embedded, PostgreSQL to scale out.

Needs the ``dbos`` extra: ``pip install 'agentcore-framework[dbos]'``. This package is the
home the durable-run work fills; today it only checks that its SDK is installed.
"""

import importlib.util

if importlib.util.find_spec("dbos") is None:
    raise ImportError("agentcore_dbos needs DBOS: pip install 'agentcore-framework[dbos]'")

__all__: list[str] = []
