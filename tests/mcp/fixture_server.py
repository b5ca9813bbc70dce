"""An MCP server for the cases real servers cannot produce: images, resource links
and blobs, errors, slow calls, a tool list that grows, a crash. Built on the ``mcp``
SDK's ``MCPServer``.

Run ``python fixture_server.py stdio`` or ``python fixture_server.py http PORT``
(bound to 127.0.0.1). The ``lists`` tool says how many ``tools/list`` requests the
process answered, so tests can see the client's cache at work.
"""

from __future__ import annotations

import base64
import contextlib
import gzip
import os
import sys
from typing import Any

import anyio
from mcp import types
from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel

PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)

GZIP = gzip.compress(b"compressed", mtime=0)

server = MCPServer("fixture", instructions="Use add for sums.")
_counter = 0


class Weather(BaseModel):
    city: str
    celsius: float


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def weather(city: str) -> Weather:
    """The weather in a city (structured)."""
    return Weather(city=city, celsius=21.5)


@server.tool()
def pixel() -> list[types.TextContent | types.ImageContent]:
    """A one-pixel PNG and a caption."""
    image = base64.b64encode(PIXEL).decode()
    return [
        types.TextContent(type="text", text="a red pixel:"),
        types.ImageContent(type="image", data=image, mime_type="image/png"),
    ]


@server.tool()
def readme() -> list[types.EmbeddedResource]:
    """An embedded text resource."""
    resource = types.TextResourceContents(uri="file:///readme.txt", text="Read me.")
    return [types.EmbeddedResource(type="resource", resource=resource)]


@server.tool()
def links() -> list[types.TextContent | types.ResourceLink]:
    """Resource links no model service can open, as the reference servers send them."""
    return [
        types.TextContent(type="text", text="two resources:"),
        types.ResourceLink(
            type="resource_link",
            uri="demo://resource/static/document/architecture.md",
            name="architecture.md",
            mime_type="text/markdown",
        ),
        types.ResourceLink(type="resource_link", uri="file:///srv/data/notes.txt", name="notes"),
    ]


@server.tool()
def blobs() -> list[types.EmbeddedResource]:
    """Embedded binary resources: plain text and a gzip file."""
    text = types.BlobResourceContents(
        uri="demo://resource/static/notes.txt",
        mime_type="text/plain",
        blob=base64.b64encode(b"Plain notes.").decode(),
    )
    archive = types.BlobResourceContents(
        uri="demo://resource/static/archive.gz",
        mime_type="application/gzip",
        blob=base64.b64encode(GZIP).decode(),
    )
    return [
        types.EmbeddedResource(type="resource", resource=text),
        types.EmbeddedResource(type="resource", resource=archive),
    ]


@server.tool()
def fail(reason: str = "boom") -> str:
    """Always raises."""
    raise ValueError(reason)


@server.tool()
async def slow(seconds: float) -> str:
    """Sleeps, then answers."""
    await anyio.sleep(seconds)
    return "slept"


@server.tool(annotations={"readOnlyHint": False, "destructiveHint": True})  # type: ignore[arg-type]  # the SDK validates the dict into ToolAnnotations
def delete(path: str) -> str:
    """Deletes a path (pretend)."""
    return f"deleted {path}"


@server.tool()
def count() -> int:
    """Counts calls in this server process."""
    global _counter
    _counter += 1
    return _counter


@server.tool()
def pid() -> int:
    """The server's process id."""
    return os.getpid()


@server.tool()
def crash() -> str:
    """Ends the server process at once."""
    os._exit(3)


# -- for reconnects, progress, content annotations and task-only tools ----------------

_started = 0


@server.tool(annotations={"readOnlyHint": True})  # type: ignore[arg-type]  # validated by the SDK
async def peek(seconds: float) -> int:
    """Reads slowly (read-only, safe to repeat), then gives the process id."""
    global _started
    _started += 1
    await anyio.sleep(seconds)
    return os.getpid()


@server.tool()
async def work(seconds: float) -> str:
    """Works slowly, with effects the server does not say are safe to repeat."""
    global _started
    _started += 1
    await anyio.sleep(seconds)
    return "worked"


@server.tool()
def started() -> int:
    """How many peek and work calls this server process has started."""
    return _started


@server.tool()
async def steps(count: int, delay: float, ctx: Context) -> str:
    """Reports progress `count` times, `delay` seconds apart, then answers."""
    for step in range(1, count + 1):
        await anyio.sleep(delay)
        await ctx.report_progress(step, count, f"step {step}")
    return "done"


@server.tool()
def noted() -> list[types.TextContent]:
    """Text with content annotations."""
    notes = types.Annotations(audience=["user"], priority=0.9)
    return [types.TextContent(type="text", text="for the user", annotations=notes)]


@server.tool()
def background() -> str:
    """Listed as runnable only as an MCP task (execution.taskSupport "required")."""
    return "ran"


def _list_background_as_task_only() -> None:
    low = server._lowlevel_server  # pyright: ignore[reportPrivateUsage]
    entry = low.get_request_handler("tools/list")
    assert entry is not None
    listing = entry.handler
    task_only = types.ToolExecution(task_support="required")

    async def marking(ctx: Any, params: Any) -> Any:
        result = await listing(ctx, params)
        assert isinstance(result, types.ListToolsResult)
        for index, tool in enumerate(result.tools):
            if tool.name == "background":
                result.tools[index] = tool.model_copy(update={"execution": task_only})
        return result

    low.add_request_handler("tools/list", entry.params_type, marking)


@server.tool()
async def grow(ctx: Context) -> str:
    """Adds the tool `late` and tells clients of both protocol eras."""

    def late() -> str:
        """Added at run time."""
        return "late"

    server.add_tool(late)
    with contextlib.suppress(Exception):  # a legacy session has no listen bus
        await ctx.notify_tools_changed()
    with contextlib.suppress(Exception):  # a modern session may have no back channel
        await ctx.session.send_tool_list_changed()
    return "grown"


_lists = 0


@server.tool()
def lists() -> int:
    """How many tools/list requests this server process has answered."""
    return _lists


def _count_lists() -> None:
    low = server._lowlevel_server  # pyright: ignore[reportPrivateUsage]
    entry = low.get_request_handler("tools/list")
    assert entry is not None
    listing = entry.handler

    async def counting(ctx: Any, params: Any) -> Any:
        global _lists
        _lists += 1
        return await listing(ctx, params)

    low.add_request_handler("tools/list", entry.params_type, counting)


if __name__ == "__main__":
    _count_lists()
    _list_background_as_task_only()
    if sys.argv[1] == "stdio":
        server.run("stdio")
    else:
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
