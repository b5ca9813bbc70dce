"""Static types of tools: checked by mypy and pyright, and run by pytest."""

from collections.abc import Coroutine
from typing import Any

from typing_extensions import assert_type

from agentcore.tools import FunctionTool, tool


@tool
def to_text(x: int) -> str:
    """To text."""
    return str(x)


@tool
def to_text_positional(x: int, /) -> str:
    """To text positional."""
    return str(x)


@tool(name="to_number", timeout=1.0)
def to_number(text: str, base: int = 10) -> int:
    """To number."""
    return int(text, base)


@tool
async def fetch(url: str) -> bytes:
    """Fetch."""
    return url.encode()


class Shelf:
    @tool
    def count(self, genre: str) -> int:
        """Count."""
        return len(genre)


def test_decorated_function_is_a_function_tool_of_its_signature() -> None:
    # A ParamSpec keeps parameter names, so `(x: int)` is written `[int]` only by
    # assignment; with a positional-only parameter the types are identical.
    typed: FunctionTool[[int], str] = to_text
    assert_type(to_text_positional, FunctionTool[[int], str])
    assert typed is to_text


def test_calling_the_tool_directly_returns_the_function_result_type() -> None:
    result = to_text(3)
    assert_type(result, str)
    assert result == "3"


def test_calling_with_a_wrong_argument_type_is_a_type_error() -> None:
    assert to_text("3") == "3"  # type: ignore[arg-type] # pyright: ignore[reportArgumentType] # the error is the point


def test_decorator_with_options_keeps_the_types() -> None:
    typed: FunctionTool[[str, int], int] = to_number
    assert_type(to_number("ff", 16), int)
    assert typed("ff", 16) == 255


def test_constructor_infers_the_types() -> None:
    built = FunctionTool(to_text_positional.func)
    assert_type(built, FunctionTool[[int], str])
    assert built(4) == "4"


def test_async_tool_called_directly_returns_a_coroutine() -> None:
    coroutine: Coroutine[Any, Any, bytes] = fetch("x")
    coroutine.close()
    assert fetch.is_streaming is False


def test_method_tool_through_an_instance_drops_self() -> None:
    bound = Shelf().count
    typed: FunctionTool[[str], int] = bound
    assert_type(bound("poetry"), int)
    assert typed("poetry") == 6
