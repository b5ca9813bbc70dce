"""The JSON schema a tool declares, built from its signature.

This module uses string annotations (``from __future__ import annotations``) on
purpose: hints are resolved with ``get_type_hints``, so both spellings must work.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Annotated, Any, Generic, Literal, NewType, Optional, TypeVar, Union

import attrs
import pydantic
import pytest
from typing_extensions import NotRequired, Required, TypedDict

from agentcore.tools import FunctionTool, ToolContext, tool
from agentcore.tools._schema import schema_for_type

T = TypeVar("T")


class Unit(enum.Enum):
    CELSIUS = "c"
    FAHRENHEIT = "f"


class Priority(enum.IntEnum):
    LOW = 1
    HIGH = 2


@attrs.frozen
class Stop:
    name: str
    minutes: int = 30
    tags: list[str] = attrs.field(factory=list)


@dataclasses.dataclass
class Point:
    lat: Annotated[float, "Latitude in degrees"]
    lon: float
    label: str | None = None


class Budget(TypedDict):
    amount: float
    currency: NotRequired[Literal["EUR", "USD"]]


class Traveller(TypedDict, total=False):
    name: Required[str]
    budget: Budget


class Pet(pydantic.BaseModel):
    name: str


UserId = NewType("UserId", int)


def plan_trip(
    city: str,
    days: int,
    budget: float,
    direct: bool,
    nothing: None,
    anything: Any,
    stops: list[Stop],
    waypoints: Sequence[Point],
    scores: tuple[int, ...],
    pair: tuple[str, int],
    labels: set[str],
    frozen: frozenset[int],
    extras: dict[str, int],
    traveller: Traveller,
    pet: Pet,
    user: UserId,
    unit: Literal["c", "f"],
    mixed: Literal[1, "one"],
    scale: Unit,
    priority: Priority,
    either: Union[int, str],  # noqa: UP007 # the typing spelling is under test
    note: Annotated[str, "Free text for the agent"],
    context: ToolContext,
    maybe: Optional[int] = None,  # noqa: UP045 # the typing spelling is under test
    nights: int | None = 2,
    mode: Literal["fast", "cheap"] = "fast",
) -> str:
    """Plan a trip.

    Plans every leg of the trip.

    Args:
        city: Where the trip starts.
        days (int): How many days,
            counting the travel days.
        note: Ignored: Annotated wins.
        maybe: An optional count.
    """
    return city


def test_schema_covers_every_supported_type() -> None:
    schema = FunctionTool(plan_trip).parameters

    stop = {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "minutes": {"type": "integer", "default": 30},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["name"],
        "additionalProperties": False,
    }
    point = {
        "type": "object",
        "properties": {
            "lat": {"type": "number", "description": "Latitude in degrees"},
            "lon": {"type": "number"},
            "label": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
        },
        "required": ["lat", "lon"],
        "additionalProperties": False,
    }
    budget = {
        "type": "object",
        "properties": {
            "amount": {"type": "number"},
            "currency": {"enum": ["EUR", "USD"], "type": "string"},
        },
        "required": ["amount"],
        "additionalProperties": False,
    }
    expected = {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "Where the trip starts."},
            "days": {
                "type": "integer",
                "description": "How many days, counting the travel days.",
            },
            "budget": {"type": "number"},
            "direct": {"type": "boolean"},
            "nothing": {"type": "null"},
            "anything": {},
            "stops": {"type": "array", "items": stop},
            "waypoints": {"type": "array", "items": point},
            "scores": {"type": "array", "items": {"type": "integer"}},
            "pair": {
                "type": "array",
                "prefixItems": [{"type": "string"}, {"type": "integer"}],
                "minItems": 2,
                "maxItems": 2,
            },
            "labels": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
            "frozen": {"type": "array", "items": {"type": "integer"}, "uniqueItems": True},
            "extras": {"type": "object", "additionalProperties": {"type": "integer"}},
            "traveller": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "budget": budget},
                "required": ["name"],
                "additionalProperties": False,
            },
            "pet": {
                "type": "object",
                "title": "Pet",
                "properties": {"name": {"title": "Name", "type": "string"}},
                "required": ["name"],
            },
            "user": {"type": "integer"},
            "unit": {"enum": ["c", "f"], "type": "string"},
            "mixed": {"enum": [1, "one"]},
            "scale": {"enum": ["c", "f"], "type": "string"},
            "priority": {"enum": [1, 2], "type": "integer"},
            "either": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
            "note": {"type": "string", "description": "Free text for the agent"},
            "maybe": {
                "anyOf": [{"type": "integer"}, {"type": "null"}],
                "description": "An optional count.",
                "default": None,
            },
            "nights": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": 2},
            "mode": {"enum": ["fast", "cheap"], "type": "string", "default": "fast"},
        },
        "required": [
            "city",
            "days",
            "budget",
            "direct",
            "nothing",
            "anything",
            "stops",
            "waypoints",
            "scores",
            "pair",
            "labels",
            "frozen",
            "extras",
            "traveller",
            "pet",
            "user",
            "unit",
            "mixed",
            "scale",
            "priority",
            "either",
            "note",
        ],
        "additionalProperties": False,
    }
    assert schema == expected


def test_declaration_has_name_description_and_parameters() -> None:
    declared = FunctionTool(plan_trip).declaration()

    assert declared["name"] == "plan_trip"
    assert declared["description"] == "Plan a trip.\n\nPlans every leg of the trip."
    assert declared["parameters"] == FunctionTool(plan_trip).parameters


# --- focused: one family of types per test ------------------------------------------------------


def _schema_of(func: Any) -> dict[str, Any]:
    properties: dict[str, Any] = FunctionTool(func).parameters["properties"]
    return properties


def scalars(a: str, b: int, c: float, d: bool, e: None) -> None:
    """Scalars."""


def test_scalars_map_to_json_types() -> None:
    assert _schema_of(scalars) == {
        "a": {"type": "string"},
        "b": {"type": "integer"},
        "c": {"type": "number"},
        "d": {"type": "boolean"},
        "e": {"type": "null"},
    }


def bare_containers(a: list, b: dict, c: tuple, d: set, e: Sequence) -> None:  # type: ignore[type-arg] # bare containers are the point
    """Bare containers."""


def test_bare_containers_leave_their_items_unconstrained() -> None:
    assert _schema_of(bare_containers) == {
        "a": {"type": "array"},
        "b": {"type": "object"},
        "c": {"type": "array"},
        "d": {"type": "array", "uniqueItems": True},
        "e": {"type": "array"},
    }


def mappings(a: Mapping[str, list[int]], b: dict[str, Any]) -> None:
    """Mappings."""


def test_string_keyed_mappings_become_objects_with_additional_properties() -> None:
    assert _schema_of(mappings) == {
        "a": {
            "type": "object",
            "additionalProperties": {"type": "array", "items": {"type": "integer"}},
        },
        "b": {"type": "object", "additionalProperties": {}},
    }


def unions(a: int | str | None, b: Optional[list[str]]) -> None:  # noqa: UP045 # typing spelling
    """Unions."""


def test_unions_become_any_of_with_null_for_none() -> None:
    assert _schema_of(unions) == {
        "a": {"anyOf": [{"type": "integer"}, {"type": "string"}, {"type": "null"}]},
        "b": {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]},
    }


def literals(a: Literal[True, False], b: Literal[1, 2], c: Literal[Unit.CELSIUS]) -> None:
    """Literals."""


def test_literals_become_enums_typed_when_homogeneous() -> None:
    assert _schema_of(literals) == {
        "a": {"enum": [True, False], "type": "boolean"},
        "b": {"enum": [1, 2], "type": "integer"},
        "c": {"enum": ["c"], "type": "string"},
    }


def with_defaults(
    unit: Unit = Unit.FAHRENHEIT,
    tags: tuple[str, ...] = ("a", "b"),
    point: Point | None = None,
    where: Point = Point(1.0, 2.0),  # noqa: B008 # a non-JSON default is the point
    limits: Mapping[str, int] = MappingProxyType({"a": 1}),
    odd_keys: Mapping[str, int] = MappingProxyType({1: 1}),  # type: ignore[dict-item] # non-JSON default
) -> None:
    """Defaults."""


def test_defaults_are_written_in_json_form_and_make_the_parameter_optional() -> None:
    tool_ = FunctionTool(with_defaults)
    properties = tool_.parameters["properties"]

    assert tool_.parameters["required"] == []
    assert properties["unit"]["default"] == "f"
    assert properties["tags"]["default"] == ["a", "b"]
    assert properties["point"]["default"] is None
    assert "default" not in properties["where"]
    assert properties["limits"]["default"] == {"a": 1}
    assert "default" not in properties["odd_keys"]


def test_tool_context_parameter_is_left_out_of_the_schema() -> None:
    assert "context" not in FunctionTool(plan_trip).parameters["properties"]
    assert "context" not in FunctionTool(plan_trip).parameters["required"]


@tool
def described(city: Annotated[str, "The city", "in English"]) -> str:
    """Look up a city.

    Args:
        city: Overridden by Annotated.
    """
    return city


def test_annotated_strings_are_joined_into_the_description() -> None:
    assert described.parameters["properties"]["city"] == {
        "type": "string",
        "description": "The city in English",
    }


class Owner(pydantic.BaseModel):
    name: str
    pets: list[Pet] = []


def adopt(owner: Owner) -> None:
    """Adopt."""


def test_pydantic_models_use_their_own_schema_with_refs_inlined() -> None:
    assert _schema_of(adopt)["owner"] == {
        "type": "object",
        "title": "Owner",
        "properties": {
            "name": {"title": "Name", "type": "string"},
            "pets": {
                "title": "Pets",
                "type": "array",
                "default": [],
                "items": {
                    "type": "object",
                    "title": "Pet",
                    "properties": {"name": {"title": "Name", "type": "string"}},
                    "required": ["name"],
                },
            },
        },
        "required": ["name"],
    }


# --- unsupported types are refused at decoration time -------------------------------------------


def takes_bytes(data: bytes) -> None:
    """Bytes."""


def takes_int_keys(data: dict[int, str]) -> None:
    """Int keys."""


@attrs.frozen
class TreeNode:
    value: int
    children: list[TreeNode]


def takes_tree(tree: TreeNode) -> None:
    """Tree."""


class PetNode(pydantic.BaseModel):
    name: str
    friends: list[PetNode] = []


def takes_pet_graph(node: PetNode) -> None:
    """Graph."""


@attrs.frozen
class HasBytes:
    blob: bytes


def takes_nested_bytes(items: list[HasBytes]) -> None:
    """Nested bytes."""


@pytest.mark.parametrize(
    ("func", "fragments"),
    [
        (takes_bytes, ["parameter 'data'", "type bytes"]),
        (takes_int_keys, ["parameter 'data'", "dict[int, str]", "dict[str, X]"]),
        (takes_tree, ["parameter 'tree'", "contains itself"]),
        (takes_pet_graph, ["parameter 'node'", "contains itself"]),
        (takes_nested_bytes, ["parameter 'items'", "at [].blob", "type bytes"]),
    ],
)
def test_unsupported_annotation_is_a_type_error_naming_parameter_and_type(
    func: Any, fragments: list[str]
) -> None:
    with pytest.raises(TypeError) as raised:
        FunctionTool(func)

    for fragment in fragments:
        assert fragment in str(raised.value)


def empty_tuple(nothing: tuple[()]) -> None:
    """Empty."""


def test_empty_tuple_is_an_array_of_no_items() -> None:
    assert _schema_of(empty_tuple)["nothing"] == {"type": "array", "maxItems": 0}


class Wrapped(TypedDict):
    a: Annotated[NotRequired[int], "maybe a"]
    b: NotRequired[Annotated[list[Annotated[int, "a number"]], "numbers"]]


def wrapped(value: Wrapped) -> None:
    """Wrapped."""


def test_annotated_and_typeddict_qualifiers_nest_in_any_order() -> None:
    assert _schema_of(wrapped)["value"] == {
        "type": "object",
        "properties": {
            "a": {"type": "integer", "description": "maybe a"},
            "b": {
                "type": "array",
                "items": {"type": "integer", "description": "a number"},
                "description": "numbers",
            },
        },
        "required": [],
        "additionalProperties": False,
    }


@attrs.define
class WithComputed:
    size: int
    area: int = attrs.field(init=False, default=0)


@dataclasses.dataclass
class DataWithComputed:
    size: int
    area: int = dataclasses.field(init=False, default=0)


def computed(a: WithComputed, b: DataWithComputed) -> None:
    """Computed."""


def test_fields_outside_init_are_not_in_the_schema() -> None:
    schemas = _schema_of(computed)

    assert list(schemas["a"]["properties"]) == ["size"]
    assert list(schemas["b"]["properties"]) == ["size"]


def test_schema_for_type_describes_a_single_type() -> None:
    assert schema_for_type(Budget) == {
        "type": "object",
        "properties": {
            "amount": {"type": "number"},
            "currency": {"enum": ["EUR", "USD"], "type": "string"},
        },
        "required": ["amount"],
        "additionalProperties": False,
    }


class Shape(enum.Enum):
    SQUARE = (1, 1)


@attrs.frozen
class Box(Generic[T]):
    item: T


class FailingModel:
    """Shaped like a pydantic model, but its schema cannot be built."""

    @classmethod
    def model_json_schema(cls) -> dict[str, Any]:
        raise RuntimeError("no schema today")

    @classmethod
    def model_validate(cls, obj: Any) -> FailingModel:
        return cls()


def takes_shape(shape: Shape) -> None:
    """Shape."""


def takes_box(box: Box[int]) -> None:
    """Box."""


def takes_failing_model(model: FailingModel) -> None:
    """Model."""


@pytest.mark.parametrize(
    ("func", "fragment"),
    [
        (takes_shape, "values must be str, int, float, bool or None"),
        (takes_box, "generic classes are not supported"),
        (takes_failing_model, "model_json_schema() failed (no schema today)"),
    ],
)
def test_types_without_a_json_schema_are_refused(func: Any, fragment: str) -> None:
    with pytest.raises(TypeError) as raised:
        FunctionTool(func)

    assert fragment in str(raised.value)


def test_schema_for_type_refuses_an_unsupported_type_naming_it() -> None:
    with pytest.raises(
        TypeError, match="the requested type has type bytes, which is not supported"
    ):
        schema_for_type(bytes)
