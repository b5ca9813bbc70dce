"""``agent.as_tool()``: an agent as a tool of another agent, its usage counted outside."""

from __future__ import annotations

import pytest

from agentcore import Agent, FunctionResultContent, Message, Usage
from agentcore.testing import ScriptedChatClient

from ._runs import answer_turn, call_turn, run_agent

pytestmark = pytest.mark.anyio

INNER_USAGE = Usage(input_tokens=10, output_tokens=5, total_tokens=15)
CALL_USAGE = Usage(input_tokens=3, output_tokens=2, total_tokens=5)
ANSWER_USAGE = Usage(input_tokens=4, output_tokens=1, total_tokens=5)


def _researcher() -> tuple[Agent, ScriptedChatClient]:
    client = ScriptedChatClient([answer_turn("Paris has 2.1 million people.", usage=INNER_USAGE)])
    return Agent(client, name="researcher", description="Looks facts up."), client


def _outer(researcher: Agent) -> tuple[Agent, ScriptedChatClient]:
    client = ScriptedChatClient(
        [
            call_turn("researcher", '{"task": "population of Paris"}', usage=CALL_USAGE),
            answer_turn("About 2.1 million.", usage=ANSWER_USAGE),
        ]
    )
    return Agent(client, tools=[researcher.as_tool()]), client


async def test_the_inner_agent_runs_on_the_task_and_its_answer_is_the_result(
    stream: bool,
) -> None:
    researcher, inner_client = _researcher()
    outer, _ = _outer(researcher)

    outcome = await run_agent(outer, "How many people live in Paris?", stream=stream)

    assert inner_client.requests[0].messages == (Message("user", "population of Paris"),)
    assert outcome.response.messages[1].contents == (
        FunctionResultContent("call_1", result="Paris has 2.1 million people."),
    )
    assert outcome.response.text == "About 2.1 million."


async def test_the_inner_runs_usage_adds_to_the_outer_runs_usage(stream: bool) -> None:
    researcher, _ = _researcher()
    outer, _ = _outer(researcher)

    outcome = await run_agent(outer, "How many people live in Paris?", stream=stream)

    assert outcome.response.usage == CALL_USAGE + INNER_USAGE + ANSWER_USAGE


def test_the_tool_is_named_and_described_after_the_agent() -> None:
    researcher, _ = _researcher()

    declaration = researcher.as_tool().declaration()

    assert declaration["name"] == "researcher"
    assert declaration["description"] == "Looks facts up."
    assert list(declaration["parameters"]["properties"]) == ["task"]


def test_name_and_description_can_be_given() -> None:
    researcher, _ = _researcher()

    as_tool = researcher.as_tool(name="lookup", description="Finds one fact.")

    assert (as_tool.name, as_tool.description) == ("lookup", "Finds one fact.")


def test_an_agent_without_a_name_needs_a_tool_name() -> None:
    anonymous = Agent(ScriptedChatClient([]))

    with pytest.raises(ValueError, match="as_tool\\(\\) needs a name"):
        anonymous.as_tool()
    assert anonymous.as_tool(name="helper").name == "helper"
