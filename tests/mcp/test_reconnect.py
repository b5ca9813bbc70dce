"""Losing a real server and getting it back: stdio processes killed by pid, HTTP servers
stopped and started again on the same port (issue 27, MCP items 1, 2, 6 and 7)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from typing import Any

import anyio
import pytest
from agentcore_mcp import MCPToolset, ReconnectPolicy

from agentcore import Agent, ToolResult
from agentcore.errors import ToolServerError
from agentcore.testing import ScriptedChatClient
from tests.agent._runs import answer_turn, run_agent

from .conftest import (
    FIXTURE,
    HERE,
    SDK_SSE_GENERATOR_WARNING,
    free_port,
    pid_alive,
    start_http,
    stop,
)

pytestmark = [pytest.mark.anyio, SDK_SSE_GENERATOR_WARNING]

QUICK = ReconnectPolicy(attempts=1, backoff=0)


def fixture_stdio(**options: Any) -> MCPToolset:
    return MCPToolset.stdio(sys.executable, [FIXTURE, "stdio"], name="fixture", **options)


async def server_pid(toolset: MCPToolset) -> int:
    return int((await toolset.call_tool("pid", {})).value)


async def wait_until(condition: Callable[[], bool], seconds: float = 10.0) -> None:
    with anyio.fail_after(seconds):
        while not condition():  # noqa: ASYNC110  # polls public state: there is no event
            await anyio.sleep(0.02)


async def kill_during(toolset: MCPToolset, tool: str, pid: int) -> ToolResult:
    """Call ``tool`` (2 s long) and kill the server process ``pid`` while it runs."""
    results: list[ToolResult] = []

    async def call() -> None:
        results.append(await toolset.call_tool(tool, {"seconds": 2.0}))

    async with anyio.create_task_group() as group:
        group.start_soon(call)
        await anyio.sleep(0.7)
        os.kill(pid, signal.SIGKILL)
    return results[0]


class HttpServer:
    """A real HTTP MCP server that the test stops and starts again on one port."""

    def __init__(self, script: str, *args: str) -> None:
        self.port = free_port()
        self.command = [sys.executable, script, *args, str(self.port)]
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = start_http(self.command, self.port)

    def stop(self) -> None:
        if self.process is not None:
            stop(self.process)

    def kill(self) -> None:
        """End the server at once (SIGKILL): a request in flight gets no answer."""
        if self.process is not None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


@pytest.fixture
def http_fixture() -> Iterator[HttpServer]:
    server = HttpServer(FIXTURE, "http")
    server.start()
    yield server
    server.stop()


# --- item 1: a stdio server that died while idle -----------------------------------------


async def test_a_stdio_server_that_died_while_idle_is_noticed_and_the_next_call_runs() -> None:
    async with fixture_stdio() as toolset:
        pid = await server_pid(toolset)
        assert toolset.connected
        os.kill(pid, signal.SIGKILL)

        await wait_until(lambda: not toolset.connected)  # nobody called: the owner saw it
        result = await toolset.call_tool("add", {"a": 1, "b": 2})
        assert toolset.connected
        second = await server_pid(toolset)

    assert (result.value, result.is_error) == ("3", False)
    assert second != pid
    assert not pid_alive(second)


# --- item 2: reconnect and retry ------------------------------------------------------------


async def test_a_read_only_call_lost_in_flight_runs_again_on_a_fresh_server() -> None:
    async with fixture_stdio() as toolset:
        await toolset.get_tools()  # the listing says `peek` is read-only
        pid = await server_pid(toolset)

        result = await kill_during(toolset, "peek", pid)
        started = await toolset.call_tool("started", {})

    assert not result.is_error, result.value
    assert int(result.value) not in (pid, 0)  # answered by the new process
    assert started.value == "1"  # sent once more, to the new server


async def test_a_call_lost_in_flight_that_may_not_be_repeated_says_the_outcome_is_unknown() -> None:
    async with fixture_stdio() as toolset:
        await toolset.get_tools()
        pid = await server_pid(toolset)

        result = await kill_during(toolset, "work", pid)
        started = await toolset.call_tool("started", {})
        second = await server_pid(toolset)

    assert result.is_error
    assert "lost during the call to 'work'" in result.value
    assert "outcome is unknown" in result.value
    assert started.value == "0"  # the new server never got it
    assert second != pid


async def test_with_reconnect_none_a_lost_server_stays_disconnected() -> None:
    async with fixture_stdio(reconnect=None) as toolset:
        assert toolset.reconnect is None
        pid = await server_pid(toolset)
        os.kill(pid, signal.SIGKILL)
        await wait_until(lambda: not toolset.connected)

        result = await toolset.call_tool("add", {"a": 1, "b": 2})
        with pytest.raises(ToolServerError, match=r"reconnect=None"):
            await toolset.get_tools()

    assert result.is_error
    assert "reconnect=None" in result.value


async def test_a_read_only_call_lost_when_an_http_server_goes_down_runs_once_it_is_back(
    http_fixture: HttpServer,
) -> None:
    toolset = MCPToolset.http(
        http_fixture.url, name="web", reconnect=ReconnectPolicy(attempts=8, backoff=0.25)
    )
    async with toolset:
        await toolset.get_tools()
        first = await server_pid(toolset)
        results: list[ToolResult] = []

        async def call() -> None:
            results.append(await toolset.call_tool("peek", {"seconds": 2.0}))

        async with anyio.create_task_group() as group:
            group.start_soon(call)
            await anyio.sleep(0.7)
            http_fixture.kill()
            await anyio.to_thread.run_sync(http_fixture.start)
        then = await toolset.call_tool("add", {"a": 2, "b": 2})

    assert not results[0].is_error, results[0].value
    assert int(results[0].value) != first
    assert then.value == "4"


async def test_an_http_server_down_mid_call_gives_an_unknown_outcome_and_the_next_call_works(
    http_fixture: HttpServer,
) -> None:
    async with MCPToolset.http(http_fixture.url, name="web", reconnect=QUICK) as toolset:
        await toolset.get_tools()
        results: list[ToolResult] = []

        async def call() -> None:
            results.append(await toolset.call_tool("work", {"seconds": 2.0}))

        async with anyio.create_task_group() as group:
            group.start_soon(call)
            await anyio.sleep(0.7)
            http_fixture.kill()
        http_fixture.start()
        then = await toolset.call_tool("add", {"a": 2, "b": 2})

    assert results[0].is_error
    assert "outcome is unknown" in results[0].value
    assert then.value == "4"


def test_a_reconnect_policy_checks_its_values_and_doubles_its_backoff_up_to_8_seconds() -> None:
    policy = ReconnectPolicy(attempts=9, backoff=0.5)
    assert [policy.delay(retry) for retry in range(1, 8)] == [0.5, 1, 2, 4, 8, 8, 8]
    assert ReconnectPolicy() == ReconnectPolicy(attempts=2, backoff=0.5)
    with pytest.raises(ValueError, match="attempts must be an int of 1 or more"):
        ReconnectPolicy(attempts=0)
    with pytest.raises(ValueError, match="backoff must be a number of seconds"):
        ReconnectPolicy(backoff=-1)
    with pytest.raises(TypeError, match="reconnect takes a ReconnectPolicy or None"):
        MCPToolset.http("http://127.0.0.1:1/mcp", reconnect=3)


# --- item 6: a lost connection while listing tools -------------------------------------------


@pytest.mark.parametrize("stream", [False, True], ids=["call", "stream"])
async def test_a_connection_lost_while_listing_is_a_typed_error_and_the_next_run_recovers(
    http_fixture: HttpServer, stream: bool
) -> None:
    toolset = MCPToolset.http(
        http_fixture.url, name="web", reconnect=QUICK, client_options={"mode": "legacy"}
    )
    agent = Agent(ScriptedChatClient([answer_turn("back")]), tools=[toolset])
    async with agent:
        http_fixture.stop()
        toolset.invalidate_tools()  # the run must list the tools again
        with pytest.raises(ToolServerError, match=r"'web' \(streamable HTTP\)"):
            await run_agent(agent, "hi", stream=stream)

        http_fixture.start()
        outcome = await run_agent(agent, "hi", stream=stream)

    assert outcome.response.text == "back"


# --- item 7: an HTTP server that restarted forgets the session -------------------------------


@pytest.mark.parametrize("script", ["fixture_server.py", "session_server.py"], ids=["404", "400"])
async def test_a_restarted_http_server_gets_a_new_session_and_the_call_runs(script: str) -> None:
    server = HttpServer(str(HERE / script), *(["http"] if script == "fixture_server.py" else []))
    server.start()
    toolset = MCPToolset.http(server.url, name="web", client_options={"mode": "legacy"})
    try:
        async with toolset:
            await toolset.get_tools()
            assert (await toolset.call_tool("count", {})).value == "1"
            server.stop()
            server.start()  # same port, new process: the old session id is unknown there

            counted = await toolset.call_tool("count", {})
            again = await toolset.call_tool("count", {})
    finally:
        server.stop()

    assert (counted.value, counted.is_error) == ("1", False)  # `count` is not read-only:
    assert again.value == "2"  # it ran once, on the new session, although not safe to repeat
