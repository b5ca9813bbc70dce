"""Tools that are not ``FunctionTool``s, tool providers, media results and ``ToolResult``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, cast

import anyio
import pytest

from agentcore import (
    Agent,
    AgentContext,
    DataContent,
    FunctionInvocationConfiguration,
    FunctionInvocationContext,
    FunctionResultContent,
    Message,
    SupportsToolCall,
    TextContent,
    ToolLoop,
    ToolProvider,
    ToolResult,
    UriContent,
    tool,
)
from agentcore.serialization import from_json, to_json
from agentcore.testing import ScriptedChatClient
from agentcore.tools import ToolArgumentsError, ToolContext

from ._runs import answer_turn, call_turn, run_agent

pytestmark = pytest.mark.anyio

PIXEL = DataContent(b"\x89PNG\r\n", "image/png")


class EchoTool:
    """A tool with a tool's shape and no Python function behind it."""

    description = "Echoes its text."
    parameters: Mapping[str, Any] = {
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
    }
    approval_mode: Literal["always_require", "never_require"] = "never_require"
    return_directly = False
    read_only: bool | None = True
    idempotent: bool | None = True
    destructive: bool | None = None
    open_world: bool | None = None
    max_invocations: int | None = None
    timeout: float | None = None

    def __init__(self, name: str = "echo", result: Any = None) -> None:
        self.name = name
        self.result = result
        self.calls: list[Mapping[str, Any]] = []

    def declaration(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "parameters": self.parameters}

    def parse_arguments(self, raw: str | bytes | Mapping[str, Any]) -> dict[str, Any]:
        import json

        value = json.loads(raw) if isinstance(raw, (str, bytes)) else dict(raw)
        if not isinstance(value.get("text"), str):
            raise ToolArgumentsError("text: expected str")
        return dict(value)

    async def invoke(self, arguments: Mapping[str, Any], *, context: ToolContext) -> Any:
        self.calls.append(arguments)
        await anyio.lowlevel.checkpoint()
        return self.result if self.result is not None else f"echo: {arguments['text']}"


class Toolbox:
    """A tool provider; counts how often runs ask it and how often it is entered."""

    def __init__(self, *tools: SupportsToolCall) -> None:
        self.tools = tools
        self.asked = 0
        self.entered = 0
        self.exited = 0

    async def get_tools(self, context: AgentContext) -> Sequence[SupportsToolCall]:
        self.asked += 1
        return self.tools

    async def __aenter__(self) -> Toolbox:
        self.entered += 1
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self.exited += 1

    def __repr__(self) -> str:
        return f"Toolbox({', '.join(t.name for t in self.tools)})"


def _scripted(name: str = "echo", arguments: str = '{"text": "hi"}') -> ScriptedChatClient:
    return ScriptedChatClient([call_turn(name, arguments), answer_turn("done")])


# --- a tool's shape -------------------------------------------------------------------


def test_a_tool_shaped_object_satisfies_the_protocol_at_run_time() -> None:
    assert isinstance(EchoTool(), SupportsToolCall)
    assert not isinstance(Toolbox(), SupportsToolCall)
    assert isinstance(Toolbox(), ToolProvider)


async def test_an_agent_calls_a_tool_that_is_not_a_function_tool(stream: bool) -> None:
    echo = EchoTool()
    client = _scripted()
    agent = Agent(client, tools=[echo])

    outcome = await run_agent(agent, "say hi", stream=stream)

    assert echo.calls == [{"text": "hi"}]
    assert outcome.response.messages[1].contents == (
        FunctionResultContent("call_1", result="echo: hi"),
    )
    assert client.requests[0].options["tools"] == [echo]


async def test_run_tools_accept_a_tool_shaped_object(stream: bool) -> None:
    echo = EchoTool()
    agent = Agent(_scripted())

    outcome = await run_agent(agent, "say hi", stream=stream, tools=[echo])

    assert outcome.response.text == "done"
    assert echo.calls == [{"text": "hi"}]


async def test_the_standalone_loop_calls_a_tool_shaped_object() -> None:
    echo = EchoTool()
    loop = ToolLoop(_scripted())

    response = await loop.get_response([Message("user", "hi")], options={"tools": [echo]})

    assert response.text == "done"
    assert echo.calls == [{"text": "hi"}]


async def test_bad_arguments_of_a_tool_shaped_object_go_back_to_the_model() -> None:
    echo = EchoTool()
    agent = Agent(_scripted(arguments='{"text": 3}'), tools=[echo])

    response = await agent.run("say hi")

    result = response.messages[1].contents[0]
    assert isinstance(result, FunctionResultContent)
    assert result.error == "invalid arguments"
    assert "text: expected str" in str(result.result)
    assert echo.calls == []


async def test_function_middleware_sees_the_tool_shaped_object() -> None:
    echo = EchoTool()
    seen: list[object] = []

    async def middleware(context: FunctionInvocationContext, call_next: Any) -> None:
        seen.append(context.function)
        await call_next()

    agent = Agent(_scripted(), tools=[echo], middleware=[middleware])

    await agent.run("say hi")

    assert seen == [echo]


def test_a_tool_provider_cannot_go_where_only_tools_fit() -> None:
    from agentcore.tools import normalize_tools

    with pytest.raises(TypeError, match="is a tool provider"):
        normalize_tools([cast("Any", Toolbox())])


# --- tool providers -------------------------------------------------------------------


async def test_a_provider_is_asked_once_per_run(stream: bool) -> None:
    echo = EchoTool()
    box = Toolbox(echo)
    client = ScriptedChatClient(
        [
            call_turn("echo", '{"text": "a"}'),
            call_turn("echo", '{"text": "b"}', "call_2"),
            answer_turn("done"),
            answer_turn("again"),
        ]
    )
    agent = Agent(client, tools=[box])

    await run_agent(agent, "twice", stream=stream)
    assert box.asked == 1
    assert [call["text"] for call in echo.calls] == ["a", "b"]

    await run_agent(agent, "once more", stream=stream)
    assert box.asked == 2


async def test_a_provider_given_to_one_run_serves_that_run_only() -> None:
    box = Toolbox(EchoTool())
    client = ScriptedChatClient([*_scripted().script, answer_turn("plain")])
    agent = Agent(client)

    await agent.run("with tools", tools=[box])
    await agent.run("without")

    assert box.asked == 1
    assert client.requests[-1].options.get("tools") is None


async def test_two_sources_of_one_name_raise_naming_both() -> None:
    agent = Agent(_scripted(), tools=[Toolbox(EchoTool("echo")), Toolbox(EchoTool("echo"))])

    with pytest.raises(ValueError, match=r"two tools named 'echo'.*Toolbox\(echo\).*tool_prefix"):
        await agent.run("clash")


async def test_a_provider_tool_clashing_with_an_own_tool_raises() -> None:
    @tool
    def echo(text: str) -> str:
        """Echo."""
        return text

    agent = Agent(_scripted(), tools=[echo, Toolbox(EchoTool("echo"))])

    with pytest.raises(ValueError, match="the agent's and the run's own tools"):
        await agent.run("clash")


class PlainProvider:
    """A provider with no lifecycle: nothing to enter."""

    async def get_tools(self, context: AgentContext) -> Sequence[SupportsToolCall]:
        return [EchoTool("other")]


async def test_async_with_agent_enters_and_leaves_its_providers_once() -> None:
    box = Toolbox(EchoTool())
    agent = Agent(_scripted(), tools=[box, PlainProvider()])

    async with agent:
        async with agent:
            assert (box.entered, box.exited) == (1, 0)
        assert box.exited == 0
        await agent.run("inside")
    assert (box.entered, box.exited) == (1, 1)


async def test_a_provider_that_fails_to_enter_leaves_the_ones_already_entered() -> None:
    class Broken(Toolbox):
        async def __aenter__(self) -> Toolbox:
            raise ConnectionError("server down")

    first = Toolbox(EchoTool())
    agent = Agent(_scripted(), tools=[first, Broken(EchoTool("other"))])

    with pytest.raises(ConnectionError, match="server down"):
        await agent.__aenter__()

    assert (first.entered, first.exited) == (1, 1)


# --- media results ----------------------------------------------------------------------


async def test_a_tool_returning_text_and_an_image_keeps_them_as_contents(stream: bool) -> None:
    @tool
    def snapshot() -> list[Any]:
        """Snapshot."""
        return [TextContent("the chart:"), PIXEL]

    agent = Agent(_scripted("snapshot", "{}"), tools=[snapshot])

    outcome = await run_agent(agent, "show me", stream=stream)

    result = outcome.response.messages[1].contents[0]
    assert result == FunctionResultContent("call_1", result=(TextContent("the chart:"), PIXEL))


def test_a_media_result_survives_json() -> None:
    content = FunctionResultContent(
        "call_1",
        result=(TextContent("see"), PIXEL, UriContent("https://example.com/a.png", "image/png")),
        additional_properties={"structured": {"n": 1}},
    )

    assert from_json(to_json(content), FunctionResultContent) == content


def test_a_json_list_that_only_looks_like_contents_stays_a_list() -> None:
    content = FunctionResultContent("call_1", result=[{"type": "text", "text": "x", "rank": 2}])

    assert from_json(to_json(content), FunctionResultContent) == content


# --- ToolResult -----------------------------------------------------------------------


async def test_an_error_result_reaches_the_model_without_detailed_errors(stream: bool) -> None:
    failing = EchoTool(result=ToolResult("Error: the city 'Atlantis' is unknown", is_error=True))
    config = FunctionInvocationConfiguration(include_detailed_errors=False)
    agent = Agent(_scripted(), tools=[failing], tool_loop=config)

    outcome = await run_agent(agent, "weather?", stream=stream)

    assert outcome.response.messages[1].contents == (
        FunctionResultContent(
            "call_1", result="Error: the city 'Atlantis' is unknown", error="tool error"
        ),
    )


async def test_structured_content_and_meta_are_kept_for_code_not_sent_twice() -> None:
    weather = EchoTool(result=ToolResult("12 °C", structured={"celsius": 12}, meta={"src": "x"}))
    client = _scripted()
    agent = Agent(client, tools=[weather])

    response = await agent.run("weather?")

    result = response.messages[1].contents[0]
    assert result == FunctionResultContent(
        "call_1",
        result="12 °C",
        additional_properties={"structured": {"celsius": 12}, "meta": {"src": "x"}},
    )
    sent = client.requests[1].messages[-1].contents[0]
    assert isinstance(sent, FunctionResultContent)
    assert sent.result == "12 °C"


async def test_error_results_count_toward_the_error_budget() -> None:
    failing = EchoTool(result=ToolResult("no", is_error=True))
    client = ScriptedChatClient(
        [call_turn("echo", '{"text": "x"}', f"call_{i}") for i in range(2)]
        + [answer_turn("gave up")]
    )
    config = FunctionInvocationConfiguration(max_consecutive_errors_per_request=2)
    agent = Agent(client, tools=[failing], tool_loop=config)

    response = await agent.run("try")

    assert response.text == "gave up"
    assert client.requests[-1].options.get("tool_choice") == "none"


async def test_function_middleware_sees_the_tool_result_itself() -> None:
    value = ToolResult(["a", "b"], structured={"items": ["a", "b"]})
    seen: list[object] = []

    async def middleware(context: FunctionInvocationContext, call_next: Any) -> None:
        await call_next()
        seen.append(context.result)

    agent = Agent(_scripted(), tools=[EchoTool(result=value)], middleware=[middleware])

    response = await agent.run("list")

    assert seen == [value]
    result = response.messages[1].contents[0]
    assert isinstance(result, FunctionResultContent)
    assert result.result == ["a", "b"]


async def test_a_tool_result_with_media_keeps_the_contents() -> None:
    agent = Agent(_scripted(), tools=[EchoTool(result=ToolResult([TextContent("x"), PIXEL]))])

    response = await agent.run("draw")

    result = response.messages[1].contents[0]
    assert isinstance(result, FunctionResultContent)
    assert result.result == (TextContent("x"), PIXEL)
