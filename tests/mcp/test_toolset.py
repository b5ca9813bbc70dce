"""MCPToolset against our fixture server over streamable HTTP (one process per module)."""

from __future__ import annotations

import sys
from typing import Any

import pytest
from agentcore_mcp import MCPFunctionTool, MCPToolInfo, MCPToolset

from agentcore import (
    Agent,
    DataContent,
    FunctionInvocationConfiguration,
    FunctionInvocationContext,
    FunctionResultContent,
    Message,
    TextContent,
    ToolResult,
)
from agentcore.errors import RunStateError, ToolServerError
from agentcore.observers import ToolCallEnded, ToolCallStarted
from agentcore.testing import ScriptedChatClient
from tests.agent._runs import answer_turn, call_turn, run_agent

from .conftest import FIXTURE, SDK_SSE_GENERATOR_WARNING

pytestmark = [pytest.mark.anyio, SDK_SSE_GENERATOR_WARNING]


@pytest.fixture(params=[False, True], ids=["call", "stream"])
def stream(request: pytest.FixtureRequest) -> bool:
    return bool(request.param)


def _result(response: Any, index: int = 1) -> FunctionResultContent:
    content = response.messages[index].contents[0]
    assert isinstance(content, FunctionResultContent)
    return content


# --- listing ---------------------------------------------------------------------------


async def test_tools_are_listed_with_the_servers_schema_verbatim(fixture_url: str) -> None:
    async with MCPToolset.http(fixture_url, name="fx") as toolset:
        infos = {info.name: info for info in await toolset.list_tools()}
        tools = {tool.name: tool for tool in await toolset.get_tools()}

    assert tools["add"].parameters == infos["add"].input_schema
    assert tools["add"].parameters["properties"]["a"] == {"title": "A", "type": "integer"}
    assert tools["add"].declaration()["description"] == "Add two integers."
    assert tools["delete"].destructive is True
    assert tools["delete"].read_only is False
    assert tools["add"].info.server == "fx"


async def test_a_prefix_names_the_tools_and_filters_choose_them(fixture_url: str) -> None:
    def no_slow(info: MCPToolInfo) -> bool:
        return info.name != "slow"

    toolset = MCPToolset.http(
        fixture_url,
        tool_prefix="fx",
        allowed_tools=["add", "slow", "fail", "weather"],
        blocked_tools=["fail"],
        tool_filter=no_slow,
    )
    async with toolset:
        names = [tool.name for tool in await toolset.get_tools()]

    assert names == ["fx_add", "fx_weather"]


async def test_two_toolsets_with_one_tool_name_raise_naming_both(fixture_url: str) -> None:
    first = MCPToolset.http(fixture_url, name="first", allowed_tools=["add"])
    second = MCPToolset.http(fixture_url, name="second", allowed_tools=["add"])
    agent = Agent(ScriptedChatClient([answer_turn("hi")]), tools=[first, second])

    async with agent:
        with pytest.raises(
            ValueError, match=r"'add'.*MCPToolset\('first'\).*MCPToolset\('second'\)"
        ):
            await agent.run("hi")


# --- calls in the tool loop --------------------------------------------------------------


async def test_an_agent_calls_an_mcp_tool_in_its_tool_loop(fixture_url: str, stream: bool) -> None:
    toolset = MCPToolset.http(fixture_url, tool_prefix="fx")
    client = ScriptedChatClient([call_turn("fx_add", '{"a": 2, "b": 3}'), answer_turn("5")])
    agent = Agent(client, tools=[toolset])

    async with agent:
        outcome = await run_agent(agent, "2 + 3?", stream=stream)

    assert _result(outcome.response) == FunctionResultContent(
        "call_1",
        result="5",
        additional_properties={
            "structured": {"result": 5},
            "meta": {"io.modelcontextprotocol/serverInfo": {"name": "fixture", "version": ""}},
        },
    )
    declared = client.requests[0].options["tools"]
    assert [tool.name for tool in declared][:2] == ["fx_add", "fx_weather"]


async def test_middleware_and_observers_see_mcp_calls_like_any_call(fixture_url: str) -> None:
    seen: list[tuple[object, object]] = []
    events: list[object] = []

    async def middleware(context: FunctionInvocationContext, call_next: Any) -> None:
        await call_next()
        seen.append((context.function, context.result))

    class Watcher:
        async def on_tool_call_start(self, event: ToolCallStarted) -> None:
            events.append(("start", event.name, event.arguments))

        async def on_tool_call_end(self, event: ToolCallEnded) -> None:
            events.append(("end", event.name, event.result))

    client = ScriptedChatClient([call_turn("add", '{"a": 1, "b": 1}'), answer_turn("2")])
    toolset = MCPToolset.http(fixture_url, allowed_tools=["add"])
    agent = Agent(client, tools=[toolset], middleware=[middleware], observers=[Watcher()])

    async with agent:
        await agent.run("1 + 1?")

    function, result = seen[0]
    assert isinstance(function, MCPFunctionTool)
    assert function.info.name == "add"
    assert isinstance(result, ToolResult)
    assert result.structured == {"result": 2}
    assert events == [("start", "add", {"a": 1, "b": 1}), ("end", "add", "2")]


async def test_an_image_comes_back_as_contents(fixture_url: str, stream: bool) -> None:
    client = ScriptedChatClient([call_turn("pixel", "{}"), answer_turn("a pixel")])
    agent = Agent(client, tools=[MCPToolset.http(fixture_url)])

    async with agent:
        outcome = await run_agent(agent, "draw", stream=stream)

    text, image = _result(outcome.response).result
    assert text == TextContent("a red pixel:")
    assert isinstance(image, DataContent)
    assert image.media_type == "image/png"
    assert image.data.startswith(b"\x89PNG")


async def test_an_embedded_text_resource_reads_as_text(fixture_url: str) -> None:
    async with MCPToolset.http(fixture_url) as toolset:
        result = await toolset.call_tool("readme", {})

    assert result.value == "file:///readme.txt:\nRead me."


async def test_structured_content_is_not_sent_twice(fixture_url: str) -> None:
    async with MCPToolset.http(fixture_url) as toolset:
        result = await toolset.call_tool("weather", {"city": "Oslo"})

    assert result.structured == {"city": "Oslo", "celsius": 21.5}
    assert isinstance(result.value, str)
    assert '"celsius": 21.5' in result.value


async def test_a_server_error_reaches_the_model_without_detailed_errors(fixture_url: str) -> None:
    client = ScriptedChatClient([call_turn("fail", "{}"), answer_turn("sorry")])
    config = FunctionInvocationConfiguration(include_detailed_errors=False)
    agent = Agent(client, tools=[MCPToolset.http(fixture_url)], tool_loop=config)

    async with agent:
        response = await agent.run("fail please")

    result = _result(response)
    assert result.error == "tool error"
    assert result.result == "Error executing tool fail"


async def test_an_unknown_remote_tool_is_an_error_result(fixture_url: str) -> None:
    async with MCPToolset.http(fixture_url) as toolset:
        result = await toolset.call_tool("nope", {})

    assert result.is_error
    assert "Unknown tool: nope" in str(result.value)


async def test_bad_arguments_are_rejected_before_any_request(fixture_url: str) -> None:
    client = ScriptedChatClient([call_turn("add", '{"a": "x"}'), answer_turn("oops")])
    agent = Agent(client, tools=[MCPToolset.http(fixture_url)])

    async with agent:
        response = await agent.run("add")

    result = _result(response)
    assert result.error == "invalid arguments"
    assert "'b' is a required property" in result.result
    assert "a: 'x' is not of type 'integer'" in result.result


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        ('{"a": NaN, "b": 1}', "NaN is not a JSON number"),
        ('{"a": Infinity, "b": 1}', "Infinity is not a JSON number"),
        ('{"a": ' * 100_000 + "1" + "}" * 100_000, "nested too deeply"),
        ("[1, 2]", "must be a JSON object"),
    ],
    ids=["nan", "infinity", "deep", "not an object"],
)
async def test_arguments_json_does_not_allow_are_an_error_result_the_model_sees(
    fixture_url: str, arguments: str, said: str
) -> None:
    client = ScriptedChatClient([call_turn("add", arguments), answer_turn("oops")])
    agent = Agent(client, tools=[MCPToolset.http(fixture_url)])

    async with agent:
        response = await agent.run("add")

    result = _result(response)
    assert result.error == "invalid arguments"
    assert said in result.result
    assert response.text == "oops"  # the run went on, the model told


async def test_a_timeout_is_a_timeout_result_and_the_next_call_works(fixture_url: str) -> None:
    client = ScriptedChatClient(
        [
            call_turn("slow", '{"seconds": 5}'),
            call_turn("add", '{"a": 1, "b": 2}', "call_2"),
            answer_turn("done"),
        ]
    )
    agent = Agent(client, tools=[MCPToolset.http(fixture_url, timeout=0.3)])

    async with agent:
        response = await agent.run("be slow")

    timed_out = _result(response)
    assert timed_out.error == "timeout"
    assert "did not answer within 0.3 seconds" in timed_out.result
    assert _result(response, 3).result == "3"


# --- approval --------------------------------------------------------------------------


async def test_an_approval_required_tool_pauses_and_runs_once_approved(fixture_url: str) -> None:
    client = ScriptedChatClient([call_turn("delete", '{"path": "/tmp/x"}'), answer_turn("deleted")])
    toolset = MCPToolset.http(fixture_url, approval_mode={"delete": "always_require"})
    agent = Agent(client, tools=[toolset])
    session = agent.create_session()

    async with agent:
        paused = await agent.run("delete /tmp/x", session=session)
        (request,) = paused.approval_requests
        assert request.function_call.name == "delete"
        done = await agent.run([request.create_response(True)], session=session)

    assert done.text == "deleted"
    results = [c for m in done.messages for c in m.contents if isinstance(c, FunctionResultContent)]
    assert [r.result for r in results] == ["deleted /tmp/x"]


async def test_a_callable_approval_mode_reads_the_listing(fixture_url: str) -> None:
    def ask_if_destructive(info: MCPToolInfo) -> Any:
        return "always_require" if info.annotations.get("destructiveHint") else "never_require"

    async with MCPToolset.http(fixture_url, approval_mode=ask_if_destructive) as toolset:
        modes = {tool.name: tool.approval_mode for tool in await toolset.get_tools()}

    assert modes["delete"] == "always_require"
    assert modes["add"] == "never_require"


# --- cache -------------------------------------------------------------------------------


async def test_the_tool_list_is_asked_for_once_across_runs(fixture_url: str) -> None:
    toolset = MCPToolset.http(fixture_url)
    agent = Agent(ScriptedChatClient([answer_turn("a"), answer_turn("b")]), tools=[toolset])

    async def lists() -> int:
        return int((await toolset.call_tool("lists", {})).value)

    async with agent:
        await agent.run("one")
        after_one = await lists()
        await agent.run("two")
        after_two = await lists()
        toolset.invalidate_tools()
        await toolset.get_tools()
        after_refresh = await lists()

    assert after_two == after_one
    assert after_refresh == after_two + 1


# --- lifecycle -----------------------------------------------------------------------------


async def test_a_toolset_that_was_never_entered_says_how_to_enter_it(fixture_url: str) -> None:
    toolset = MCPToolset.http(fixture_url, name="fx")

    with pytest.raises(RunStateError, match="async with toolset:"):
        await toolset.get_tools()


async def test_an_unreachable_server_is_one_typed_error() -> None:
    from .conftest import free_port

    toolset = MCPToolset.http(f"http://127.0.0.1:{free_port()}/mcp", name="gone")

    with pytest.raises(ToolServerError, match=r"'gone' \(streamable HTTP\) cannot be reached"):
        async with toolset:
            pass
    assert not toolset.connected


async def test_a_missing_command_is_one_typed_error() -> None:
    with pytest.raises(ToolServerError, match="stdio") as caught:
        async with MCPToolset.stdio("/no/such/server"):
            pass
    assert caught.value.transport == "stdio"
    assert isinstance(caught.value.__cause__, FileNotFoundError)


def test_options_are_checked_where_they_are_given() -> None:
    with pytest.raises(ValueError, match="result_mode must be one of"):
        MCPToolset.http("http://127.0.0.1:1/mcp", result_mode="everything")
    with pytest.raises(TypeError, match="collections of names"):
        MCPToolset.http("http://127.0.0.1:1/mcp", allowed_tools="add")
    with pytest.raises(ValueError, match="http:// or https://"):
        MCPToolset.http("127.0.0.1:1/mcp")


def test_a_toolset_is_never_a_tool_itself() -> None:
    from agentcore import SupportsToolCall, ToolProvider

    toolset: object = MCPToolset.stdio(sys.executable, [FIXTURE, "stdio"])
    assert isinstance(toolset, ToolProvider)
    assert not isinstance(toolset, SupportsToolCall)


async def test_messages_the_model_never_sees_stay_out(fixture_url: str) -> None:
    # Server instructions are available to code, never added to the model's request.
    client = ScriptedChatClient([answer_turn("hi")])
    toolset = MCPToolset.http(fixture_url)
    agent = Agent(client, "Be brief.", tools=[toolset])

    async with agent:
        await agent.run("hi")
        assert toolset.instructions == "Use add for sums."

    assert client.requests[0].options["instructions"] == "Be brief."
    assert client.requests[0].messages == (Message("user", "hi"),)
