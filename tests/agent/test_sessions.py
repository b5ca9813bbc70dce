"""Sessions: fields, JSON round-trip, and provider-kept conversations."""

from __future__ import annotations

import json

import attrs
import pytest

from agentcore import Agent, AgentSession, InMemoryHistoryStore, Message
from agentcore.serialization import SCHEMA_VERSION, from_json, to_json
from agentcore.testing import ScriptedChatClient

from ._runs import answer_turn, run_agent

pytestmark = pytest.mark.anyio


def test_a_session_has_an_id_a_service_conversation_id_a_state_and_a_paused_run() -> None:
    session = AgentSession()

    assert [f.name for f in attrs.fields(AgentSession)] == [
        "session_id",
        "service_conversation_id",
        "state",
        "paused",
        "_history_store",  # in memory only: the store its history went to (not saved)
    ]
    assert session.session_id
    assert (session.service_conversation_id, session.state, session.paused) == (None, {}, None)


def test_sessions_get_distinct_ids_and_states() -> None:
    first, second = AgentSession(), AgentSession()
    first.state["k"] = 1

    assert first.session_id != second.session_id
    assert second.state == {}


def test_a_session_round_trips_through_versioned_json() -> None:
    session = AgentSession(
        service_conversation_id="conv_9",
        state={"user": "ada", "prefs": {"units": ["metric"], "n": 3, "on": True}},
    )

    text = to_json(session)

    envelope = json.loads(text)
    assert (envelope["schema_version"], envelope["kind"]) == (SCHEMA_VERSION, "AgentSession")
    assert from_json(text, AgentSession) == session


async def test_a_conversation_id_from_the_provider_is_recorded_on_the_session(
    stream: bool,
) -> None:
    client = ScriptedChatClient([answer_turn("hi", conversation_id="conv_1")])
    agent = Agent(client)
    session = agent.create_session()

    await run_agent(agent, "hello", stream=stream, session=session)

    assert session.service_conversation_id == "conv_1"


async def test_a_provider_kept_conversation_is_not_resent(stream: bool) -> None:
    client = ScriptedChatClient(
        [answer_turn("hi", conversation_id="conv_1"), answer_turn("fine", conversation_id="conv_1")]
    )
    agent = Agent(client, history=InMemoryHistoryStore())
    session = agent.create_session()
    await run_agent(agent, "hello", stream=stream, session=session)

    await run_agent(agent, "how are you?", stream=stream, session=session)

    assert client.requests[1].messages == (Message("user", "how are you?"),)
    assert client.requests[1].options["conversation_id"] == "conv_1"


async def test_a_provider_kept_conversation_is_not_stored_locally(stream: bool) -> None:
    store = InMemoryHistoryStore()
    client = ScriptedChatClient([answer_turn("hi", conversation_id="conv_1")])
    agent = Agent(client, history=store)
    session = agent.create_session()

    await run_agent(agent, "hello", stream=stream, session=session)

    assert await store.load(session.session_id) == []


async def test_a_session_with_a_service_conversation_sends_its_id_on_the_first_run(
    stream: bool,
) -> None:
    client = ScriptedChatClient(["welcome back"])
    session = AgentSession(service_conversation_id="conv_7")

    await run_agent(Agent(client), "I'm back", stream=stream, session=session)

    assert client.requests[0].options["conversation_id"] == "conv_7"
    assert client.requests[0].messages == (Message("user", "I'm back"),)


async def test_without_a_conversation_id_the_history_is_resent(stream: bool) -> None:
    client = ScriptedChatClient(["hi", "fine"])
    agent = Agent(client, history=InMemoryHistoryStore())
    session = agent.create_session()
    await run_agent(agent, "hello", stream=stream, session=session)

    await run_agent(agent, "how are you?", stream=stream, session=session)

    assert client.requests[1].messages == (
        Message("user", "hello"),
        Message("assistant", "hi"),
        Message("user", "how are you?"),
    )
    assert "conversation_id" not in client.requests[1].options
