"""Static types of agent runs: checked by mypy and basedpyright, and run by pytest.

``response.value`` has the type given as ``response_format`` (attrs class,
dataclass, TypedDict) or ``None``, since a run can end without an answer to parse
(M37b of user-mistakes.md: ``tool_choice="required"``); ``Any`` for a JSON-schema
dict; and ``None`` for a plain run, in streaming and non-streaming runs alike.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable
from typing import Any

import attrs
import pytest
from typing_extensions import TypedDict, assert_type

from agentcore import (
    Agent,
    AgentResponse,
    AgentResponseUpdate,
    ChatOptions,
    ChatResponse,
    FunctionCallContent,
    FunctionTool,
    HistoryStore,
    InMemoryHistoryStore,
    Message,
    ResponseStream,
    SqliteHistoryStore,
    SupportsAgentRun,
    tool,
)
from agentcore.testing import ScriptedChatClient

pytestmark = pytest.mark.anyio

ANSWER = '{"city": "Paris", "temp": 21}'


@tool(approval_mode="always_require")
def guarded(city: str) -> str:
    """Look the weather up, once someone approves."""
    return "sunny"


@tool
def lookup(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


@attrs.frozen
class Weather:
    city: str
    temp: int


@dataclasses.dataclass
class WeatherRecord:
    city: str
    temp: int


class WeatherDict(TypedDict):
    city: str
    temp: int


def _agent(*answers: str) -> Agent:
    return Agent(ScriptedChatClient(list(answers)), name="typed")


def test_agent_is_assignable_to_supports_agent_run() -> None:
    agent: SupportsAgentRun = _agent()
    assert isinstance(agent, SupportsAgentRun)


def test_history_stores_are_assignable_to_history_store() -> None:
    memory: HistoryStore = InMemoryHistoryStore()
    sqlite: HistoryStore = SqliteHistoryStore(":memory:")
    assert isinstance(memory, HistoryStore)
    assert isinstance(sqlite, HistoryStore)


async def test_value_of_an_attrs_response_format_is_that_class() -> None:
    response = await _agent(ANSWER).run("x", options={"response_format": Weather})
    assert_type(response, AgentResponse[Weather])
    assert_type(response.value, Weather | None)
    assert response.value == Weather("Paris", 21)


async def test_value_of_a_streamed_run_is_that_class() -> None:
    stream = _agent(ANSWER).run("x", options={"response_format": Weather}, stream=True)
    assert_type(stream, ResponseStream[AgentResponseUpdate, AgentResponse[Weather]])
    response = await stream.get_final_response()
    assert_type(response.value, Weather | None)
    assert response.value == Weather("Paris", 21)


async def test_value_of_a_dataclass_response_format_is_that_class() -> None:
    response = await _agent(ANSWER).run("x", options={"response_format": WeatherRecord})
    assert_type(response.value, WeatherRecord | None)
    assert response.value == WeatherRecord("Paris", 21)


async def test_value_of_a_typeddict_response_format_is_that_typeddict() -> None:
    response = await _agent(ANSWER).run("x", options={"response_format": WeatherDict})
    assert_type(response.value, WeatherDict | None)
    assert response.value is not None
    assert response.value["temp"] == 21


async def test_value_of_a_json_schema_response_format_is_any() -> None:
    schema = {"type": "object", "properties": {"city": {"type": "string"}}}
    response = await _agent(ANSWER).run("x", options={"response_format": schema})
    assert_type(response.value, Any | None)
    streamed = _agent(ANSWER).run("x", options={"response_format": schema}, stream=True)
    final = await streamed.get_final_response()
    assert_type(final.value, Any | None)
    assert response.value == final.value == {"city": "Paris", "temp": 21}


async def test_a_run_that_ends_on_tool_calls_has_no_value_and_its_type_says_so() -> None:
    # A run paused for approval ends on the tool call it waits on: there is no answer to
    # parse, and the type of value says it may be None. (tool_choice="required" would end
    # the same way, so run() refuses it together with response_format: M37b.)
    calling = ChatResponse(
        messages=(
            Message("assistant", (FunctionCallContent("c1", "guarded", '{"city": "Paris"}'),)),
        ),
        finish_reason="tool_calls",
    )
    agent = Agent(ScriptedChatClient([calling, ANSWER]), tools=[guarded])
    options: ChatOptions[Weather] = {"response_format": Weather}
    response = await agent.run("x", options=options, session=agent.create_session())
    assert_type(response.value, Weather | None)
    assert response.value is None  # the run paused on the call
    assert [r.function_call.name for r in response.approval_requests] == ["guarded"]


async def test_value_of_a_plain_run_is_none() -> None:
    response = await _agent("hi").run("x")
    assert_type(response.value, None)
    with_options = await _agent("hi").run("x", options={"temperature": 0.1})
    assert_type(with_options.value, None)
    streamed = await _agent("hi").run("x", stream=True).get_final_response()
    assert_type(streamed.value, None)
    assert response.value is with_options.value is streamed.value is None


def _streaming() -> bool:
    return True


async def test_a_bool_stream_flag_gives_either_result() -> None:
    result = _agent("hi").run("x", stream=_streaming())
    assert_type(
        result,
        Awaitable[AgentResponse[None]] | ResponseStream[AgentResponseUpdate, AgentResponse[None]],
    )
    assert isinstance(result, ResponseStream)
    final = await result.get_final_response()
    assert final.text == "hi"


def test_as_tool_is_a_function_tool() -> None:
    tool = _agent().as_tool(description="Answers typed questions.")
    assert_type(tool, FunctionTool[..., Any])
    assert tool.name == "typed"
