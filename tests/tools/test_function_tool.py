"""Building a ``FunctionTool``: options, names, methods, construction errors, normalizing."""

import functools
from collections.abc import Iterator
from typing import Any

import pytest

from agentcore import WebSearchTool
from agentcore.tools import FunctionTool, normalize_tools, tool


def greet(name: str) -> str:
    """Say hello."""
    return f"hello {name}"


def test_bare_decorator_and_constructor_build_the_same_tool() -> None:
    decorated = tool(greet)
    built = FunctionTool(greet)

    assert decorated.declaration() == built.declaration()
    assert decorated.name == "greet"


def test_calling_the_tool_calls_the_function_directly() -> None:
    assert tool(greet)("Ada") == "hello Ada"


def test_options_are_kept_as_given() -> None:
    configured = tool(
        name="say-hi",
        description="Greets.",
        approval_mode="always_require",
        return_directly=True,
        read_only=True,
        idempotent=True,
        destructive=False,
        open_world=False,
        max_invocations=3,
        timeout=2.5,
    )(greet)

    assert (configured.name, configured.description) == ("say-hi", "Greets.")
    assert configured.approval_mode == "always_require"
    assert configured.return_directly is True
    assert (configured.read_only, configured.idempotent) == (True, True)
    assert (configured.destructive, configured.open_world) == (False, False)
    assert (configured.max_invocations, configured.timeout) == (3, 2.5)
    assert configured.func is greet


def test_defaults_leave_hints_unset_and_need_no_approval() -> None:
    plain = FunctionTool(greet)

    assert plain.approval_mode == "never_require"
    assert plain.return_directly is False
    assert (plain.read_only, plain.idempotent, plain.destructive, plain.open_world) == (
        None,
        None,
        None,
        None,
    )
    assert (plain.max_invocations, plain.timeout) == (None, None)
    assert plain.is_streaming is False


def test_tool_keeps_the_function_for_introspection() -> None:
    wrapped = FunctionTool(greet)

    assert wrapped.__wrapped__ is greet
    assert wrapped.__doc__ == greet.__doc__


def test_partial_is_a_tool_without_its_bound_arguments() -> None:
    def scaled(value: float, factor: float) -> float:
        return value * factor

    double = FunctionTool(functools.partial(scaled, factor=2.0), name="double")

    assert double.parameters["required"] == ["value"]
    assert double.parameters["properties"]["factor"]["default"] == 2.0


class Counter:
    def __call__(self, step: int) -> int:
        return step


def test_callable_object_is_a_tool_with_an_explicit_name() -> None:
    counter = FunctionTool(Counter(), name="count")

    assert counter.parameters["properties"] == {"step": {"type": "integer"}}


def test_lambda_with_a_name_is_accepted() -> None:
    assert FunctionTool(lambda: 1, name="one").name == "one"


# --- methods -------------------------------------------------------------------------------------


class Library:
    def __init__(self, books: list[str]) -> None:
        self.books = books

    @tool
    def search(self, text: str) -> list[str]:
        """Find books by title."""
        return [book for book in self.books if text in book]


def test_method_schema_has_no_self() -> None:
    assert Library.search.parameters["properties"] == {"text": {"type": "string"}}
    assert Library.search.parameters["required"] == ["text"]


def test_method_through_an_instance_is_a_bound_tool() -> None:
    library = Library(["Dune", "Emma"])

    bound = library.search

    assert isinstance(bound, FunctionTool)
    assert bound("Du") == ["Dune"]
    assert bound.declaration() == Library.search.declaration()


def test_method_through_the_class_is_the_unbound_tool() -> None:
    unbound = Library.search

    assert unbound is Library.__dict__["search"]
    assert unbound(Library(["Dune", "Emma"]), "Em") == ["Emma"]


def test_plain_function_tool_stored_on_a_class_is_not_bound() -> None:
    class Holder:
        hello = tool(greet)

    # Statically, instance access assumes a method (drops the first parameter).
    assert Holder().hello("Ada") == "hello Ada"  # type: ignore[call-arg] # see above


# --- construction errors -------------------------------------------------------------------------


def test_non_callable_is_refused() -> None:
    not_callable: Any = 42
    with pytest.raises(TypeError, match="must be a callable"):
        FunctionTool(not_callable)


def test_lambda_without_a_name_must_be_named() -> None:
    with pytest.raises(ValueError, match="pass name="):
        FunctionTool(lambda: 1)


def unannotated(city, days: int) -> str:  # type: ignore[no-untyped-def] # the missing annotation is the point
    return str(city)


def test_unannotated_parameter_names_function_parameter_and_fix() -> None:
    with pytest.raises(ValueError, match="annotate it") as raised:
        FunctionTool(unannotated)

    assert "'city'" in str(raised.value)
    assert "'unannotated'" in str(raised.value)


def star_args(*cities: str) -> None:
    pass


def star_kwargs(**options: str) -> None:
    pass


@pytest.mark.parametrize(("func", "shown"), [(star_args, "*cities"), (star_kwargs, "**options")])
def test_variadic_parameters_are_refused(func: Any, shown: str) -> None:
    with pytest.raises(ValueError, match="explicit, annotated parameters") as raised:
        FunctionTool(func)

    assert shown in str(raised.value)


def test_bad_approval_mode_is_refused() -> None:
    mode: Any = "sometimes"
    with pytest.raises(ValueError, match="'never_require' or 'always_require'"):
        FunctionTool(greet, approval_mode=mode)


@pytest.mark.parametrize("timeout", [-1.0, 0, float("nan")])
def test_non_positive_timeout_is_refused(timeout: float) -> None:
    with pytest.raises(ValueError, match="timeout of tool 'greet' must be a positive number"):
        FunctionTool(greet, timeout=timeout)


@pytest.mark.parametrize("limit", [0, -3, True])
def test_max_invocations_below_one_is_refused(limit: int) -> None:
    with pytest.raises(ValueError, match=r"max_invocations of tool 'greet' must be an int >= 1"):
        FunctionTool(greet, max_invocations=limit)


@pytest.mark.parametrize("name", ["", "has space", "x" * 65, "dot.ted", "ünï"])
def test_names_outside_the_provider_rule_are_refused(name: str) -> None:
    with pytest.raises(ValueError, match="invalid tool name"):
        FunctionTool(greet, name=name)


def test_sync_generator_function_is_refused() -> None:
    def numbers() -> Iterator[int]:
        yield 1

    with pytest.raises(TypeError, match="async generator"):
        FunctionTool(numbers)


def test_class_is_refused() -> None:
    with pytest.raises(TypeError, match="not the class 'Library'"):
        FunctionTool(Library)


def test_wrapping_a_tool_again_is_refused() -> None:
    with pytest.raises(TypeError, match="already a FunctionTool"):
        FunctionTool(tool(greet))


def test_unresolvable_string_annotation_names_the_function() -> None:
    def dangling(city: "Nowhere") -> None:  # type: ignore[name-defined]  # noqa: F821 # undefined on purpose
        pass

    with pytest.raises(TypeError, match="cannot resolve the type hints of tool function"):
        FunctionTool(dangling)


# --- normalize_tools -----------------------------------------------------------------------------


def test_normalize_wraps_callables_and_passes_tools_through() -> None:
    existing = tool(greet)
    search = WebSearchTool()
    raw = {"type": "function", "name": "raw"}

    def shout(text: str) -> str:
        return text.upper()

    normalized = normalize_tools([shout, existing, search, raw])

    assert isinstance(normalized[0], FunctionTool)
    assert normalized[0].name == "shout"
    assert normalized[1:] == [existing, search, raw]
    assert normalized[1] is existing


def test_normalize_refuses_other_objects_naming_them() -> None:
    odd: Any = 42
    with pytest.raises(TypeError, match=r"cannot use 42 \(int\) as a tool; pass a function"):
        normalize_tools([odd])


def test_callable_without_a_name_must_be_named() -> None:
    with pytest.raises(ValueError, match="has no __name__"):
        FunctionTool(Counter())


class Unreadable:
    __signature__ = "not a signature"

    def __call__(self) -> None:
        pass


def test_callable_without_a_readable_signature_is_refused() -> None:
    with pytest.raises(TypeError, match="cannot read the signature"):
        FunctionTool(Unreadable(), name="unreadable")


class Greeter:
    def __init__(self, greeting: str) -> None:
        self.greeting = greeting

    def hello(self, name: str) -> str:
        """Greet someone."""
        return f"{self.greeting} {name}"


def test_bound_method_is_a_tool_without_self() -> None:
    hello = FunctionTool(Greeter("hi").hello)

    assert hello.parameters["properties"] == {"name": {"type": "string"}}
    assert hello.description == "Greet someone."
    assert hello("Ada") == "hi Ada"
