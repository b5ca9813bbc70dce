"""Names, prefixes, progress, task-only tools, message handlers and content annotations
(issue 27, MCP items 4 and 8), against the fixture server over stdio."""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any

import pytest
from agentcore_mcp import MCPToolset

from agentcore import Agent, CustomEvent, FunctionResultContent
from agentcore.testing import ScriptedChatClient
from tests.agent._runs import answer_turn, call_turn, run_agent
from tests.test_layers import import_cycles, import_edges, kernel_modules

from .conftest import FIXTURE, SDK_SSE_GENERATOR_WARNING

pytestmark = [SDK_SSE_GENERATOR_WARNING]

ROOT = Path(__file__).parents[2]


def fixture_stdio(**options: Any) -> MCPToolset:
    return MCPToolset.stdio(sys.executable, [FIXTURE, "stdio"], name="fixture", **options)


# --- item 4: tool prefixes and the package's imports -------------------------------------


@pytest.mark.parametrize("prefix", ["my.tools", "fs tools", "", "x" * 64, "ü"])
def test_a_prefix_that_cannot_make_valid_tool_names_is_refused_with_the_rule(prefix: str) -> None:
    with pytest.raises(ValueError, match=r"\^\[a-zA-Z0-9_-\]\{1,64\}\$") as caught:
        MCPToolset.http("http://127.0.0.1:1/mcp", tool_prefix=prefix)

    assert f"tool_prefix {prefix!r} is not valid" in str(caught.value)
    assert "for example tool_prefix=" in str(caught.value)


def test_a_valid_prefix_is_kept_as_given() -> None:
    assert MCPToolset.http("http://127.0.0.1:1/mcp", tool_prefix="fs-2_x").tool_prefix == "fs-2_x"


def test_the_mcp_package_has_no_import_cycle() -> None:
    modules = kernel_modules(ROOT / "integrations" / "agentcore_mcp")
    assert "agentcore_mcp._tool" in modules
    assert not import_cycles(import_edges(modules))


# --- item 8: default names of stdio servers ------------------------------------------------


@pytest.mark.parametrize(
    ("command", "args", "name"),
    [
        ("npx", ["-y", "@modelcontextprotocol/server-everything"], "server-everything"),
        ("npx", ["--yes", "@modelcontextprotocol/server-memory@2026.1.1"], "server-memory"),
        ("/usr/bin/npx", ["-y", "mcp-remote", "https://example.com"], "mcp-remote"),
        ("uvx", ["mcp-server-time", "--local-timezone", "UTC"], "mcp-server-time"),
        ("uvx", ["--from", "git-tools==1.0", "mcp-server-git"], "mcp-server-git"),
        ("python", ["-m", "mcp_server_fetch"], "mcp_server_fetch"),
        ("/usr/bin/python3.12", ["-u", "servers/weather.py"], "weather"),
        (sys.executable, [FIXTURE, "stdio"], "fixture_server"),
        ("node", ["/srv/files-server/dist/index.js", "/data"], "files-server"),
        ("node", ["build/notes.js"], "notes"),
        ("mcp-server-time", ["--local-timezone", "UTC"], "mcp-server-time"),
        ("npx", [], "npx"),
    ],
)
def test_a_stdio_toolset_is_named_after_its_package_or_script_not_the_launcher(
    command: str, args: list[str], name: str
) -> None:
    assert MCPToolset.stdio(command, args).name == name


def test_a_given_name_wins() -> None:
    assert MCPToolset.stdio("npx", ["-y", "server-x"], name="mine").name == "mine"


# --- item 8: tools that need MCP tasks -----------------------------------------------------


@pytest.mark.anyio
async def test_a_tool_that_runs_only_as_an_mcp_task_is_left_out_with_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="agentcore_mcp")
    async with fixture_stdio(client_options={"mode": "legacy"}) as toolset:
        listed = {info.name: info for info in await toolset.list_tools()}
        offered = [tool.name for tool in await toolset.get_tools()]

    assert listed["background"].task_support == "required"
    assert listed["add"].task_support == "forbidden"
    assert "background" not in offered
    assert "add" in offered
    (record,) = [r for r in caplog.records if "background" in r.getMessage()]
    assert "runs only as an MCP task" in record.getMessage()


# --- item 8: progress ---------------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize("stream", [False, True], ids=["call", "stream"])
async def test_progress_reaches_the_caller_and_keeps_a_long_call_within_its_timeout(
    stream: bool,
) -> None:
    client = ScriptedChatClient(
        [call_turn("steps", '{"count": 3, "delay": 0.4}'), answer_turn("done")]
    )
    toolset = fixture_stdio(timeout=0.7)  # the call takes 1.2 s: only progress keeps it going
    agent = Agent(client, tools=[toolset])
    async with agent:
        outcome = await run_agent(agent, "go", stream=stream)

    response = outcome.response
    (result,) = [
        c for m in response.messages for c in m.contents if isinstance(c, FunctionResultContent)
    ]
    assert (result.result, result.error) == ("done", None)
    progress = [event for event in response.events if event.name == "tool_progress"]
    assert progress == [
        CustomEvent(
            "tool_progress",
            {"progress": float(step), "total": 3.0, "message": f"step {step}"},
            source="steps",
        )
        for step in (1, 2, 3)
    ]


@pytest.mark.anyio
async def test_a_call_without_progress_still_times_out() -> None:
    async with fixture_stdio(timeout=0.5) as toolset:
        overran = r"'slow' of 'fixture' did not answer within 0.5 seconds \(nor report progress\)"
        with pytest.raises(TimeoutError, match=overran):
            await toolset.call_tool("slow", {"seconds": 3})
        after = await toolset.call_tool("add", {"a": 1, "b": 1})

    assert after.value == "2"


# --- item 8: a message handler of your own ---------------------------------------------------


@pytest.mark.anyio
async def test_your_message_handler_gets_messages_and_list_changes_still_reach_the_toolset() -> (
    None
):
    import anyio

    seen: list[str] = []

    async def mine(message: Any) -> None:
        seen.append(str(getattr(message, "method", type(message).__name__)))

    toolset = fixture_stdio(client_options={"mode": "legacy", "message_handler": mine})
    after: list[str] = []
    async with toolset:
        await toolset.get_tools()
        await toolset.call_tool("grow", {})
        with anyio.fail_after(10):
            while "late" not in after:  # the notification comes on its own
                await anyio.sleep(0.05)
                after = [tool.name for tool in await toolset.get_tools()]

    assert "notifications/tools/list_changed" in seen


# --- item 8: content annotations --------------------------------------------------------------


@pytest.mark.anyio
async def test_content_annotations_are_kept_in_the_results_meta() -> None:
    async with fixture_stdio() as toolset:
        noted = await toolset.call_tool("noted", {})
        plain = await toolset.call_tool("add", {"a": 1, "b": 1})

    assert noted.value == "for the user"
    assert noted.meta is not None
    assert noted.meta["agentcore_mcp/content_annotations"] == [
        {"audience": ["user"], "priority": 0.9}
    ]
    assert "agentcore_mcp/content_annotations" not in (plain.meta or {})
