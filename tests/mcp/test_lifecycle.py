"""Connections under structured concurrency: one owner task, clean exits on asyncio
and trio, no orphaned server processes, reconnects after a crash (stdio fixture)."""

from __future__ import annotations

import sys
from typing import Any

import anyio
import pytest
from agentcore_mcp import MCPToolset

from agentcore import Agent, FunctionResultContent
from agentcore.errors import ToolServerError
from agentcore.testing import ScriptedChatClient
from tests.agent._runs import answer_turn, call_turn

from .conftest import FIXTURE, SDK_SSE_GENERATOR_WARNING, pid_alive

pytestmark = [pytest.mark.anyio, SDK_SSE_GENERATOR_WARNING]


def fixture_stdio(**options: Any) -> MCPToolset:
    return MCPToolset.stdio(sys.executable, [FIXTURE, "stdio"], name="fixture", **options)


async def server_pid(toolset: MCPToolset) -> int:
    return int((await toolset.call_tool("pid", {})).value)


def results(response: Any) -> list[FunctionResultContent]:
    return [
        c for m in response.messages for c in m.contents if isinstance(c, FunctionResultContent)
    ]


async def test_calls_from_many_tasks_share_one_connection_and_exit_cleanly() -> None:
    toolset = fixture_stdio()
    sums: list[str] = []

    async def add(i: int) -> None:
        sums.append(str((await toolset.call_tool("add", {"a": i, "b": 10})).value))

    async with toolset:
        pid = await server_pid(toolset)
        async with anyio.create_task_group() as group:
            for i in range(5):
                group.start_soon(add, i)
        assert pid_alive(pid)

    assert sorted(sums, key=int) == ["10", "11", "12", "13", "14"]
    assert not pid_alive(pid)
    assert not toolset.connected


async def test_async_with_agent_starts_and_ends_the_server_process() -> None:
    toolset = fixture_stdio()
    agent = Agent(ScriptedChatClient([answer_turn("hi")]), tools=[toolset])

    async with agent:
        pid = await server_pid(toolset)
        await agent.run("hi")

    assert not pid_alive(pid)


async def test_an_error_in_the_block_propagates_as_itself_and_ends_the_server() -> None:
    toolset = fixture_stdio()
    pids: list[int] = []

    async def fail_inside() -> None:
        async with toolset:
            pids.append(await server_pid(toolset))
            raise KeyError("mine")

    with pytest.raises(KeyError, match="mine"):
        await fail_inside()

    assert pids
    assert not pid_alive(pids[0])


async def test_a_server_that_dies_mid_run_is_an_error_result_and_the_next_run_reconnects() -> None:
    client = ScriptedChatClient(
        [
            call_turn("crash", "{}"),
            answer_turn("it crashed"),
            call_turn("pid", "{}", "call_2"),
            answer_turn("back"),
        ]
    )
    toolset = fixture_stdio()
    agent = Agent(client, tools=[toolset])

    async with agent:
        first_pid = await server_pid(toolset)
        crashed = await agent.run("crash it")
        (lost,) = results(crashed)
        assert lost.error == "tool error"
        assert "connection to the MCP server 'fixture' was lost" in lost.result

        again = await agent.run("who are you")
        (pid_result,) = results(again)
        assert pid_result.error is None
        second_pid = int(pid_result.result)

    assert second_pid != first_pid
    assert not pid_alive(first_pid)
    assert not pid_alive(second_pid)


async def test_a_cancelled_call_leaves_the_connection_usable() -> None:
    async with fixture_stdio() as toolset:
        with anyio.move_on_after(0.2):
            await toolset.call_tool("slow", {"seconds": 5})
        result = await toolset.call_tool("add", {"a": 1, "b": 2})

    assert result.value == "3"


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_changed_tool_list_reaches_the_next_run(mode: str) -> None:
    toolset = fixture_stdio(client_options={"mode": mode})

    after: list[str] = []
    async with toolset:
        before = [tool.name for tool in await toolset.get_tools()]
        await toolset.call_tool("grow", {})
        for _ in range(50):  # the notification arrives on its own schedule
            after = [tool.name for tool in await toolset.get_tools()]
            if "late" in after:
                break
            await anyio.sleep(0.05)

    assert "late" not in before
    assert "late" in after


async def test_an_http_server_that_goes_away_and_comes_back() -> None:
    from .conftest import free_port, start_http, stop

    port = free_port()
    command = [sys.executable, FIXTURE, "http", str(port)]
    process = start_http(command, port)
    toolset = MCPToolset.http(f"http://127.0.0.1:{port}/mcp", name="web")
    try:
        async with toolset:
            assert (await toolset.call_tool("add", {"a": 1, "b": 1})).value == "2"
            stop(process)

            down = await toolset.call_tool("add", {"a": 1, "b": 1})
            assert down.is_error
            assert "'web'" in str(down.value)
            with pytest.raises(ToolServerError, match=r"'web' \(streamable HTTP\) cannot"):
                await toolset.get_tools()  # the next run starts here, and learns it at once

            process = start_http(command, port)
            back = await toolset.call_tool("add", {"a": 2, "b": 2})
            assert back.value == "4"
    finally:
        stop(process)
