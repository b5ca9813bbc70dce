"""Servers nobody here wrote: mcp-server-time over stdio, and the same server behind
a fastmcp proxy over streamable HTTP."""

from __future__ import annotations

import json

import pytest
from agentcore_mcp import MCPToolset

from agentcore import Agent, FunctionResultContent
from agentcore.testing import ScriptedChatClient
from tests.agent._runs import answer_turn, call_turn

from .conftest import SDK_SSE_GENERATOR_WARNING, executable

pytestmark = [pytest.mark.anyio, SDK_SSE_GENERATOR_WARNING]

BERLIN = '{"timezone": "Europe/Berlin"}'


def time_stdio() -> MCPToolset:
    return MCPToolset.stdio(
        executable("mcp-server-time"), ["--local-timezone", "UTC"], name="time", tool_prefix="time"
    )


async def test_mcp_server_time_over_stdio_answers_an_agent() -> None:
    client = ScriptedChatClient(
        [call_turn("time_get_current_time", BERLIN), answer_turn("It is late.")]
    )
    toolset = time_stdio()
    agent = Agent(client, tools=[toolset])

    async with agent:
        response = await agent.run("What time is it in Berlin?")

    declared = [tool.name for tool in client.requests[0].options["tools"]]
    assert declared == ["time_get_current_time", "time_convert_time"]
    result = response.messages[1].contents[0]
    assert isinstance(result, FunctionResultContent)
    assert result.error is None
    assert json.loads(result.result)["timezone"] == "Europe/Berlin"
    assert result.additional_properties is not None
    assert result.additional_properties["structured"]["timezone"] == "Europe/Berlin"


async def test_an_invalid_timezone_is_an_error_the_model_sees() -> None:
    async with time_stdio() as toolset:
        result = await toolset.call_tool("get_current_time", {"timezone": "Mars/Olympus"})

    assert result.is_error
    assert "Mars/Olympus" in str(result.value)


async def test_mcp_server_time_behind_fastmcp_over_http(time_proxy_url: str) -> None:
    # With one server in its config the proxy keeps the server's own tool names.
    client = ScriptedChatClient(
        [call_turn("get_current_time", '{"timezone": "Asia/Tokyo"}'), answer_turn("Tokyo.")]
    )
    toolset = MCPToolset.http(time_proxy_url, name="proxy", connect_timeout=60)
    agent = Agent(client, tools=[toolset])

    async with agent:
        response = await agent.run("What time is it in Tokyo?")

    declared = {tool.name for tool in client.requests[0].options["tools"]}
    assert declared == {"get_current_time", "convert_time"}
    result = response.messages[1].contents[0]
    assert isinstance(result, FunctionResultContent)
    assert result.error is None
    assert json.loads(result.result)["timezone"] == "Asia/Tokyo"


def test_the_servers_are_installed() -> None:
    # Missing dev dependencies fail here, loudly, instead of skipping the module.
    assert executable("mcp-server-time")
    assert executable("fastmcp")
