"""``invoke``: running a tool with parsed arguments, on asyncio and trio."""

import threading
from collections.abc import AsyncGenerator
from typing import Any

import anyio
import pytest

from agentcore import CustomEvent, RunContext
from agentcore.tools import FunctionTool, ToolContext, tool

pytestmark = pytest.mark.anyio


def _context(tool_: FunctionTool[..., Any], run: RunContext | None = None) -> ToolContext:
    return ToolContext(call_id="call-1", tool_name=tool_.name, run=run or RunContext())


async def test_sync_tool_runs_in_a_worker_thread() -> None:
    @tool
    def where_am_i() -> int:
        """Where am i."""
        return threading.get_ident()

    worker = await where_am_i.invoke({}, context=_context(where_am_i))

    assert worker != threading.get_ident()


async def test_sync_tool_receives_parsed_arguments() -> None:
    @tool
    def add(a: int, b: int = 1) -> int:
        """Add."""
        return a + b

    assert await add.invoke(add.parse_arguments('{"a": 2}'), context=_context(add)) == 3


async def test_async_tool_is_awaited() -> None:
    @tool
    async def shout(text: str) -> str:
        """Shout."""
        await anyio.lowlevel.checkpoint()
        return text.upper()

    assert await shout.invoke({"text": "hi"}, context=_context(shout)) == "HI"


async def test_streaming_tool_emits_progress_then_returns_the_last_value() -> None:
    @tool
    async def count(to: int) -> AsyncGenerator[int, None]:
        """Count."""
        for number in range(1, to + 1):
            yield number

    run = RunContext()
    result = await count.invoke({"to": 3}, context=_context(count, run))

    assert count.is_streaming
    assert result == 3
    assert run.events == [
        CustomEvent(name="tool_progress", data=1, source="count"),
        CustomEvent(name="tool_progress", data=2, source="count"),
    ]


async def test_streaming_tool_that_yields_nothing_returns_none() -> None:
    @tool(description="Yields nothing.")
    async def silent() -> AsyncGenerator[int, None]:
        return
        yield  # pragma: no cover # makes this an async generator

    run = RunContext()

    assert await silent.invoke({}, context=_context(silent, run)) is None
    assert list(run.events) == []


async def test_context_is_injected_and_hidden_from_the_schema() -> None:
    @tool
    def remember(key: str, context: ToolContext) -> str:
        """Remember."""
        context.locals[key] = context.call_id
        return context.tool_name

    run = RunContext()
    result = await remember.invoke({"key": "k"}, context=_context(remember, run))

    assert result == "remember"
    assert run.locals["k"] == "call-1"
    assert "context" not in remember.parameters["properties"]


async def test_context_emit_marks_the_event_with_the_tool_name() -> None:
    @tool
    async def announce(context: ToolContext) -> None:
        """Announce."""
        await context.emit({"step": 1}, name="stage")

    run = RunContext()
    await announce.invoke({}, context=_context(announce, run))

    assert run.events == [CustomEvent(name="stage", data={"step": 1}, source="announce")]


async def test_context_exposes_the_run_session() -> None:
    @tool
    def session_of(context: ToolContext) -> object:
        """Session of."""
        return context.session

    run = RunContext()

    assert await session_of.invoke({}, context=_context(session_of, run)) is run.session


async def test_positional_only_parameters_are_passed_positionally() -> None:
    @tool
    def divide(a: float, b: float = 2.0, /) -> float:
        """Divide."""
        return a / b

    assert await divide.invoke({"a": 9.0}, context=_context(divide)) == 4.5


async def test_timeout_raises_builtin_timeout_error_naming_tool_and_limit() -> None:
    @tool(timeout=0.01)
    async def slow() -> None:
        """Slow."""
        await anyio.sleep(5)

    with pytest.raises(TimeoutError, match=r"tool 'slow' .* timeout of 0\.01 seconds"):
        await slow.invoke({}, context=_context(slow))


async def test_timeout_abandons_a_sync_tool_that_overruns() -> None:
    release = threading.Event()

    @tool(timeout=0.01)
    def blocked() -> None:
        """Blocked."""
        release.wait(5)

    try:
        with pytest.raises(TimeoutError, match="tool 'blocked'"):
            await blocked.invoke({}, context=_context(blocked))
    finally:
        release.set()


async def test_timeout_closes_a_streaming_tool() -> None:
    closed: list[bool] = []

    @tool(timeout=0.01)
    async def ticker() -> AsyncGenerator[int, None]:
        """Ticker."""
        try:
            yield 1
            yield 2
            await anyio.sleep(5)
        finally:
            closed.append(True)

    run = RunContext()
    with pytest.raises(TimeoutError):
        await ticker.invoke({}, context=_context(ticker, run))

    assert closed == [True]
    assert [event.data for event in run.events] == [1]


async def test_tool_exceptions_propagate_unchanged() -> None:
    @tool
    def broken() -> None:
        """Broken."""
        raise LookupError("no such city")

    with pytest.raises(LookupError, match="no such city"):
        await broken.invoke({}, context=_context(broken))


async def test_a_timeout_error_raised_by_the_tool_itself_is_not_rewritten() -> None:
    @tool(timeout=5)
    async def gives_up() -> None:
        """Gives up."""
        raise TimeoutError("upstream timed out")

    with pytest.raises(TimeoutError, match=r"^upstream timed out$"):
        await gives_up.invoke({}, context=_context(gives_up))


async def test_outer_cancellation_is_not_reported_as_a_timeout() -> None:
    @tool(timeout=5)
    async def waits() -> None:
        """Waits."""
        await anyio.sleep_forever()

    with anyio.CancelScope() as scope:
        scope.cancel()
        await waits.invoke({}, context=_context(waits))

    assert scope.cancelled_caught


class Thermostat:
    def __init__(self, unit: str) -> None:
        self.unit = unit

    @tool
    def read(self, room: str) -> str:
        """Read a room's temperature."""
        return f"{room}: 21 {self.unit}"

    @tool(name="set_target")
    async def set_to(self, degrees: float, context: ToolContext) -> str:
        """Set the target temperature."""
        return f"{context.call_id}: {degrees} {self.unit}"


async def test_method_tool_reached_through_an_instance_uses_that_instance() -> None:
    read = Thermostat("C").read

    assert await read.invoke({"room": "hall"}, context=_context(read)) == "hall: 21 C"


async def test_async_method_tool_gets_instance_and_context() -> None:
    set_to = Thermostat("F").set_to

    assert await set_to.invoke({"degrees": 70.0}, context=_context(set_to)) == "call-1: 70.0 F"


async def test_method_tool_reached_through_the_class_cannot_be_invoked() -> None:
    with pytest.raises(TypeError, match="invoke it through an instance"):
        await Thermostat.read.invoke({"room": "hall"}, context=_context(Thermostat.read))


async def test_missing_positional_only_argument_is_a_type_error_naming_it() -> None:
    @tool
    def negate(a: float, /) -> float:
        """Negate."""
        return -a

    with pytest.raises(TypeError, match="missing its argument 'a'"):
        await negate.invoke({}, context=_context(negate))
