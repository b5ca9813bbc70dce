"""``parse_arguments``: validation and conversion of the model's arguments."""

import dataclasses
import enum
import json
from typing import Annotated, Any, Literal

import attrs
import pytest
from typing_extensions import NotRequired, TypedDict

from agentcore.errors import ToolError
from agentcore.tools import FunctionTool, ToolArgumentsError, ToolContext, tool


class Unit(enum.Enum):
    CELSIUS = "c"
    FAHRENHEIT = "f"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


@attrs.frozen
class Stop:
    name: str
    minutes: int = 30


@dataclasses.dataclass
class Point:
    lat: float
    lon: float


class Budget(TypedDict):
    amount: float
    currency: NotRequired[str]


calls: list[str] = []


@tool
def weather(city: str, days: int, unit: Literal["c", "f"] = "c") -> str:
    """Weather for a city."""
    calls.append(city)
    return city


@tool
def route(
    stops: list[Stop],
    start: Point,
    budget: Budget,
    tags: dict[str, int],
    pair: tuple[str, int],
    labels: set[str],
    scale: Unit,
    level: Level,
    ratio: float,
    flag: bool,
    nothing: None,
    anything: Any,
    note: Annotated[str, "a note"],
    either: int | str,
    maybe: Stop | None = None,
) -> None:
    """Route."""


def _route_args(**changes: Any) -> dict[str, Any]:
    arguments: dict[str, Any] = {
        "stops": [{"name": "Lyon"}, {"name": "Nice", "minutes": 10}],
        "start": {"lat": 45, "lon": 4.8},
        "budget": {"amount": 100},
        "tags": {"a": 1},
        "pair": ["x", 2],
        "labels": ["a", "b", "a"],
        "scale": "f",
        "level": 2,
        "ratio": 1,
        "flag": False,
        "nothing": None,
        "anything": {"free": ["form"]},
        "note": "hi",
        "either": "text",
    }
    arguments.update(changes)
    return arguments


def _problems(tool_: FunctionTool[..., Any], raw: Any) -> str:
    with pytest.raises(ToolArgumentsError) as raised:
        tool_.parse_arguments(raw)
    return str(raised.value)


# --- success -----------------------------------------------------------------------------------


def test_json_string_arguments_are_parsed() -> None:
    assert weather.parse_arguments('{"city": "Oslo", "days": 2}') == {"city": "Oslo", "days": 2}


def test_mapping_arguments_are_parsed() -> None:
    assert weather.parse_arguments({"city": "Oslo", "days": 2, "unit": "f"}) == {
        "city": "Oslo",
        "days": 2,
        "unit": "f",
    }


def test_omitted_optional_argument_is_left_out_for_the_default_to_apply() -> None:
    assert "unit" not in weather.parse_arguments({"city": "Oslo", "days": 2})


def test_null_for_an_optional_non_nullable_argument_counts_as_omitted() -> None:
    assert weather.parse_arguments({"city": "Oslo", "days": 2, "unit": None}) == {
        "city": "Oslo",
        "days": 2,
    }


def test_empty_string_means_no_arguments() -> None:
    @tool
    def ping() -> str:
        """Ping."""
        return "pong"

    assert ping.parse_arguments("  ") == {}


def test_arguments_are_converted_to_the_annotated_types() -> None:
    parsed = route.parse_arguments(json.dumps(_route_args()))

    assert parsed == {
        "stops": [Stop("Lyon"), Stop("Nice", 10)],
        "start": Point(45.0, 4.8),
        "budget": {"amount": 100.0},
        "tags": {"a": 1},
        "pair": ("x", 2),
        "labels": {"a", "b"},
        "scale": Unit.FAHRENHEIT,
        "level": Level.HIGH,
        "ratio": 1.0,
        "flag": False,
        "nothing": None,
        "anything": {"free": ["form"]},
        "note": "hi",
        "either": "text",
    }
    assert isinstance(parsed["ratio"], float)
    assert isinstance(parsed["start"].lat, float)


def test_nested_optional_class_is_structured() -> None:
    parsed = route.parse_arguments(_route_args(maybe={"name": "Paris"}))

    assert parsed["maybe"] == Stop("Paris")


def test_union_prefers_the_member_of_the_exact_type() -> None:
    assert route.parse_arguments(_route_args(either=3))["either"] == 3


def test_integral_float_is_accepted_for_int() -> None:
    parsed = weather.parse_arguments('{"city": "Oslo", "days": 3.0}')

    assert parsed["days"] == 3
    assert type(parsed["days"]) is int


# --- one problem ---------------------------------------------------------------------------------


def test_wrong_scalar_type_names_field_and_value() -> None:
    assert _problems(weather, {"city": 42, "days": 1}) == "city: expected str, got 42"


def test_literal_mismatch_lists_the_allowed_values() -> None:
    message = _problems(weather, {"city": "Oslo", "days": 1, "unit": "k"})

    assert message == "unit: must be one of 'c', 'f', got 'k'"


def test_missing_required_argument_is_named() -> None:
    assert _problems(weather, {"city": "Oslo"}) == "days: missing required argument"


def test_unexpected_argument_is_named() -> None:
    message = _problems(weather, {"city": "Oslo", "days": 1, "foo": 1})

    assert message == "unexpected argument 'foo'"


def test_invalid_json_is_reported() -> None:
    assert _problems(weather, '{"city": ').startswith("arguments are not valid JSON: ")


def test_json_that_is_not_an_object_is_reported() -> None:
    assert _problems(weather, "[1, 2]") == "arguments must be a JSON object, got [1, 2]"


def test_bool_is_not_an_int() -> None:
    assert _problems(weather, {"city": "Oslo", "days": True}) == "days: expected int, got True"


def test_fractional_float_is_not_an_int() -> None:
    assert _problems(weather, {"city": "Oslo", "days": 2.5}) == "days: expected int, got 2.5"


def test_bool_is_not_a_float() -> None:
    assert _problems(route, _route_args(ratio=True)) == "ratio: expected float, got True"


def test_string_is_not_a_bool() -> None:
    assert _problems(route, _route_args(flag="true")) == "flag: expected bool, got 'true'"


def test_enum_mismatch_lists_the_values() -> None:
    assert _problems(route, _route_args(scale="k")) == "scale: must be one of 'c', 'f', got 'k'"


def test_int_enum_does_not_accept_a_bool() -> None:
    assert _problems(route, _route_args(level=True)) == "level: must be one of 1, 2, got True"


def test_string_is_not_a_list() -> None:
    assert _problems(route, _route_args(stops="Lyon")) == "stops: expected list[object], got 'Lyon'"


def test_fixed_tuple_length_is_checked() -> None:
    assert _problems(route, _route_args(pair=["x"])) == "pair: expected 2 items, got 1"


def test_union_without_a_matching_member_lists_the_members() -> None:
    assert _problems(route, _route_args(either=[1])) == "either: expected int | str, got [1]"


def test_nested_path_names_index_and_field() -> None:
    message = _problems(route, _route_args(stops=[{"name": "Lyon"}, {"name": 3}]))

    assert message == "stops[1].name: expected str, got 3"


def test_nested_missing_field_is_named() -> None:
    message = _problems(route, _route_args(start={"lat": 1.0}))

    assert message == "start.lon: missing required field"


def test_nested_unexpected_field_is_named() -> None:
    message = _problems(route, _route_args(budget={"amount": 1, "tip": 2}))

    assert message == "budget: unexpected field 'tip'"


def test_mapping_value_path_uses_the_key() -> None:
    assert _problems(route, _route_args(tags={"a": "x"})) == "tags['a']: expected int, got 'x'"


def test_object_expected_where_a_class_is_annotated() -> None:
    assert _problems(route, _route_args(start=[1, 2])) == "start: expected an object, got [1, 2]"


def test_optional_class_reports_the_class_problem() -> None:
    message = _problems(route, _route_args(maybe={"name": 1}))

    assert message == "maybe.name: expected str, got 1"


# --- several problems ---------------------------------------------------------------------------


def test_every_problem_is_reported_semicolon_separated() -> None:
    message = _problems(weather, {"city": 1, "unit": "k", "extra": True})

    assert message == (
        "city: expected str, got 1; days: missing required argument; "
        "unit: must be one of 'c', 'f', got 'k'; unexpected argument 'extra'"
    )


def test_problems_are_also_available_one_by_one() -> None:
    with pytest.raises(ToolArgumentsError) as raised:
        weather.parse_arguments({"city": 1})

    assert raised.value.problems == ("city: expected str, got 1", "days: missing required argument")
    assert raised.value.tool_name == "weather"


def test_arguments_error_is_a_tool_error() -> None:
    assert issubclass(ToolArgumentsError, ToolError)


def test_tool_body_does_not_run_when_parsing_fails() -> None:
    before = list(calls)
    with pytest.raises(ToolArgumentsError):
        weather.parse_arguments({"city": 1, "days": 1})

    assert calls == before


def test_injected_context_is_not_an_argument_the_model_may_send() -> None:
    @tool
    def whoami(context: ToolContext) -> str:
        """Whoami."""
        return context.call_id

    assert _problems(whoami, {"context": "x"}) == "unexpected argument 'context'"


def test_non_string_non_mapping_raw_arguments_are_a_type_error() -> None:
    raw: Any = 42
    with pytest.raises(TypeError, match="JSON string or a mapping"):
        weather.parse_arguments(raw)


# --- edges of each type family ------------------------------------------------------------------


class Color(str, enum.Enum):
    RED = "red"


@attrs.frozen
class Range:
    low: int = attrs.field(validator=attrs.validators.ge(0))


@tool
def shapes(
    scores: tuple[int, ...],
    pair: tuple[str, int],
    tags: dict[str, int],
    budget: Budget,
    start: Point,
    stop: Stop,
    color: Color,
    pick: Literal[Unit.CELSIUS],
    mixed: int | list[str],
    chosen: Unit | None,
    span: Range,
    frozen: frozenset[int],
    anything_list: list,  # type: ignore[type-arg] # a bare list is the point
) -> None:
    """Shapes."""


def _shapes_args(**changes: Any) -> dict[str, Any]:
    arguments: dict[str, Any] = {
        "scores": [1, 2],
        "pair": ["a", 1],
        "tags": {},
        "budget": {"amount": 1.5, "currency": "EUR"},
        "start": {"lat": 1, "lon": 2},
        "stop": {"name": "Lyon"},
        "color": "red",
        "pick": "c",
        "mixed": ["x"],
        "chosen": None,
        "span": {"low": 1},
        "frozen": [1, 1, 2],
        "anything_list": [1, "two", None],
    }
    arguments.update(changes)
    return arguments


def test_edge_types_convert_when_valid() -> None:
    parsed = shapes.parse_arguments(_shapes_args())

    assert parsed["scores"] == (1, 2)
    assert parsed["budget"] == {"amount": 1.5, "currency": "EUR"}
    assert parsed["color"] is Color.RED
    assert parsed["pick"] is Unit.CELSIUS
    assert parsed["chosen"] is None
    assert parsed["span"] == Range(1)
    assert parsed["frozen"] == frozenset({1, 2})
    assert parsed["anything_list"] == [1, "two", None]


def test_class_instances_given_by_python_callers_pass_through() -> None:
    start = Point(1.0, 2.0)

    assert shapes.parse_arguments(_shapes_args(start=start))["start"] is start


def test_enum_member_given_by_python_callers_passes_through() -> None:
    parsed = shapes.parse_arguments(_shapes_args(pick=Unit.CELSIUS, chosen=Unit.FAHRENHEIT))

    assert (parsed["pick"], parsed["chosen"]) == (Unit.CELSIUS, Unit.FAHRENHEIT)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"scores": "12"}, "scores: expected tuple[int, ...], got '12'"),
        ({"scores": [1, "2"]}, "scores[1]: expected int, got '2'"),
        ({"pair": "a1"}, "pair: expected tuple[str, int], got 'a1'"),
        ({"pair": ["a", "b"]}, "pair[1]: expected int, got 'b'"),
        ({"tags": ["a"]}, "tags: expected dict[str, int], got ['a']"),
        ({"tags": {1: 2}}, "tags[1]: keys must be str, got 1"),
        ({"budget": "lots"}, "budget: expected an object, got 'lots'"),
        ({"budget": {}}, "budget.amount: missing required field"),
        ({"budget": {"amount": "1"}}, "budget.amount: expected float, got '1'"),
        ({"stop": {"name": "Lyon", "late": True}}, "stop: unexpected field 'late'"),
        ({"color": "blue"}, "color: must be one of 'red', got 'blue'"),
        ({"pick": "f"}, "pick: must be one of 'c', got 'f'"),
        ({"mixed": "x"}, "mixed: expected int | list[str], got 'x'"),
        ({"chosen": "k"}, "chosen: must be one of 'c', 'f', got 'k'"),
        ({"span": {"low": -1}}, "span: 'low' must be >= 0: -1"),
        ({"frozen": [1, "x"]}, "frozen[1]: expected int, got 'x'"),
    ],
)
def test_edge_type_problems_name_path_and_cause(changes: dict[str, Any], message: str) -> None:
    assert _problems(shapes, _shapes_args(**changes)) == message


def test_long_values_are_shortened_in_messages() -> None:
    message = _problems(weather, {"city": "x" * 200, "days": "y" * 200})

    assert message == f"days: expected int, got '{'y' * 56}..."


class DuckModel:
    """Shaped like a pydantic model, without pydantic."""

    def __init__(self, size: int) -> None:
        self.size = size

    @classmethod
    def model_json_schema(cls) -> dict[str, Any]:
        return {"type": "object", "properties": {"size": {"type": "integer"}}}

    @classmethod
    def model_validate(cls, obj: Any) -> "DuckModel":
        if not isinstance(obj, dict) or not isinstance(obj.get("size"), int):
            raise ValueError("size must be an int")
        return cls(obj["size"])


@tool
def quack(model: DuckModel) -> int:
    """Quack."""
    return model.size


def test_model_shaped_classes_are_used_by_shape() -> None:
    assert quack.parameters["properties"]["model"]["properties"] == {"size": {"type": "integer"}}
    assert quack.parse_arguments({"model": {"size": 3}})["model"].size == 3


def test_model_shaped_class_errors_become_problems() -> None:
    assert _problems(quack, {"model": {"size": "3"}}) == "model: size must be an int"
