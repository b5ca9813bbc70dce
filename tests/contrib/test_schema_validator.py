"""SchemaValidator: answers are validated, parsed into ``value``, and re-asked on failure."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import attrs
import pytest
from agentcore_contrib.schema_validator import (
    AgentSchemaValidator,
    SchemaValidator,
    schema_errors,
)

from agentcore import (
    Agent,
    AgentResponse,
    ChatContext,
    ChatResponse,
    FunctionCallContent,
    Message,
    ResponseStream,
    Usage,
    tool,
)
from agentcore.errors import StructuredOutputError
from agentcore.middleware import CallNext
from agentcore.structured import json_schema_for
from agentcore.testing import ScriptedChatClient

pytestmark = pytest.mark.anyio


@pytest.fixture(params=[False, True], ids=["call", "stream"])
def stream(request: pytest.FixtureRequest) -> bool:
    return bool(request.param)


@attrs.frozen
class Weather:
    city: str
    celsius: int


WEATHER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "celsius": {"type": "integer"}},
    "required": ["city", "celsius"],
    "additionalProperties": False,
}

GOOD = '{"city": "Oslo", "celsius": 4}'
BAD = '{"city": "Oslo", "celsius": "cold"}'


async def run(agent: Agent, messages: str = "weather?", *, stream: bool) -> AgentResponse[Any]:
    """Run once; a streaming run must fold into its final response (value aside)."""
    if not stream:
        return await agent.run(messages)
    result = agent.run(messages, stream=True)
    updates = [update async for update in result]
    final = await result.get_final_response()
    assert AgentResponse.from_updates(updates) == attrs.evolve(final, value=None)
    return final


def answer(text: str, tokens: int | None = None) -> ChatResponse[None]:
    usage = None if tokens is None else Usage(total_tokens=tokens)
    return ChatResponse(messages=[Message("assistant", text)], usage=usage, finish_reason="stop")


# -- the JSON-schema checker ------------------------------------------------------------


def test_value_that_fits_has_no_errors() -> None:
    assert schema_errors({"city": "Oslo", "celsius": 4}, WEATHER_SCHEMA) == []


def test_wrong_type_is_reported_with_its_path() -> None:
    errors = schema_errors({"city": "Oslo", "celsius": "cold"}, WEATHER_SCHEMA)

    assert errors == ["$.celsius: expected integer, got string"]


def test_missing_required_property_is_reported() -> None:
    assert schema_errors({"city": "Oslo"}, WEATHER_SCHEMA) == [
        "$: missing required property 'celsius'"
    ]


def test_unexpected_property_is_reported() -> None:
    errors = schema_errors({"city": "Oslo", "celsius": 4, "wind": 3}, WEATHER_SCHEMA)

    assert errors == ["$: unexpected property 'wind'"]


def test_nested_array_items_are_checked_with_their_index() -> None:
    schema = {"type": "array", "items": WEATHER_SCHEMA}

    errors = schema_errors([{"city": "A", "celsius": 1}, {"city": 2, "celsius": 1}], schema)

    assert errors == ["$[1].city: expected string, got integer"]


def test_boolean_is_not_an_integer() -> None:
    assert schema_errors(True, {"type": "integer"}) == ["$: expected integer, got boolean"]


def test_enum_compares_as_json() -> None:
    assert schema_errors(True, {"enum": [1, 2]}) == ["$: must be one of 1, 2, got true"]


def test_any_of_accepts_any_matching_branch() -> None:
    schema = {"anyOf": [{"type": "string"}, {"type": "null"}]}

    assert (schema_errors(None, schema), len(schema_errors(3, schema))) == ([], 1)


def test_tuple_items_are_checked_by_position() -> None:
    schema = {
        "type": "array",
        "prefixItems": [{"type": "string"}, {"type": "integer"}],
        "minItems": 2,
        "maxItems": 2,
    }

    assert schema_errors(["a", "b"], schema) == ["$[1]: expected integer, got string"]


@pytest.mark.parametrize(
    ("value", "schema", "error"),
    [
        ("ab", {"type": "string", "minLength": 3}, "$: needs at least 3 characters"),
        ("abcd", {"maxLength": 3}, "$: allows at most 3 characters"),
        ("abc", {"pattern": "^[0-9]+$"}, "$: does not match the pattern '^[0-9]+$'"),
        (2, {"minimum": 3}, "$: must be at least 3, got 2"),
        (3, {"exclusiveMaximum": 3}, "$: must be less than 3, got 3"),
        ("x", {"const": "y"}, '$: must be "y"'),
        ([1, 1], {"uniqueItems": True}, "$: items must be unique"),
        (1, {"oneOf": [{"type": "integer"}, {"type": "number"}]}, "$: 1 matches none of"),
        (1, {"allOf": [{"type": "integer"}, {"minimum": 5}]}, "$: must be at least 5, got 1"),
        ({"a": "x"}, {"additionalProperties": {"type": "integer"}}, "$.a: expected integer"),
        ({"my key": 1}, {"additionalProperties": False}, "$: unexpected property 'my key'"),
        (None, False, "$: no value is allowed here"),
        (1.5, {"type": ["integer", "string"]}, "$: expected integer or string, got number"),
    ],
)
def test_checker_reports_each_rule(value: Any, schema: Any, error: str) -> None:
    [reported] = schema_errors(value, schema)

    assert reported.startswith(error)


def test_integer_valued_float_is_an_integer() -> None:
    assert schema_errors(2.0, {"type": "integer"}) == []


def test_schema_generated_by_agentcore_validates_matching_data() -> None:
    @attrs.frozen
    class Report:
        title: str
        readings: list[Weather]
        note: str | None = None

    _, schema = json_schema_for(Report)
    data = {"title": "t", "readings": [{"city": "Oslo", "celsius": 4}], "note": None}

    assert schema_errors(data, schema) == []
    assert schema_errors({**data, "readings": [{"city": "Oslo"}]}, schema) == [
        "$.readings[0]: missing required property 'celsius'"
    ]


# -- in an agent ------------------------------------------------------------------------


async def test_valid_answer_is_parsed_into_the_typed_value(stream: bool) -> None:
    agent = Agent(ScriptedChatClient([GOOD]), middleware=SchemaValidator(Weather).middleware)

    response = await run(agent, stream=stream)

    assert response.value == Weather("Oslo", 4)


async def test_json_schema_target_gives_the_decoded_json(stream: bool) -> None:
    validator = SchemaValidator(WEATHER_SCHEMA)
    agent = Agent(ScriptedChatClient([GOOD]), middleware=validator.middleware)

    response = await run(agent, stream=stream)

    assert response.value == {"city": "Oslo", "celsius": 4}


async def test_invalid_answer_is_asked_again_with_the_error(stream: bool) -> None:
    client = ScriptedChatClient([BAD, GOOD])
    validator = SchemaValidator(WEATHER_SCHEMA, max_retries=1)
    agent = Agent(client, middleware=validator.middleware)

    response = await run(agent, stream=stream)

    assert response.value == {"city": "Oslo", "celsius": 4}
    retry_request = client.requests[1].messages
    assert [m.role for m in retry_request] == ["user", "assistant", "user"]
    assert retry_request[1].text == BAD
    assert "$.celsius: expected integer, got string" in retry_request[2].text


async def test_failed_attempts_stay_out_of_the_runs_messages(stream: bool) -> None:
    client = ScriptedChatClient([BAD, GOOD])
    agent = Agent(client, middleware=SchemaValidator(Weather, max_retries=1).middleware)

    response = await run(agent, stream=stream)

    assert [m.text for m in response.messages] == [GOOD]


async def test_usage_covers_the_failed_attempts(stream: bool) -> None:
    client = ScriptedChatClient([answer(BAD, 10), answer(GOOD, 7)])
    agent = Agent(client, middleware=SchemaValidator(Weather, max_retries=1).middleware)

    response = await run(agent, stream=stream)

    assert response.usage == Usage(total_tokens=17)


async def test_last_failure_raises_with_the_raw_text(stream: bool) -> None:
    client = ScriptedChatClient([BAD, "not json at all"])
    agent = Agent(client, middleware=SchemaValidator(Weather, max_retries=1).middleware)

    with pytest.raises(StructuredOutputError, match="after 2 attempt") as raised:
        await run(agent, stream=stream)
    assert raised.value.raw_text == "not json at all"


async def test_without_retries_the_first_failure_raises(stream: bool) -> None:
    client = ScriptedChatClient([BAD, GOOD])
    agent = Agent(client, middleware=SchemaValidator(Weather).middleware)

    with pytest.raises(StructuredOutputError):
        await run(agent, stream=stream)
    assert len(client.requests) == 1


async def test_function_calling_turn_is_not_validated(stream: bool) -> None:
    @tool
    def forecast(city: str) -> str:
        """Today's forecast."""
        return "4 degrees"

    call = ChatResponse(
        messages=[Message("assistant", [FunctionCallContent("c1", "forecast", '{"city": "O"}')])],
        finish_reason="tool_calls",
    )
    client = ScriptedChatClient([call, GOOD])
    agent = Agent(client, tools=[forecast], middleware=SchemaValidator(Weather).middleware)

    response = await run(agent, stream=stream)

    assert response.value == Weather("Oslo", 4)
    assert len(client.requests) == 2


async def test_streamed_invalid_answer_never_reaches_the_caller() -> None:
    client = ScriptedChatClient([BAD, GOOD])
    agent = Agent(client, middleware=SchemaValidator(Weather, max_retries=1).middleware)

    result = agent.run("weather?", stream=True)
    streamed = "".join([update.text async for update in result])

    assert streamed == GOOD


async def test_agent_validator_alone_parses_the_final_answer(stream: bool) -> None:
    agent = Agent(ScriptedChatClient([GOOD]), middleware=[AgentSchemaValidator(Weather)])

    response = await run(agent, stream=stream)

    assert response.value == Weather("Oslo", 4)


async def test_agent_validator_alone_raises_on_a_bad_answer(stream: bool) -> None:
    agent = Agent(ScriptedChatClient([BAD]), middleware=[AgentSchemaValidator(Weather)])

    with pytest.raises(StructuredOutputError):
        await run(agent, stream=stream)


async def test_chat_validator_sets_the_chat_response_value(stream: bool) -> None:
    seen: list[Any] = []

    class Probe:
        async def process(self, context: ChatContext, call_next: CallNext) -> None:
            await call_next()
            result = context.result
            if isinstance(result, ResponseStream):
                context.result = result.with_result_hook(lambda final: seen.append(final.value))
            elif isinstance(result, ChatResponse):
                seen.append(result.value)

    agent = Agent(ScriptedChatClient([GOOD]), middleware=[Probe(), SchemaValidator(Weather)])

    await run(agent, stream=stream)

    assert seen == [Weather("Oslo", 4)]


def test_target_that_is_neither_schema_nor_type_is_refused() -> None:
    with pytest.raises(TypeError, match="needs a JSON schema"):
        SchemaValidator("Weather")  # type: ignore[arg-type]  # the mistake under test


def test_negative_retries_are_refused() -> None:
    with pytest.raises(ValueError, match="max_retries must be an int >= 0"):
        SchemaValidator(Weather, max_retries=-1)


def test_retry_prompt_needs_the_error_field() -> None:
    with pytest.raises(ValueError, match=r"must contain '\{error\}'"):
        SchemaValidator(Weather, retry_prompt="Try again.")


def test_named_schema_form_is_understood() -> None:
    validator = SchemaValidator({"name": "weather", "schema": WEATHER_SCHEMA})

    assert validator.parse(json.dumps({"city": "Oslo", "celsius": 4})) == {
        "city": "Oslo",
        "celsius": 4,
    }


async def test_docs_example_runs() -> None:
    source = Path(__file__).parents[2] / "docs" / "middleware" / "schema_validator.md"
    code = re.search(r"```python\n(.*?)```", source.read_text(), re.S)
    assert code is not None
    namespace: dict[str, Any] = {"__name__": "docs_example"}
    exec(compile(code.group(1), str(source), "exec"), namespace)
    await namespace["main"]()
