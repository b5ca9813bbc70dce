"""pydantic models as parameter types (recognised by shape; pydantic is a dev dependency)."""

from typing import Any

import pydantic
import pytest

from agentcore import RunContext
from agentcore.tools import ToolArgumentsError, ToolContext, tool


class Address(pydantic.BaseModel):
    city: str
    zip_code: str


class Person(pydantic.BaseModel):
    name: str
    age: int
    addresses: list[Address] = []


@tool
def register(person: Person, note: str = "") -> str:
    """Register a person."""
    return f"{person.name} ({person.age}) in {len(person.addresses)} places{note}"


def test_pydantic_argument_is_validated_into_the_model() -> None:
    raw = '{"person": {"name": "Ada", "age": 36, "addresses": [{"city": "L", "zip_code": "N1"}]}}'

    parsed = register.parse_arguments(raw)

    assert parsed["person"] == Person(
        name="Ada", age=36, addresses=[Address(city="L", zip_code="N1")]
    )


def test_pydantic_errors_name_the_nested_path() -> None:
    with pytest.raises(ToolArgumentsError) as raised:
        register.parse_arguments({"person": {"name": "Ada", "age": 1, "addresses": [{"city": 3}]}})

    assert raised.value.problems == (
        "person.addresses[0].city: Input should be a valid string",
        "person.addresses[0].zip_code: Field required",
    )


def test_pydantic_model_instance_passes_through() -> None:
    ada = Person(name="Ada", age=36)

    assert register.parse_arguments({"person": ada})["person"] is ada


@pytest.mark.anyio
async def test_pydantic_tool_is_invoked_with_the_model_instance() -> None:
    arguments: dict[str, Any] = register.parse_arguments({"person": {"name": "Ada", "age": 36}})
    context = ToolContext(call_id="c", tool_name=register.name, run=RunContext())

    assert await register.invoke(arguments, context=context) == "Ada (36) in 0 places"


def test_pydantic_schema_is_inline_without_defs() -> None:
    schema = register.parameters["properties"]["person"]

    assert "$defs" not in schema
    assert schema["properties"]["addresses"]["items"]["properties"]["city"]["type"] == "string"
