"""Interrupt / resume: a run paused for approval is saved as versioned JSON with its
session, and finishes later, here or in a fresh process.

A tool that asks the user for input (the other way a run pauses) is not built yet;
its tests come with it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from agentcore import (
    AgentSession,
    FunctionApprovalRequestContent,
    FunctionCallContent,
    FunctionResultContent,
    InMemoryHistoryStore,
    Message,
    SqliteHistoryStore,
)
from agentcore.errors import RunStateError
from agentcore.serialization import SCHEMA_VERSION, from_json, structure, to_json
from agentcore.testing import ScriptedChatClient

from ._paused_run import make_agent
from ._runs import Outcome, call_turn, run_agent

pytestmark = pytest.mark.anyio

REPO_ROOT = Path(__file__).resolve().parents[2]
OPEN_CALL = FunctionCallContent("call_1", "open_ticket", "{}")
DELETE_CALL = FunctionCallContent("call_2", "delete_file", '{"path": "/tmp/report.txt"}')
DELETED = Message(
    "tool", [FunctionResultContent("call_2", result="deleted /tmp/report.txt under T-42")]
)
BEFORE_PAUSE = [
    Message("user", "delete the old report"),
    Message("assistant", [OPEN_CALL]),
    Message("tool", [FunctionResultContent("call_1", result="ticket opened")]),
    Message("assistant", [DELETE_CALL]),
]


def _pausing_client(*after: str) -> ScriptedChatClient:
    return ScriptedChatClient(
        [
            call_turn("open_ticket", "{}", "call_1"),
            call_turn("delete_file", '{"path": "/tmp/report.txt"}', "call_2"),
            *after,
        ]
    )


async def _pause(
    client: ScriptedChatClient, store: Any, stream: bool
) -> tuple[AgentSession, Outcome]:
    agent = make_agent(client, store)
    session = agent.create_session()
    outcome = await run_agent(agent, "delete the old report", stream=stream, session=session)
    return session, outcome


async def test_a_call_that_needs_approval_pauses_the_run(stream: bool) -> None:
    client = _pausing_client()

    _session, outcome = await _pause(client, InMemoryHistoryStore(), stream)

    [request] = outcome.response.approval_requests
    assert request.function_call == DELETE_CALL
    assert client.remaining == 0


async def test_a_paused_session_holds_the_pending_requests_and_run_locals(stream: bool) -> None:
    session, outcome = await _pause(_pausing_client(), InMemoryHistoryStore(), stream)

    assert session.approval_requests == outcome.response.approval_requests
    assert session.paused is not None
    assert session.paused.locals == {"ticket": "T-42"}
    assert session.state == {}  # the caller's alone


async def test_a_paused_session_round_trips_through_versioned_json(stream: bool) -> None:
    session, _ = await _pause(_pausing_client(), InMemoryHistoryStore(), stream)

    text = to_json(session)

    envelope = json.loads(text)
    assert (envelope["schema_version"], envelope["kind"]) == (SCHEMA_VERSION, "AgentSession")
    restored = from_json(text, AgentSession)
    assert restored == session
    assert restored.approval_requests == session.approval_requests
    assert all(isinstance(r, FunctionApprovalRequestContent) for r in restored.approval_requests)


async def test_the_turn_up_to_the_pause_is_stored_without_approval_contents(
    stream: bool,
) -> None:
    store = InMemoryHistoryStore()

    session, _ = await _pause(_pausing_client(), store, stream)

    assert await store.load(session.session_id) == BEFORE_PAUSE


async def test_an_approved_call_runs_with_the_run_locals_and_the_run_finishes(
    stream: bool,
) -> None:
    store = InMemoryHistoryStore()
    client = _pausing_client("The report is gone.")
    session, outcome = await _pause(client, store, stream)
    decisions = [r.create_response(True) for r in outcome.response.approval_requests]

    resumed = await run_agent(
        make_agent(client, store), Message("user", decisions), stream=stream, session=session
    )

    assert resumed.response.messages[0] == DELETED
    assert resumed.response.text == "The report is gone."
    assert session.approval_requests == ()
    assert session.state == {}


async def test_a_resumed_run_sends_the_paused_call_exactly_one_result(stream: bool) -> None:
    store = InMemoryHistoryStore()
    client = _pausing_client("The report is gone.")
    session, outcome = await _pause(client, store, stream)
    decisions = [r.create_response(True) for r in outcome.response.approval_requests]

    await run_agent(
        make_agent(client, store), Message("user", decisions), stream=stream, session=session
    )

    assert client.requests[2].messages == (*BEFORE_PAUSE, DELETED)


async def test_a_rejected_call_does_not_run_and_the_model_is_told(stream: bool) -> None:
    store = InMemoryHistoryStore()
    client = _pausing_client("I left the report alone.")
    session, outcome = await _pause(client, store, stream)
    decisions = [
        r.create_response(False, reason="keep it") for r in outcome.response.approval_requests
    ]

    resumed = await run_agent(
        make_agent(client, store), Message("user", decisions), stream=stream, session=session
    )

    [result] = resumed.response.messages[0].contents
    assert isinstance(result, FunctionResultContent)
    assert (result.call_id, result.error) == ("call_2", "rejected")
    assert "keep it" in str(result.result)
    assert resumed.response.text == "I left the report alone."


async def test_an_approval_for_a_session_that_is_not_paused_is_a_run_state_error(
    stream: bool,
) -> None:
    store = InMemoryHistoryStore()
    client = _pausing_client("The report is gone.")
    session, outcome = await _pause(client, store, stream)
    decisions = [r.create_response(True) for r in outcome.response.approval_requests]
    agent = make_agent(client, store)
    await run_agent(agent, Message("user", decisions), stream=stream, session=session)

    with pytest.raises(RunStateError, match="no run is waiting for approval"):
        await run_agent(agent, Message("user", decisions), stream=stream, session=session)


async def test_a_paused_run_resumes_in_a_fresh_process(
    tmp_path: Path, anyio_backend: str, stream: bool
) -> None:
    """The pause happens here on SQLite history; the session is saved as JSON; another
    Python process loads it, approves the pending call and finishes the run. The tool
    there sees the run-local value set before the pause, and the database then holds
    the whole turn."""
    db_path = tmp_path / "history.db"
    store = SqliteHistoryStore(db_path)
    try:
        session, _ = await _pause(_pausing_client(), store, stream)
    finally:
        store.close()
    session_path = tmp_path / "session.json"
    session_path.write_text(to_json(session))

    command = [sys.executable, "-m", "tests.agent._resume_process", str(session_path)]
    command += [str(db_path), anyio_backend, "1" if stream else "0", "1"]
    with anyio.fail_after(120):
        finished = await anyio.run_process(command, cwd=REPO_ROOT)
    report = json.loads(finished.stdout)

    assert [structure(r, FunctionResultContent) for r in report["results"]] == list(
        DELETED.contents
    )
    assert [structure(m, Message) for m in report["sent"]] == [*BEFORE_PAUSE, DELETED]
    assert report["text"] == "Done: the report is gone."
    assert from_json(report["session"], AgentSession).state == {}
    store = SqliteHistoryStore(db_path)
    try:
        assert await store.load(session.session_id) == [
            *BEFORE_PAUSE,
            Message(
                "tool",
                [FunctionResultContent("call_2", result="deleted /tmp/report.txt under T-42")],
            ),
            Message("assistant", "Done: the report is gone."),
        ]
    finally:
        store.close()


async def test_a_new_message_instead_of_a_decision_declines_the_paused_call(
    stream: bool,
) -> None:
    store = InMemoryHistoryStore()
    client = _pausing_client("Fine, I will keep it.")
    session, _ = await _pause(client, store, stream)

    resumed = await run_agent(
        make_agent(client, store), "never mind, keep it", stream=stream, session=session
    )

    [declined] = resumed.response.messages[0].contents
    assert isinstance(declined, FunctionResultContent)
    assert (declined.call_id, declined.error) == ("call_2", "rejected")
    assert client.requests[2].messages[-2:] == (
        resumed.response.messages[0],
        Message("user", "never mind, keep it"),
    )
    assert session.approval_requests == ()


SAVED_BY_0_1 = Path(__file__).parent / "fixtures" / "paused_session_v0_1.json"


async def test_a_session_paused_by_0_1_loads_into_the_typed_pause_and_resumes(
    stream: bool,
) -> None:
    # Written by agentcore 0.1, which kept the paused run in two `state` keys.
    session = from_json(SAVED_BY_0_1.read_text(encoding="utf-8"), AgentSession)

    assert session.state == {}
    assert session.paused is not None
    assert [call.name for call in session.paused.calls] == ["delete_file"]
    assert session.paused.locals == {"ticket": "T-42"}
    [request] = session.approval_requests

    client = ScriptedChatClient(["The report is gone."])
    resumed = await run_agent(
        make_agent(client, InMemoryHistoryStore()),
        Message("user", [request.create_response(True)]),
        stream=stream,
        session=session,
    )

    [result] = resumed.response.messages[0].contents
    assert isinstance(result, FunctionResultContent)
    assert result.result == "deleted report.txt under T-42"
    assert session.pending_requests == ()
    # Saved again, it is written in the typed form, with nothing left in `state`.
    saved = json.loads(to_json(session))["data"]
    assert (saved["paused"], saved["state"]) == (None, {})
