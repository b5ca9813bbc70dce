"""Options merging: defaults under run options, ``None`` is unset, instructions, tools."""

from __future__ import annotations

from typing import Any

import pytest

from agentcore import Agent, ChatOptions, FunctionResultContent, Message, tool
from agentcore.testing import ScriptedChatClient

from ._runs import answer_turn, call_turn, run_agent

pytestmark = pytest.mark.anyio


@tool
def lookup(term: str) -> str:
    """Look a term up."""
    return f"definition of {term}"


@tool(name="lookup")
def other_lookup(term: str) -> str:
    """A second tool that claims the name ``lookup``."""
    return term


@tool
def translate(text: str) -> str:
    """Translate to French."""
    return f"fr:{text}"


def _tool_names(options: Any) -> list[str]:
    return [t.name for t in options["tools"]]


async def test_default_options_reach_the_client(stream: bool) -> None:
    client = ScriptedChatClient(["ok"])
    agent = Agent(client, default_options={"model": "small", "temperature": 0.2})

    await run_agent(agent, "hi", stream=stream)

    assert client.requests[0].options["model"] == "small"
    assert client.requests[0].options["temperature"] == 0.2


async def test_run_options_override_default_options(stream: bool) -> None:
    client = ScriptedChatClient(["ok"])
    agent = Agent(client, default_options={"model": "small", "temperature": 0.2})

    await run_agent(agent, "hi", stream=stream, options={"temperature": 0.9})

    assert client.requests[0].options["temperature"] == 0.9
    assert client.requests[0].options["model"] == "small"


async def test_run_option_none_keeps_the_default(stream: bool) -> None:
    client = ScriptedChatClient(["ok"])
    agent = Agent(client, default_options={"temperature": 0.2})

    await run_agent(agent, "hi", stream=stream, options={"temperature": None})

    assert client.requests[0].options["temperature"] == 0.2


async def test_default_option_none_is_not_sent(stream: bool) -> None:
    client = ScriptedChatClient(["ok"])
    agent = Agent(client, default_options={"temperature": None, "seed": 7})

    await run_agent(agent, "hi", stream=stream)

    assert "temperature" not in client.requests[0].options
    assert client.requests[0].options["seed"] == 7


async def test_run_options_apply_to_that_run_only(stream: bool) -> None:
    client = ScriptedChatClient(["one", "two"])
    agent = Agent(client, default_options={"temperature": 0.2})

    await run_agent(agent, "a", stream=stream, options={"temperature": 0.9, "max_tokens": 5})
    await run_agent(agent, "b", stream=stream)

    assert client.requests[1].options == {"temperature": 0.2}


async def test_the_callers_options_mapping_is_not_changed(stream: bool) -> None:
    client = ScriptedChatClient(["ok"])
    options: ChatOptions = {"temperature": 0.5, "instructions": "be brief"}
    agent = Agent(client, "agent rules", tools=[lookup])

    await run_agent(agent, "hi", stream=stream, options=options)

    assert options == {"temperature": 0.5, "instructions": "be brief"}


async def test_agent_instructions_are_sent_in_the_instructions_option(stream: bool) -> None:
    client = ScriptedChatClient(["ok"])

    await run_agent(Agent(client, "You are terse."), "hi", stream=stream)

    assert client.requests[0].options["instructions"] == "You are terse."
    assert client.requests[0].messages == (Message("user", "hi"),)


async def test_run_instructions_are_joined_after_the_agent_instructions(stream: bool) -> None:
    client = ScriptedChatClient(["ok"])
    agent = Agent(client, "You are terse.")

    await run_agent(agent, "hi", stream=stream, options={"instructions": "Answer in French."})

    assert client.requests[0].options["instructions"] == "You are terse.\n\nAnswer in French."


async def test_run_instructions_alone_are_sent_when_the_agent_has_none(stream: bool) -> None:
    client = ScriptedChatClient(["ok"])

    await run_agent(Agent(client), "hi", stream=stream, options={"instructions": "Be kind."})

    assert client.requests[0].options["instructions"] == "Be kind."


async def test_no_instructions_means_no_instructions_option(stream: bool) -> None:
    client = ScriptedChatClient(["ok"])

    await run_agent(Agent(client), "hi", stream=stream)

    assert "instructions" not in client.requests[0].options


async def test_run_tools_are_declared_after_the_agent_tools(stream: bool) -> None:
    client = ScriptedChatClient(["ok"])
    agent = Agent(client, tools=[lookup])

    await run_agent(agent, "hi", stream=stream, tools=[translate])

    assert _tool_names(client.requests[0].options) == ["lookup", "translate"]


async def test_a_run_tool_is_called_like_an_agent_tool(stream: bool) -> None:
    client = ScriptedChatClient([call_turn("translate", '{"text": "cat"}'), answer_turn("chat")])
    agent = Agent(client, tools=[lookup])

    outcome = await run_agent(agent, "cat in French?", stream=stream, tools=[translate])

    assert outcome.response.messages[1].contents == (
        FunctionResultContent("call_1", result="fr:cat"),
    )


async def test_run_tools_do_not_stay_on_the_agent(stream: bool) -> None:
    client = ScriptedChatClient(["one", "two"])
    agent = Agent(client, tools=[lookup])

    await run_agent(agent, "a", stream=stream, tools=[translate])
    await run_agent(agent, "b", stream=stream)

    assert _tool_names(client.requests[1].options) == ["lookup"]


async def test_tools_assigned_to_the_agent_later_are_the_ones_that_run(stream: bool) -> None:
    # The agent indexes its tools once; a new tools tuple is indexed again.
    client = ScriptedChatClient(
        [
            call_turn("lookup", '{"term": "cat"}'),
            answer_turn("done"),
            call_turn("translate", '{"text": "cat"}'),
            answer_turn("done"),
        ]
    )
    agent = Agent(client, tools=[lookup])
    first = await run_agent(agent, "a", stream=stream)
    agent.tools = (translate,)
    second = await run_agent(agent, "b", stream=stream)

    assert first.response.messages[1].contents[0] == FunctionResultContent(
        "call_1", result="definition of cat"
    )
    assert second.response.messages[1].contents[0] == FunctionResultContent(
        "call_1", result="fr:cat"
    )


def test_a_run_tool_with_the_name_of_an_agent_tool_is_a_value_error(stream: bool) -> None:
    agent = Agent(ScriptedChatClient([]), tools=[lookup])

    with pytest.raises(ValueError, match="two tools named 'lookup'"):
        agent.run("hi", stream=stream, tools=[other_lookup])


def test_two_agent_tools_with_one_name_are_a_value_error() -> None:

    with pytest.raises(ValueError, match=r"two tools named 'lookup'.*must be unique"):
        Agent(ScriptedChatClient([]), tools=[lookup, other_lookup])
