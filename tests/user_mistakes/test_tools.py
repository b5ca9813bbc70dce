"""Mistakes in declaring and passing tools, and in what tools return or raise (M07-M13,
M22, M23, M41, M42)."""

from __future__ import annotations

import datetime
import enum
import logging
import uuid
from typing import Any

import attrs
import pytest

from agentcore import (
    Agent,
    FunctionResultContent,
    FunctionTool,
    SqliteHistoryStore,
    tool,
)
from agentcore.testing import ScriptedChatClient
from tests.middleware.harness import one_call, results, run_agent, text

pytestmark = pytest.mark.anyio


def test_m07_an_unannotated_parameter_is_refused_at_decoration() -> None:
    def add(a, b: int) -> int:  # type: ignore[no-untyped-def]  # the mistake under test
        """Add."""
        return int(a) + b

    with pytest.raises(
        ValueError, match=r"parameter 'a' .*has no type annotation; annotate it \(for example"
    ):
        tool(add)


class Point:
    """A plain class: no JSON schema for it."""

    def __init__(self, x: int) -> None:
        self.x = x


def test_m08_a_parameter_of_an_unsupported_class_is_refused_at_decoration() -> None:
    def where(p: Point) -> str:
        """Where a point is."""
        return str(p.x)

    with pytest.raises(
        TypeError,
        match=r"parameter 'p' of tool 'where' has type Point, which is not supported.*"
        r"supported are str, int",
    ):
        tool(where)


def test_m09_star_args_are_refused_at_decoration() -> None:
    def total(*numbers: int) -> int:
        """Sum."""
        return sum(numbers)

    with pytest.raises(
        ValueError, match=r"takes \*numbers; a model can only send named arguments.*explicit"
    ):
        tool(total)


def test_m10_a_tool_without_a_docstring_warns_where_it_is_decorated() -> None:
    # The model would learn only the name and the parameters: @tool says so at the
    # decoration (this file's line), naming the tool and the two fixes.
    with pytest.warns(
        UserWarning, match=r"tool 'get_weather' has no description.*docstring.*@tool\(description="
    ) as seen:

        @tool
        def get_weather(city: str) -> str:
            return city

    assert seen[0].filename == __file__
    assert get_weather.description == ""

    with pytest.warns(UserWarning, match=r"tool 'weather' has no description") as seen:
        tool(name="weather")(get_weather.func)
    assert seen[0].filename == __file__

    described = tool(description="Current weather for a city.")(get_weather.func)  # silent
    assert described.description == "Current weather for a city."


@pytest.mark.parametrize("where", ["Agent", "run"])
async def test_m12_one_tool_instead_of_a_list_says_to_wrap_it(where: str) -> None:
    @tool
    def get_weather(city: str) -> str:
        """Weather."""
        return city

    agent = Agent(ScriptedChatClient([text("x")]))
    single: Any = get_weather

    async def give() -> None:
        if where == "Agent":
            Agent(ScriptedChatClient([]), tools=single)
        else:
            await agent.run("hi", tools=single)

    with pytest.raises(
        TypeError,
        match=r"tools takes a list of tools, got FunctionTool .*wrap it in a list: "
        r"tools=\[get_weather\]",
    ):
        await give()


def test_m13_two_tools_with_one_name_are_refused() -> None:
    def first(city: str) -> str:
        """One."""
        return city

    second = FunctionTool(first)
    with pytest.raises(ValueError, match=r"two tools named 'first'.*@tool\(name=\.\.\.\)"):
        Agent(ScriptedChatClient([]), tools=[FunctionTool(first), second])


class Thing:
    """No JSON form: the model must never see ``<Thing object at 0x...>``."""


async def test_m22_a_tool_result_that_is_not_json_fails_the_run_naming_the_tool(
    stream: bool,
) -> None:
    @tool
    def make_thing() -> Any:
        """A thing."""
        return Thing()

    client = ScriptedChatClient([one_call("make_thing"), text("never")])
    agent = Agent(client, tools=[make_thing])

    with pytest.raises(
        TypeError,
        match=r"tool 'make_thing' returned a Thing, which cannot be sent to the model as "
        r"JSON; return a str, number.*or convert it yourself",
    ):
        await run_agent(agent, stream=stream)
    assert len(client.requests) == 1  # the model was not sent a repr


async def test_m22_a_non_json_value_inside_a_dict_is_named_too(stream: bool) -> None:
    @tool
    def things() -> dict[str, Any]:
        """Things."""
        return {"thing": Thing()}

    agent = Agent(ScriptedChatClient([one_call("things"), text("never")]), tools=[things])

    with pytest.raises(TypeError, match=r"tool 'things' returned a dict holding a Thing"):
        await run_agent(agent, stream=stream)


class Colour(enum.Enum):
    RED = "red"


@attrs.frozen
class Visit:
    when: datetime.date


async def test_m22_common_types_get_the_documented_conversion(stream: bool) -> None:
    ident = uuid.UUID(int=7)

    @tool
    def details() -> dict[str, Any]:
        """Details."""
        return {
            "at": datetime.datetime(2026, 1, 2, 3, 4, 5),
            "id": ident,
            "colour": Colour.RED,
            "tags": {"a"},
            "visit": Visit(datetime.date(2026, 1, 2)),
        }

    client = ScriptedChatClient([one_call("details"), text("ok")])
    response, _ = await run_agent(Agent(client, tools=[details]), stream=stream)

    assert results(response.messages) == [
        {
            "at": "2026-01-02T03:04:05",
            "id": str(ident),
            "colour": "red",
            "tags": ["a"],
            "visit": {"when": "2026-01-02"},
        }
    ]


async def test_m23_a_non_json_result_never_reaches_the_sqlite_history(
    stream: bool, tmp_path: Any
) -> None:
    @tool
    def make_thing() -> Any:
        """A thing."""
        return Thing()

    store = SqliteHistoryStore(tmp_path / "h.db")
    agent = Agent(
        ScriptedChatClient([one_call("make_thing"), text("never")]),
        tools=[make_thing],
        history=store,
    )
    session = agent.create_session()
    try:
        with pytest.raises(TypeError, match=r"tool 'make_thing' returned a Thing"):
            await run_agent(agent, stream=stream, session=session)
        assert await store.load(session.session_id) == []  # nothing stored
    finally:
        store.close()


async def test_m41_a_tool_exception_is_logged_with_its_name_and_traceback(
    stream: bool, caplog: pytest.LogCaptureFixture
) -> None:
    @tool
    def boom() -> str:
        """Fails."""
        secrets: dict[str, str] = {}
        return secrets["API_TOKEN"]  # raises KeyError

    client = ScriptedChatClient([one_call("boom"), text("sorry")])
    with caplog.at_level(logging.WARNING, logger="agentcore.tools"):
        response, _ = await run_agent(Agent(client, tools=[boom]), stream=stream)

    (record,) = [r for r in caplog.records if r.name == "agentcore.tools"]
    assert record.levelno == logging.WARNING  # shown by Python's default handler
    assert "tool 'boom' raised KeyError" in record.getMessage()
    assert record.exc_info is not None
    assert isinstance(record.exc_info[1], KeyError)
    assert "API_TOKEN" in caplog.text  # the traceback names the key
    # The model still sees only the safe message, not the secret-looking detail.
    (result,) = results(response.messages)
    assert result == "Error: boom failed."
    assert "API_TOKEN" not in str(client.requests[-1].messages)


async def test_m42_bad_arguments_from_the_model_are_explained_to_the_model(
    stream: bool,
) -> None:
    @tool
    def get_weather(city: str) -> str:
        """Weather."""
        return city

    client = ScriptedChatClient([one_call("get_weather", '{"city": 42}'), text("fixed")])
    response, _ = await run_agent(Agent(client, tools=[get_weather]), stream=stream)

    (sent,) = [
        c
        for m in client.requests[-1].messages
        for c in m.contents
        if isinstance(c, FunctionResultContent)
    ]
    assert sent.result == "Error: invalid arguments for get_weather: city: expected str, got 42"
    assert response.text == "fixed"
