"""A paused run that does not hold together is a clear error, and nothing is lost.

The paused run is a typed value on the session (``session.paused``). Saved JSON that
does not fit its type fails to load, naming the field. One that loads but does not
hold together (edited or assigned by hand: no calls, a request about a call it does
not hold, a result for no call, not a ``PausedRun`` at all) fails the next run with a
:class:`~agentcore.errors.RunStateError` saying how to recover, before anything runs
or is stored; resumed as it was, it would run calls nobody approved or store a turn
that answers no call. The paused run kept in ``state`` by agentcore 0.1 is covered in
``test_faults_bad_input.py``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import attrs
import pytest

from agentcore import (
    Agent,
    AgentSession,
    FunctionResultContent,
    InMemoryHistoryStore,
    Message,
    tool,
)
from agentcore._sessions.session import PausedRun  # the type of AgentSession.paused
from agentcore.errors import RunStateError
from agentcore.serialization import SerializationError, from_json, to_json
from agentcore.testing import ScriptedChatClient

from ..loop.harness import assert_history_valid, one_call, run_agent, text

pytestmark = pytest.mark.anyio


class _Disk:
    def __init__(self) -> None:
        self.deleted: list[str] = []

        @tool(approval_mode="always_require")
        def delete(path: str) -> str:
            """Delete a file (a person must approve)."""
            self.deleted.append(path)
            return f"deleted {path}"

        self.tools = [delete]


async def _paused(
    stream: bool, *after: Any
) -> tuple[Agent, AgentSession, InMemoryHistoryStore, _Disk, ScriptedChatClient]:
    disk = _Disk()
    store = InMemoryHistoryStore()
    client = ScriptedChatClient([one_call("delete", '{"path": "a"}'), *after])
    agent = Agent(client, tools=disk.tools, history=store)
    session = agent.create_session()
    await run_agent(agent, "delete a", stream=stream, session=session)
    assert session.paused is not None
    return agent, session, store, disk, client


def _other_call(paused: PausedRun) -> PausedRun:
    [call] = paused.calls
    return attrs.evolve(paused, calls=[attrs.evolve(call, call_id="other")])


CORRUPTIONS: dict[str, tuple[Callable[[PausedRun], Any], str]] = {
    "not a paused run": (lambda p: {"calls": p.calls}, "it is a dict, not a PausedRun"),
    "no calls": (lambda p: attrs.evolve(p, calls=[]), "it holds no function calls"),
    "no requests": (lambda p: attrs.evolve(p, requests=[]), "it waits on no request"),
    "request about another call": (_other_call, "asks about a call the paused run does not"),
    "result for no call": (
        lambda p: attrs.evolve(p, completed=[FunctionResultContent("zz", result="x")]),
        "a completed result answers no call it holds",
    ),
}


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("answer", ["approve", "new message"])
@pytest.mark.parametrize("corruption", list(CORRUPTIONS))
async def test_a_paused_run_that_does_not_hold_together_is_refused_and_nothing_runs(
    stream: bool, answer: str, corruption: str
) -> None:
    agent, session, store, disk, client = await _paused(stream, text("done"))
    approval = Message("user", [r.create_response(True) for r in session.approval_requests])
    before = list(await store.load(session.session_id))
    corrupt, said = CORRUPTIONS[corruption]
    session.paused = corrupt(session.paused)  # type: ignore[arg-type]  # hand-edited
    broken = session.paused
    given = approval if answer == "approve" else "hello"

    with pytest.raises(RunStateError, match=r"session\.paused\) is corrupt") as caught:
        await run_agent(agent, given, stream=stream, session=session)

    assert said in str(caught.value)
    assert "session.paused = None" in str(caught.value)
    assert disk.deleted == []
    assert len(client.requests) == 1
    assert list(await store.load(session.session_id)) == before
    assert session.paused is broken
    # Giving up the paused run, as the error says, gets the session going again.
    session.paused = None
    response, _ = await run_agent(agent, "hello", stream=stream, session=session)
    assert response.text == "done"
    assert disk.deleted == []
    assert_history_valid(client.requests)


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("calls", 5, r"\$\.paused\.calls"),
        ("requests", [{"type": "text", "text": "hi"}], r"\$\.paused\.requests\[0\]"),
        ("locals", "not an object", r"\$\.paused\.locals"),
    ],
)
async def test_a_saved_paused_run_of_the_wrong_shape_fails_to_load_naming_the_field(
    field: str, value: object, said: str
) -> None:
    _agent, session, *_ = await _paused(False)
    saved = json.loads(to_json(session))
    saved["data"]["paused"][field] = value

    with pytest.raises(SerializationError, match=said):
        from_json(json.dumps(saved), AgentSession)
