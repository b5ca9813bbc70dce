"""Caller input is checked before a run records it, and the stored transcript stays in order.

An orphan tool result, a second result for a call, a call reusing an earlier call's
id, or a function call (or result) in a user message, is refused by ``run()`` with a
clear error and nothing is stored. A new user message never lands between a turn's
calls and their results: results owed to the calls that end the stored history are
stored first.
"""

from __future__ import annotations

import pytest

from agentcore import (
    Agent,
    FunctionCallContent,
    FunctionInvocationConfiguration,
    FunctionResultContent,
    InMemoryHistoryStore,
    Message,
    tool,
)
from agentcore.errors import RunStateError
from agentcore.testing import ScriptedChatClient

from ..loop.harness import assert_history_valid, one_call, run_agent, text

pytestmark = pytest.mark.anyio


@tool
def pick_file() -> str:
    """Pick a file (the caller runs it)."""
    return "unused"


def _roles(messages: object) -> list[str]:
    return [m.role for m in messages]  # type: ignore[attr-defined]  # a sequence of messages


def _agent(client: ScriptedChatClient, store: InMemoryHistoryStore) -> Agent:
    config = FunctionInvocationConfiguration(additional_tools=[pick_file])
    return Agent(client, history=store, tool_loop=config)


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(
    ("given", "said"),
    [
        (
            [Message("tool", [FunctionResultContent("nobody", result="x")])],
            r"result for call 'nobody', which no earlier message",
        ),
        (
            [Message("user", [FunctionCallContent("c9", "pick_file", "{}")])],
            r"'user' message holding a function call",
        ),
        (FunctionCallContent("c9", "pick_file", "{}"), r"'user' message holding a function call"),
        (
            [Message("user", [FunctionResultContent("c1", result="x")])],
            r"results go in tool messages",
        ),
    ],
    ids=["orphan-result", "call-in-user-message", "loose-call", "result-in-user-message"],
)
async def test_malformed_input_is_refused_and_nothing_is_stored(
    stream: bool, given: object, said: str
) -> None:
    store = InMemoryHistoryStore()
    client = ScriptedChatClient([text("hello"), text("unused")])
    agent = Agent(client, history=store)
    session = agent.create_session()
    await run_agent(agent, "hi", stream=stream, session=session)
    before = list(await store.load(session.session_id))

    with pytest.raises(RunStateError, match=said):
        await run_agent(agent, given, stream=stream, session=session)

    assert list(await store.load(session.session_id)) == before
    assert len(client.requests) == 1


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(
    ("given", "said"),
    [
        (
            [Message("tool", [FunctionResultContent("c1", result="again")])],
            r"result for call 'c1', which already has one",
        ),
        (
            [Message("user", "also"), Message("tool", [FunctionResultContent("c1", result="x")])],
            r"message 1 holds a result for call 'c1', which already has one",
        ),
        (
            [Message("assistant", [FunctionCallContent("c1", "pick_file", "{}")])],
            r"makes call 'c1' \('pick_file'\), but an earlier message .* already made",
        ),
        (
            [
                Message(
                    "assistant",
                    [
                        FunctionCallContent("c7", "pick_file", "{}"),
                        FunctionCallContent("c7", "pick_file", "{}"),
                    ],
                )
            ],
            r"makes call 'c7'",
        ),
    ],
    ids=["second-result", "second-result-later", "call-id-reused", "call-id-twice"],
)
async def test_a_second_result_or_a_reused_call_id_is_refused_and_nothing_is_stored(
    stream: bool, given: object, said: str
) -> None:
    # A stored result after the turn's answer would put the transcript out of order; two
    # calls with one id make a request providers reject.
    store = InMemoryHistoryStore()
    client = ScriptedChatClient([one_call("pick_file"), text("unused")])
    agent = Agent(client, tools=[pick_file], history=store)
    session = agent.create_session()
    await run_agent(agent, "open a file", stream=stream, session=session)
    before = list(await store.load(session.session_id))

    with pytest.raises(RunStateError, match=said):
        await run_agent(agent, given, stream=stream, session=session)

    assert list(await store.load(session.session_id)) == before
    assert len(client.requests) == 2


@pytest.mark.parametrize("stream", [False, True])
async def test_an_orphan_result_without_a_session_is_refused(stream: bool) -> None:
    client = ScriptedChatClient([text("unused")])

    with pytest.raises(RunStateError, match="no earlier message"):
        await run_agent(
            Agent(client),
            [Message("user", "hi"), Message("tool", [FunctionResultContent("x", result=1)])],
            stream=stream,
        )
    assert client.requests == []


@pytest.mark.parametrize("stream", [False, True])
async def test_a_whole_conversation_given_as_input_is_accepted(stream: bool) -> None:
    client = ScriptedChatClient([text("done")])
    conversation = [
        Message("user", "go"),
        Message("assistant", [FunctionCallContent("c1", "pick_file", "{}")]),
        Message("tool", [FunctionResultContent("c1", result="notes.txt")]),
    ]

    response, _ = await run_agent(Agent(client), conversation, stream=stream)

    assert response.text == "done"


@pytest.mark.parametrize("stream", [False, True])
async def test_a_new_message_after_open_calls_is_stored_after_their_results(stream: bool) -> None:
    store = InMemoryHistoryStore()
    client = ScriptedChatClient([one_call("pick_file"), text("never mind then")])
    agent = _agent(client, store)
    session = agent.create_session()
    await run_agent(agent, "open a file", stream=stream, session=session)

    await run_agent(agent, "forget it", stream=stream, session=session)

    stored = await store.load(session.session_id)
    assert _roles(stored) == ["user", "assistant", "tool", "user", "assistant"]
    assert stored[2].contents[0].error is not None  # type: ignore[union-attr]  # a result
    assert_history_valid(client.requests)


@pytest.mark.parametrize("stream", [False, True])
async def test_a_result_given_after_a_new_message_is_stored_before_it(stream: bool) -> None:
    store = InMemoryHistoryStore()
    client = ScriptedChatClient([one_call("pick_file"), text("thanks")])
    agent = _agent(client, store)
    session = agent.create_session()
    await run_agent(agent, "open a file", stream=stream, session=session)
    answer = FunctionResultContent("c1", result="notes.txt")

    await run_agent(
        agent,
        [Message("user", "here it is"), Message("tool", [answer])],
        stream=stream,
        session=session,
    )

    stored = await store.load(session.session_id)
    assert _roles(stored) == ["user", "assistant", "tool", "user", "assistant"]
    assert stored[2].contents == (answer,)
    assert stored[3] == Message("user", "here it is")
    assert_history_valid(client.requests)


@pytest.mark.parametrize("stream", [False, True])
async def test_the_callers_result_then_a_message_is_stored_as_given(stream: bool) -> None:
    store = InMemoryHistoryStore()
    client = ScriptedChatClient([one_call("pick_file"), text("thanks")])
    agent = _agent(client, store)
    session = agent.create_session()
    await run_agent(agent, "open a file", stream=stream, session=session)
    answer = Message("tool", [FunctionResultContent("c1", result="notes.txt")])

    await run_agent(agent, [answer, Message("user", "ok?")], stream=stream, session=session)

    stored = await store.load(session.session_id)
    assert stored[2:4] == [answer, Message("user", "ok?")]
    assert_history_valid(client.requests)
