"""Structured output: ``response_format`` reaches the client and ``value`` has its type."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import attrs
import pytest
from typing_extensions import TypedDict

from agentcore import (
    Agent,
    AgentContext,
    ChatOptions,
    ChatResponse,
    FunctionCallContent,
    FunctionInvocationContext,
    InMemoryHistoryStore,
    Message,
    MiddlewareTermination,
    ResponseStream,
    TextContent,
)
from agentcore.errors import StructuredOutputError
from agentcore.middleware import CallNext
from agentcore.structured import JsonSchemaOptions, json_schema_for
from agentcore.testing import ScriptedChatClient

from ._runs import run_agent

pytestmark = pytest.mark.anyio

ANSWER = '{"city": "Paris", "temp": 21}'


@attrs.frozen
class AttrsWeather:
    city: str
    temp: int


@dataclasses.dataclass
class DataclassWeather:
    city: str
    temp: int


class TypedDictWeather(TypedDict):
    city: str
    temp: int


SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "temp": {"type": "integer"}},
    "required": ["city", "temp"],
    "additionalProperties": False,
}

FORMATS: list[tuple[Any, Any]] = [
    (AttrsWeather, AttrsWeather("Paris", 21)),
    (DataclassWeather, DataclassWeather("Paris", 21)),
    (TypedDictWeather, {"city": "Paris", "temp": 21}),
    (SCHEMA, {"city": "Paris", "temp": 21}),
]
FORMAT_IDS = ["attrs", "dataclass", "typeddict", "json-schema"]
TYPED_FORMATS = [AttrsWeather, DataclassWeather, TypedDictWeather]


def _options(response_format: Any) -> ChatOptions[Any]:
    return {"response_format": response_format}


@pytest.mark.parametrize(("response_format", "_expected"), FORMATS, ids=FORMAT_IDS)
async def test_the_client_receives_the_response_format(
    response_format: Any, _expected: Any, stream: bool
) -> None:
    client = ScriptedChatClient([ANSWER])

    await run_agent(Agent(client), "weather?", stream=stream, options=_options(response_format))

    sent = client.requests[0].options["response_format"]
    assert sent is response_format
    _name, schema = json_schema_for(sent)
    assert schema["type"] == "object"
    assert set(schema["properties"]) == {"city", "temp"}


@pytest.mark.parametrize(("response_format", "expected"), FORMATS, ids=FORMAT_IDS)
async def test_value_is_the_answer_parsed_into_the_format(
    response_format: Any, expected: Any, stream: bool
) -> None:
    client = ScriptedChatClient([ANSWER])

    outcome = await run_agent(
        Agent(client), "weather?", stream=stream, options=_options(response_format)
    )

    assert outcome.response.value == expected
    assert type(outcome.response.value) is type(expected)
    assert outcome.response.text == ANSWER


async def test_value_is_none_without_a_response_format(stream: bool) -> None:
    client = ScriptedChatClient([ANSWER])

    outcome = await run_agent(Agent(client), "weather?", stream=stream)

    assert outcome.response.value is None


async def test_value_comes_from_the_final_answer_after_a_tool_round(stream: bool) -> None:
    client = ScriptedChatClient(
        [
            ChatResponse(
                messages=[
                    Message(
                        "assistant",
                        ["Let me look.", FunctionCallContent("c1", "forecast", '{"city": "P"}')],
                    )
                ],
                finish_reason="tool_calls",
            ),
            ANSWER,
        ]
    )

    def forecast(city: str) -> str:
        """The forecast."""
        return f"{city}: 21"

    outcome = await run_agent(
        Agent(client, tools=[forecast]),
        "weather?",
        stream=stream,
        options=_options(AttrsWeather),
    )

    assert outcome.response.value == AttrsWeather("Paris", 21)


async def test_a_fenced_json_answer_is_parsed(stream: bool) -> None:
    client = ScriptedChatClient([f"```json\n{ANSWER}\n```"])

    outcome = await run_agent(
        Agent(client), "weather?", stream=stream, options=_options(AttrsWeather)
    )

    assert outcome.response.value == AttrsWeather("Paris", 21)


@pytest.mark.parametrize("response_format", [*TYPED_FORMATS, SCHEMA], ids=FORMAT_IDS)
async def test_an_answer_that_is_not_json_raises_with_the_raw_text(
    response_format: Any, stream: bool
) -> None:
    client = ScriptedChatClient(["It is sunny in Paris."])

    with pytest.raises(StructuredOutputError, match="not valid JSON") as caught:
        await run_agent(Agent(client), "weather?", stream=stream, options=_options(response_format))

    assert caught.value.raw_text == "It is sunny in Paris."


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        ('{"city": "Paris"}', r"\$\.temp: missing required field"),
        ('{"city": "Paris", "temp": "21"}', r"\$\.temp: expected int, got '21'"),
        ('{"city": "Paris", "temp": 21, "wind": 3}', r"unexpected field 'wind'"),
        ('["Paris", 21]', r"expected an object"),
    ],
    ids=["missing-field", "wrong-type", "extra-field", "not-an-object"],
)
@pytest.mark.parametrize("response_format", TYPED_FORMATS, ids=FORMAT_IDS[:3])
async def test_json_of_the_wrong_shape_raises_naming_the_problem_with_the_raw_text(
    response_format: type[Any], answer: str, problem: str, stream: bool
) -> None:
    client = ScriptedChatClient([answer])

    with pytest.raises(StructuredOutputError, match=problem) as caught:
        await run_agent(Agent(client), "weather?", stream=stream, options=_options(response_format))

    assert caught.value.raw_text == answer


async def test_a_run_whose_answer_does_not_parse_stores_nothing(stream: bool) -> None:
    store = InMemoryHistoryStore()
    agent = Agent(ScriptedChatClient(["not json"]), history=store)
    session = agent.create_session()

    with pytest.raises(StructuredOutputError):
        await run_agent(
            agent, "weather?", stream=stream, session=session, options=_options(AttrsWeather)
        )

    assert await store.load(session.session_id) == []


def test_json_schema_options_has_exactly_the_keys_of_chat_options() -> None:
    keys: Mapping[str, Any] = JsonSchemaOptions.__annotations__
    assert set(keys) == set(ChatOptions.__annotations__)


async def test_a_run_that_ends_on_a_tool_result_has_no_value(stream: bool) -> None:
    client = ScriptedChatClient(
        [
            ChatResponse(
                messages=[Message("assistant", [FunctionCallContent("c1", "forecast", "{}")])],
                finish_reason="tool_calls",
            )
        ]
    )

    def forecast() -> str:
        """The forecast."""
        return "sunny"

    async def stop_after_tool(context: FunctionInvocationContext, call_next: CallNext) -> None:
        await call_next()
        raise MiddlewareTermination  # ends the tool loop without another model call

    agent = Agent(client, tools=[forecast], middleware=[stop_after_tool])
    options: ChatOptions[Any] = {"response_format": AttrsWeather}
    outcome = await run_agent(agent, "go", stream=stream, options=options)

    assert outcome.response.messages[-1].role == "tool"
    assert outcome.response.value is None


def test_a_named_json_schema_keeps_its_name() -> None:
    assert json_schema_for({"name": "weather", "schema": SCHEMA}) == ("weather", SCHEMA)
    assert json_schema_for(SCHEMA) == ("response", SCHEMA)
    assert json_schema_for(AttrsWeather)[0] == "AttrsWeather"


async def test_a_stream_agent_middleware_transforms_is_parsed_from_what_it_produced() -> None:
    # The final value is the fold of the transformed updates (not the committed
    # response), and structured output is parsed from that fold.
    async def lowercase(context: AgentContext, call_next: CallNext) -> None:
        await call_next()
        if isinstance(context.result, ResponseStream):
            context.result = context.result.map(
                lambda u: attrs.evolve(
                    u,
                    contents=tuple(
                        TextContent(c.text.lower()) if isinstance(c, TextContent) else c
                        for c in u.contents
                    ),
                )
            )

    agent = Agent(ScriptedChatClient([ANSWER, "no JSON here"]), middleware=[lowercase])
    stream = agent.run("weather?", stream=True, options={"response_format": AttrsWeather})
    response = await stream.get_final_response()
    assert response.value == AttrsWeather("paris", 21)

    plain = agent.run("again", stream=True, options={"response_format": SCHEMA})
    with pytest.raises(StructuredOutputError):
        await plain.get_final_response()
