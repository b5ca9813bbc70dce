"""Durable agent runs on DBOS: SQLite embedded, PostgreSQL to scale out.

Needs the ``dbos`` extra: ``pip install 'agentcore-framework[dbos]'``.

:func:`dbos_agent` makes an agent's model calls, tool calls and history steps of the
DBOS workflow that runs it; :func:`dbos_config` is a DBOS configuration with the
settings durable agents rely on (SQLite file by default, or a ``postgresql://`` URL;
the portable JSON serializer; a pinned application version). Approvals and questions
travel as DBOS events and messages (:func:`run_until_answered`,
:func:`pending_requests`, :func:`send_decisions`), so a paused run resumes after a
restart. Asyncio only.
"""

import importlib.util

if importlib.util.find_spec("dbos") is None:
    raise ImportError("agentcore_dbos needs DBOS: pip install 'agentcore-framework[dbos]'")

from agentcore_dbos._engine import (
    DBOSEngine,
    dbos_agent,
    dbos_config,
    pending_requests,
    run_until_answered,
    send_decisions,
)

__all__ = [
    "DBOSEngine",
    "dbos_agent",
    "dbos_config",
    "pending_requests",
    "run_until_answered",
    "send_decisions",
]
