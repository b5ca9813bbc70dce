"""Resumes a paused run in a fresh process.

``python -m tests.agent._resume_process SESSION_JSON DB BACKEND STREAM APPROVE`` (from
the repository root) prints the outcome as JSON for the parent test to check.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio

from agentcore import AgentSession, FunctionResultContent, Message, SqliteHistoryStore
from agentcore.serialization import from_json, to_json, unstructure
from agentcore.testing import ScriptedChatClient
from tests.agent._paused_run import make_agent


async def main(saved: str, db_path: str, stream: bool, approve: bool) -> None:
    session = from_json(saved, AgentSession)
    store = SqliteHistoryStore(db_path)
    client = ScriptedChatClient(["Done: the report is gone."])
    agent = make_agent(client, store)
    decisions = [request.create_response(approve) for request in session.approval_requests]
    if stream:
        result = agent.run(Message("user", decisions), session=session, stream=True)
        async for _ in result:
            pass
        response = await result.get_final_response()
    else:
        response = await agent.run(Message("user", decisions), session=session)
    store.close()
    results = [
        c for m in response.messages for c in m.contents if isinstance(c, FunctionResultContent)
    ]
    print(
        json.dumps(
            {
                "text": response.text,
                "results": [unstructure(r) for r in results],
                "sent": [unstructure(m) for m in client.requests[0].messages],
                "session": to_json(session),
            }
        )
    )


if __name__ == "__main__":
    session_file, db_file, backend, stream_flag, approve_flag = sys.argv[1:6]
    saved_session = Path(session_file).read_text()
    anyio.run(
        main, saved_session, db_file, stream_flag == "1", approve_flag == "1", backend=backend
    )
