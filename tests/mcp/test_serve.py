"""Agents and tools served over MCP, listed and called by the official ``mcp`` client:
in memory, over stdio, and over streamable HTTP bound to 127.0.0.1."""

from __future__ import annotations

import json
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agentcore_mcp import to_mcp_server
from mcp import Client, StdioServerParameters, types

from agentcore import Agent, DataContent, TextContent, ToolResult, tool
from agentcore.testing import ScriptedChatClient

from .conftest import HERE, SDK_SSE_GENERATOR_WARNING, free_port, start_http, stop
from .served_tools import build, shout

pytestmark = [pytest.mark.anyio, SDK_SSE_GENERATOR_WARNING]

SERVED = str(HERE / "served_tools.py")


def texts(result: types.CallToolResult) -> list[str]:
    return [block.text for block in result.content if isinstance(block, types.TextContent)]


@tool
def fails() -> str:
    """Always fails."""
    raise RuntimeError("secret detail")


@tool
def chart() -> list[Any]:
    """Text and an image."""
    return [TextContent("chart:"), DataContent(b"\x89PNG", "image/png")]


@tool
def weather(city: str) -> ToolResult:
    """Structured weather."""
    return ToolResult(f"{city}: 12 °C", structured={"city": city, "celsius": 12})


@tool
def refuse() -> ToolResult:
    """An error written for the model."""
    return ToolResult("Error: no such city", is_error=True)


async def test_tools_are_listed_with_their_schemas_and_hints() -> None:
    async with Client(build()) as client:
        listed = {t.name: t for t in (await client.list_tools()).tools}

    assert set(listed) == {"shout", "helper"}
    assert listed["shout"].input_schema == dict(shout.parameters)
    assert listed["shout"].annotations is not None
    assert listed["shout"].annotations.read_only_hint is True
    assert listed["helper"].input_schema["required"] == ["task"]
    assert listed["helper"].description == "Answers geography questions."


async def test_a_tool_and_an_agent_answer_calls() -> None:
    async with Client(build()) as client:
        shouted = await client.call_tool("shout", {"text": "hi"})
        answered = await client.call_tool("helper", {"task": "Capital of France?"})

    assert texts(shouted) == ["HI"]
    assert texts(answered) == ["Paris."]
    assert not answered.is_error


async def test_failures_are_error_results_without_the_exception_text() -> None:
    server = to_mcp_server(shout, fails, refuse, name="s")
    async with Client(server) as client:
        failed = await client.call_tool("fails", {})
        refused = await client.call_tool("refuse", {})
        bad = await client.call_tool("shout", {"text": 3})

    assert failed.is_error
    assert texts(failed) == ["Error: fails failed."]
    assert refused.is_error
    assert texts(refused) == ["Error: no such city"]
    assert bad.is_error
    assert "text: expected str" in texts(bad)[0]


async def test_media_and_structured_results_keep_their_shape() -> None:
    async with Client(to_mcp_server(chart, weather, name="s")) as client:
        drawn = await client.call_tool("chart", {})
        measured = await client.call_tool("weather", {"city": "Oslo"})

    assert isinstance(drawn.content[1], types.ImageContent)
    assert drawn.content[1].mime_type == "image/png"
    assert measured.structured_content == {"city": "Oslo", "celsius": 12}
    assert texts(measured) == ["Oslo: 12 °C"]


async def test_an_agent_that_pauses_for_approval_tells_a_client_that_cannot_ask() -> None:
    @tool(approval_mode="always_require")
    def delete(path: str) -> str:
        """Delete."""
        return path

    from tests.agent._runs import call_turn

    agent = Agent(
        ScriptedChatClient([call_turn("delete", '{"path": "/"}')]), name="janitor", tools=[delete]
    )
    async with Client(to_mcp_server(agent, name="s")) as client:
        result = await client.call_tool("janitor", {"task": "clean up"})

    assert result.is_error
    assert "janitor agent needs the user's approval to call delete" in texts(result)[0]
    assert "cannot ask its user" in texts(result)[0]


def test_bad_items_and_clashes_are_refused_where_given() -> None:
    with pytest.raises(TypeError, match="cannot serve 42"):
        to_mcp_server(42, name="s")  # type: ignore[arg-type]  # the wrong type is the point of the test
    with pytest.raises(ValueError, match="two tools named 'shout'"):
        to_mcp_server(shout, shout, name="s")
    with pytest.raises(ValueError, match="has no name"):
        to_mcp_server(Agent(ScriptedChatClient([])), name="s")


async def test_served_over_stdio() -> None:
    params = StdioServerParameters(command=sys.executable, args=[SERVED, "stdio"])
    async with Client(params) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        result = await client.call_tool("shout", {"text": "over stdio"})

    assert names == {"shout", "helper"}
    assert texts(result) == ["OVER STDIO"]


@pytest.fixture(scope="module")
def served_url() -> Iterator[str]:
    port = free_port()
    process = start_http([sys.executable, SERVED, "http", str(port)], port)
    yield f"http://127.0.0.1:{port}/mcp"
    stop(process)


async def test_served_over_streamable_http_on_loopback(served_url: str) -> None:
    async with Client(served_url) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        result = await client.call_tool("helper", {"task": "Capital of France?"})

    assert names == {"shout", "helper"}
    assert texts(result) in (["Paris."], ["Rome."])


def _port(url: str) -> int:
    return int(url.rsplit(":", 1)[1].split("/", 1)[0])


def test_the_http_server_listens_on_loopback_only_by_default(served_url: str) -> None:
    table = Path("/proc/net/tcp")
    if not table.exists():
        pytest.skip("listening addresses are read from Linux's /proc/net/tcp, absent here")
    rows = [line.split() for line in table.read_text().splitlines()[1:]]
    listening = {row[1] for row in rows if row[3] == "0A"}  # state 0A: LISTEN
    port = f"{_port(served_url):04X}"

    assert f"0100007F:{port}" in listening  # 127.0.0.1
    assert f"00000000:{port}" not in listening  # not every interface


def test_a_request_for_another_host_name_is_refused(served_url: str) -> None:
    # DNS rebinding: a page on evil.example that resolves to 127.0.0.1 sends its own Host.
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).encode()
    headers = {
        "Host": "evil.example",
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
    }
    request = urllib.request.Request(served_url, data=body, headers=headers, method="POST")

    with pytest.raises(urllib.error.HTTPError) as raised:
        urllib.request.urlopen(request, timeout=30)

    assert raised.value.code == 421
