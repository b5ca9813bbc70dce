"""``Agent(...)`` and ``run(...)``: the signature, the protocol, the input forms, bad input."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from agentcore import (
    Agent,
    AgentSession,
    DataContent,
    InMemoryHistoryStore,
    Message,
    SupportsAgentRun,
    TextContent,
    UriContent,
)
from agentcore.testing import ScriptedChatClient

from ._runs import run_agent

pytestmark = pytest.mark.anyio

ISSUE_CONSTRUCTOR = [
    ("client", inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.empty),
    ("instructions", inspect.Parameter.POSITIONAL_OR_KEYWORD, None),
    ("name", inspect.Parameter.KEYWORD_ONLY, None),
    ("description", inspect.Parameter.KEYWORD_ONLY, None),
    ("tools", inspect.Parameter.KEYWORD_ONLY, ()),
    ("middleware", inspect.Parameter.KEYWORD_ONLY, ()),
    ("default_options", inspect.Parameter.KEYWORD_ONLY, None),
    ("context_providers", inspect.Parameter.KEYWORD_ONLY, ()),
    ("history", inspect.Parameter.KEYWORD_ONLY, None),
    ("tool_loop", inspect.Parameter.KEYWORD_ONLY, None),
]
ISSUE_RUN = [
    ("messages", inspect.Parameter.POSITIONAL_OR_KEYWORD, None),
    ("session", inspect.Parameter.KEYWORD_ONLY, None),
    ("stream", inspect.Parameter.KEYWORD_ONLY, False),
    ("options", inspect.Parameter.KEYWORD_ONLY, None),
    ("tools", inspect.Parameter.KEYWORD_ONLY, None),
    ("middleware", inspect.Parameter.KEYWORD_ONLY, None),
]


def _parameters(func: Any, skip_self: bool) -> list[tuple[str, Any, Any]]:
    params = list(inspect.signature(func).parameters.values())
    if skip_self:
        params = params[1:]
    return [(p.name, p.kind, p.default) for p in params]


def test_constructor_takes_the_parameters_of_the_issue_in_order() -> None:
    assert _parameters(Agent.__init__, skip_self=True)[: len(ISSUE_CONSTRUCTOR)] == (
        ISSUE_CONSTRUCTOR
    )


def test_run_takes_the_parameters_of_the_issue_in_order() -> None:
    assert _parameters(Agent.run, skip_self=True)[: len(ISSUE_RUN)] == ISSUE_RUN


def test_agent_is_a_supports_agent_run_at_run_time() -> None:
    agent = Agent(ScriptedChatClient([]), name="helper", description="helps")

    assert isinstance(agent, SupportsAgentRun)
    assert (agent.name, agent.description) == ("helper", "helps")


async def test_str_input_is_one_user_message(stream: bool) -> None:
    client = ScriptedChatClient(["hello back"])

    outcome = await run_agent(Agent(client), "hello", stream=stream)

    assert client.requests[0].messages == (Message("user", "hello"),)
    assert outcome.response.messages == (Message("assistant", "hello back"),)


async def test_message_input_is_sent_as_given(stream: bool) -> None:
    client = ScriptedChatClient(["ok"])
    message = Message("user", "hi", author_name="ada")

    await run_agent(Agent(client), message, stream=stream)

    assert client.requests[0].messages == (message,)


async def test_content_input_is_one_user_message(stream: bool) -> None:
    client = ScriptedChatClient(["a cat"])
    image = UriContent("https://example.com/cat.png", media_type="image/png")

    await run_agent(Agent(client), image, stream=stream)

    assert client.requests[0].messages == (Message("user", [image]),)


async def test_loose_contents_in_a_sequence_are_grouped_into_one_user_message(
    stream: bool,
) -> None:
    client = ScriptedChatClient(["seen"])
    text = TextContent("what is this?")
    data = DataContent(b"\x89PNG", "image/png")
    earlier = Message("assistant", "send me the picture")

    await run_agent(Agent(client), [earlier, text, data], stream=stream)

    assert client.requests[0].messages == (earlier, Message("user", [text, data]))


async def test_str_items_of_a_sequence_are_separate_user_messages(stream: bool) -> None:
    client = ScriptedChatClient(["both read"])

    await run_agent(Agent(client), ["first", "second"], stream=stream)

    assert client.requests[0].messages == (Message("user", "first"), Message("user", "second"))


async def test_a_message_in_a_sequence_ends_the_group_of_loose_contents(stream: bool) -> None:
    client = ScriptedChatClient(["fine"])
    a, b = TextContent("a"), TextContent("b")
    middle = Message("assistant", "m")

    await run_agent(Agent(client), [a, middle, b], stream=stream)

    assert client.requests[0].messages == (Message("user", [a]), middle, Message("user", [b]))


async def test_no_input_sends_the_stored_history_only(stream: bool) -> None:
    client = ScriptedChatClient(["first answer", "second answer"])
    agent = Agent(client, history=InMemoryHistoryStore())
    session = agent.create_session()
    await run_agent(agent, "question", stream=stream, session=session)

    await run_agent(agent, None, stream=stream, session=session)

    assert client.requests[1].messages == (
        Message("user", "question"),
        Message("assistant", "first answer"),
    )


@pytest.mark.parametrize("bad", [42, {"role": "user"}, [1, 2], ["ok", object()]])
def test_unsupported_input_is_a_type_error_naming_what_run_accepts(
    bad: object, stream: bool
) -> None:
    agent = Agent(ScriptedChatClient([]))

    with pytest.raises(TypeError, match="str, a Message, a content object, or a sequence"):
        agent.run(bad, stream=stream)  # type: ignore[call-overload]  # the mistake under test


def test_session_that_is_not_an_agent_session_is_a_type_error(stream: bool) -> None:
    agent = Agent(ScriptedChatClient([]))

    with pytest.raises(TypeError, match="session must be an AgentSession"):
        agent.run("hi", session="session-1", stream=stream)  # type: ignore[call-overload] # the mistake is the point


def test_constructor_rejects_something_that_is_not_a_chat_client() -> None:
    with pytest.raises(TypeError, match="chat client with a get_response"):
        Agent("gpt-4o")  # type: ignore[arg-type] # the mistake is the point


def test_constructor_rejects_instructions_that_are_not_a_str() -> None:
    with pytest.raises(TypeError, match="instructions must be a str, got list"):
        Agent(ScriptedChatClient([]), ["be brief"])  # type: ignore[arg-type] # the mistake is the point


def test_constructor_rejects_a_history_store_without_load_and_append() -> None:
    with pytest.raises(TypeError, match="is not a history store: it needs load"):
        Agent(ScriptedChatClient([]), history={})  # type: ignore[arg-type] # the mistake is the point


def test_constructor_rejects_a_context_provider_without_its_hooks() -> None:
    with pytest.raises(TypeError, match="is not a context provider"):
        Agent(ScriptedChatClient([]), context_providers=[object()])  # type: ignore[list-item] # the mistake is the point


async def test_response_holds_what_the_run_produced_with_the_agent_name(stream: bool) -> None:
    client = ScriptedChatClient(["done"])

    outcome = await run_agent(Agent(client, name="worker"), "go", stream=stream)

    assert outcome.response.agent_name == "worker"
    assert outcome.response.finish_reason == "stop"
    assert [m.role for m in outcome.response.messages] == ["assistant"]


def test_create_session_gives_fresh_sessions() -> None:
    agent = Agent(ScriptedChatClient([]))

    first, second = agent.create_session(), agent.create_session()

    assert isinstance(first, AgentSession)
    assert first.session_id != second.session_id
    assert agent.create_session(session_id="s-1").session_id == "s-1"
