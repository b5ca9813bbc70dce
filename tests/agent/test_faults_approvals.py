"""An approval is spent once, and no paused session can be stuck.

Two resumes from two copies of one saved session run the call once: the stored
history already holds its result, so the second is refused. A pause the user moved
past cannot be approved later. Whatever a paused batch holds (a tool that aborts the
run, a call to an unknown tool under ``terminate_on_unknown_calls=True``), approving,
rejecting and a new message all lead somewhere; ``terminate_on_unknown_calls=True``
raises on the first run instead of pausing.
"""

from __future__ import annotations

from typing import Any

import pytest

from agentcore import (
    Agent,
    AgentSession,
    FunctionInvocationConfiguration,
    FunctionResultContent,
    InMemoryHistoryStore,
    Message,
    tool,
)
from agentcore.errors import RunAbortedError, RunStateError, UnknownToolError
from agentcore.serialization import from_json, to_json
from agentcore.testing import ScriptedChatClient

from ..loop.harness import assert_history_valid, calls, one_call, results, run_agent, text

pytestmark = pytest.mark.anyio


class _Ran:
    def __init__(self) -> None:
        self.count = 0


def _tools(ran: _Ran) -> list[Any]:
    @tool(approval_mode="always_require")
    def delete(path: str) -> str:
        """Delete a file (a person must approve)."""
        ran.count += 1
        return f"deleted {path}"

    @tool
    def guard() -> str:
        """A check that cannot run: it ends the run."""
        raise RunAbortedError("the guard service is down")

    return [delete, guard]


def _agent(
    client: ScriptedChatClient, store: InMemoryHistoryStore, ran: _Ran, **settings: Any
) -> Agent:
    config = FunctionInvocationConfiguration(**settings)
    return Agent(client, tools=_tools(ran), history=store, tool_loop=config)


def _approve(session: AgentSession, approved: bool = True) -> Message:
    return Message("user", [r.create_response(approved) for r in session.approval_requests])


async def _stored_valid(store: InMemoryHistoryStore, session: AgentSession) -> list[Message]:
    stored = list(await store.load(session.session_id))
    probe = ScriptedChatClient([text("probe")])
    await Agent(probe, history=store).run("probe", session=AgentSession(session.session_id))
    assert_history_valid(probe.requests)
    return stored


# -- an approval is spent once -------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True])
async def test_two_resumes_from_two_copies_of_a_saved_session_run_the_call_once(
    stream: bool,
) -> None:
    store = InMemoryHistoryStore()
    ran = _Ran()
    client = ScriptedChatClient(
        [one_call("delete", '{"path": "a"}'), text("deleted"), text("unused")]
    )
    agent = _agent(client, store, ran)
    session = agent.create_session()
    await run_agent(agent, "delete a", stream=stream, session=session)
    saved = to_json(session)
    first, second = from_json(saved, AgentSession), from_json(saved, AgentSession)

    await run_agent(agent, _approve(first), stream=stream, session=first)
    after_first = list(await store.load(session.session_id))

    with pytest.raises(RunStateError, match="already"):
        await run_agent(agent, _approve(second), stream=stream, session=second)

    assert ran.count == 1
    assert list(await store.load(session.session_id)) == after_first
    # The stale copy is not stuck: a new message goes on from the stored history.
    client2 = ScriptedChatClient([text("what next?")])
    agent.client = client2
    response, _ = await run_agent(agent, "thanks", stream=stream, session=second)
    assert response.text == "what next?"
    assert ran.count == 1
    assert_history_valid(client2.requests)


@pytest.mark.parametrize("stream", [False, True])
async def test_a_pause_the_user_moved_past_cannot_be_approved_later(stream: bool) -> None:
    store = InMemoryHistoryStore()
    ran = _Ran()
    client = ScriptedChatClient(
        [one_call("delete", '{"path": "a"}'), text("left it"), text("unused")]
    )
    agent = _agent(client, store, ran)
    session = agent.create_session()
    await run_agent(agent, "delete a", stream=stream, session=session)
    old = from_json(to_json(session), AgentSession)
    approval = _approve(old)

    await run_agent(agent, "never mind", stream=stream, session=session)
    with pytest.raises(RunStateError):
        await run_agent(agent, approval, stream=stream, session=session)
    with pytest.raises(RunStateError, match="already"):
        await run_agent(agent, approval, stream=stream, session=old)

    assert ran.count == 0
    await _stored_valid(store, session)


# -- no session can be stuck ---------------------------------------------------------


async def _paused_with_guard(
    stream: bool, *after: Any
) -> tuple[Agent, AgentSession, InMemoryHistoryStore, _Ran, ScriptedChatClient]:
    store = InMemoryHistoryStore()
    ran = _Ran()
    client = ScriptedChatClient(
        [calls(("d", "delete", '{"path": "a"}'), ("g", "guard", "{}")), *after]
    )
    agent = _agent(client, store, ran)
    session = agent.create_session()
    outcome, _ = await run_agent(agent, "delete a", stream=stream, session=session)
    assert outcome.approval_requests
    return agent, session, store, ran, client


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("approved", [True, False], ids=["approve", "reject"])
async def test_a_batch_with_an_aborting_tool_raises_and_a_new_message_still_goes_on(
    stream: bool, approved: bool
) -> None:
    agent, session, store, _ran, client = await _paused_with_guard(stream, text("moved on"))
    before = list(await store.load(session.session_id))

    with pytest.raises(RunAbortedError, match="guard service is down"):
        await run_agent(agent, _approve(session, approved), stream=stream, session=session)

    assert list(await store.load(session.session_id)) == before
    response, _ = await run_agent(agent, "forget it", stream=stream, session=session)
    assert response.text == "moved on"
    assert session.approval_requests == ()
    outcomes = {r.call_id: r.error for r in results(response.messages)}
    assert outcomes == {"d": "rejected", "g": "rejected"}
    assert_history_valid(client.requests)
    await _stored_valid(store, session)


@pytest.mark.parametrize("stream", [False, True])
async def test_terminate_on_unknown_calls_raises_on_the_first_run_instead_of_pausing(
    stream: bool,
) -> None:
    store = InMemoryHistoryStore()
    ran = _Ran()
    client = ScriptedChatClient([calls(("d", "delete", '{"path": "a"}'), ("x", "nope", "{}"))])
    agent = _agent(client, store, ran, terminate_on_unknown_calls=True)
    session = agent.create_session()

    with pytest.raises(UnknownToolError, match="'nope'"):
        await run_agent(agent, "delete a", stream=stream, session=session)

    assert session.approval_requests == ()
    assert session.state == {}
    assert list(await store.load(session.session_id)) == []


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("answer", ["approve", "reject", "new message"])
async def test_a_saved_pause_holding_an_unknown_call_leads_somewhere(
    stream: bool, answer: str
) -> None:
    store = InMemoryHistoryStore()
    ran = _Ran()
    client = ScriptedChatClient(
        [calls(("d", "delete", '{"path": "a"}'), ("x", "nope", "{}")), text("done")]
    )
    # Paused by an agent that tells the model about unknown tools; resumed by one
    # that terminates on them (a configuration changed between the two runs).
    await run_agent(
        _agent(client, store, ran), "delete a", stream=stream, session=(s := AgentSession())
    )
    strict = _agent(client, store, ran, terminate_on_unknown_calls=True)
    given: Any = {"approve": _approve(s), "reject": _approve(s, False)}.get(answer, answer)

    response, _ = await run_agent(strict, given, stream=stream, session=s)

    assert response.text == "done"
    outcomes = {r.call_id: r.error for r in results(response.messages)}
    assert outcomes["x"] == ("unknown tool" if answer != "new message" else "rejected")
    assert ran.count == (1 if answer == "approve" else 0)
    assert s.state == {}
    assert_history_valid(client.requests)
    await _stored_valid(store, s)


@pytest.mark.parametrize("stream", [False, True])
async def test_an_approved_call_that_aborts_keeps_the_pause_for_another_answer(
    stream: bool,
) -> None:
    store = InMemoryHistoryStore()

    @tool(approval_mode="always_require")
    def risky() -> str:
        """Needs approval, then aborts."""
        raise RunAbortedError("aborted on purpose")

    client = ScriptedChatClient([one_call("risky"), text("left it")])
    agent = Agent(client, tools=[risky], history=store)
    session = agent.create_session()
    await run_agent(agent, "go", stream=stream, session=session)

    with pytest.raises(RunAbortedError):
        await run_agent(agent, _approve(session), stream=stream, session=session)
    response, _ = await run_agent(agent, _approve(session, False), stream=stream, session=session)

    assert response.text == "left it"
    assert [r.error for r in results(response.messages)] == ["rejected"]
    assert isinstance(results(response.messages)[0], FunctionResultContent)
    await _stored_valid(store, session)


@pytest.mark.parametrize("stream", [False, True])
async def test_a_rejection_goes_through_when_the_tool_is_gone(stream: bool) -> None:
    # Approving needs the tool (the refusal keeps the pause, see
    # tests/user_mistakes/test_runs.py); rejecting runs nothing, so it needs none.
    store = InMemoryHistoryStore()
    ran = _Ran()
    client = ScriptedChatClient([one_call("delete", '{"path": "a"}'), text("kept it")])
    agent = _agent(client, store, ran)
    session = agent.create_session()
    await run_agent(agent, "delete a", stream=stream, session=session)
    agent.tools = []

    with pytest.raises(RunStateError, match="has no tool of that name"):
        await run_agent(agent, _approve(session), stream=stream, session=session)
    response, _ = await run_agent(agent, _approve(session, False), stream=stream, session=session)

    assert response.text == "kept it"
    assert [r.error for r in results(response.messages)] == ["rejected"]
    assert ran.count == 0
    assert session.paused is None
    assert_history_valid(client.requests)
    await _stored_valid(store, session)
