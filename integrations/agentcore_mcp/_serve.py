"""Agents and tools served as an MCP server.

:func:`to_mcp_server` builds an ``mcp`` low-level server whose tools are the given
tools (schemas as they are, effect hints as annotations) and agents (each a tool
taking one ``task`` string). Run it over stdio with :func:`serve_stdio`, or over
streamable HTTP with :func:`streamable_http_app` under any ASGI server, or with
:func:`serve_http`, which binds 127.0.0.1 unless told otherwise.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from typing import Any, Literal, cast

from mcp import types
from mcp.server.lowlevel import Server
from starlette.applications import Starlette

from agentcore import (
    DataContent,
    RunContext,
    SupportsAgentRun,
    SupportsToolCall,
    TextContent,
    ToolContext,
    ToolResult,
    UriContent,
)
from agentcore.tools import ToolArgumentsError, UserInputRequired

__all__ = ["serve_http", "serve_stdio", "streamable_http_app", "to_mcp_server"]

_TASK_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "properties": {"task": {"type": "string", "description": "What the agent should do."}},
    "required": ["task"],
}


class _AgentTool:
    """An agent as a tool of the served server: one ``task`` string in, its answer out."""

    parameters = _TASK_SCHEMA
    approval_mode: Literal["always_require", "never_require"] = "never_require"
    return_directly = False
    read_only: bool | None = None
    idempotent: bool | None = None
    destructive: bool | None = None
    open_world: bool | None = None
    max_invocations: int | None = None
    timeout: float | None = None

    def __init__(self, agent: SupportsAgentRun) -> None:
        if not agent.name:
            raise ValueError(
                f"{agent!r} has no name; an agent served over MCP is a tool named after "
                f"it: give it one (Agent(..., name='researcher'))"
            )
        self.agent = agent
        self.name = agent.name
        self.description = agent.description or f"Ask the {agent.name} agent to do a task."

    def declaration(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "parameters": self.parameters}

    def parse_arguments(self, raw: str | bytes | Mapping[str, Any]) -> dict[str, Any]:
        value: object = json.loads(raw) if isinstance(raw, (str, bytes)) else dict(raw)
        task = cast("dict[str, object]", value).get("task") if isinstance(value, dict) else None
        if not isinstance(task, str):
            raise ToolArgumentsError("task: expected a string")
        return {"task": task}

    async def invoke(self, arguments: Mapping[str, Any], *, context: ToolContext) -> Any:
        # A fresh session per call: MCP calls are independent tasks.
        response = await self.agent.run(arguments["task"], session=self.agent.create_session())
        if response.approval_requests or response.user_input_requests:
            return ToolResult(
                f"Error: the {self.name} agent paused to ask for approval or input, which "
                "this MCP server cannot relay; allow the tool it wanted, or run it directly",
                is_error=True,
            )
        return response.text


def to_mcp_server(
    *items: SupportsAgentRun | SupportsToolCall,
    name: str,
    instructions: str | None = None,
    version: str = "",
) -> Server[Any]:
    """An MCP server whose tools are ``items``: tools as they are, agents as tools
    named after them that take a ``task`` string and answer with the agent's text.

    Tool errors go back as ``is_error`` results (an exception's text is not
    sent; a :class:`~agentcore.ToolResult` error's text is). Names must be unique.
    """
    tools: dict[str, SupportsToolCall] = {}
    for item in items:
        tool: SupportsToolCall
        if isinstance(item, SupportsToolCall):  # once per item, when the server is built
            tool = item
        elif isinstance(item, SupportsAgentRun):
            tool = _AgentTool(item)
        else:
            raise TypeError(
                f"cannot serve {item!r} over MCP: pass tools (FunctionTool, @tool "
                f"functions, anything with a tool's shape) or agents"
            )
        if tool.name in tools:
            raise ValueError(f"two tools named {tool.name!r}; MCP tool names must be unique")
        tools[tool.name] = tool

    async def list_tools(
        _ctx: Any, _params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[_listing(tool) for tool in tools.values()])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        tool = tools.get(params.name)
        if tool is None:
            return _error(f"Unknown tool: {params.name}")
        try:
            arguments = tool.parse_arguments(params.arguments or {})
        except ToolArgumentsError as exc:
            return _error(f"Error: invalid arguments for {tool.name}: {exc}")
        call_id = str(getattr(ctx, "request_id", None) or tool.name)
        try:
            result = await tool.invoke(
                arguments, context=ToolContext(call_id, tool.name, RunContext())
            )
        except UserInputRequired as exc:
            return _error(f"Error: {tool.name} needs the user's answer to {exc.prompt!r}")
        except TimeoutError:
            return _error(f"Error: {tool.name} timed out.")
        except Exception:  # like the tool loop: the client learns it failed, not why
            return _error(f"Error: {tool.name} failed.")
        return _call_result(result)

    return Server(
        name,
        version=version,
        instructions=instructions,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def _listing(tool: SupportsToolCall) -> types.Tool:
    hints = types.ToolAnnotations(
        read_only_hint=tool.read_only,
        destructive_hint=tool.destructive,
        idempotent_hint=tool.idempotent,
        open_world_hint=tool.open_world,
    )
    has_hints = any(
        h is not None for h in (tool.read_only, tool.destructive, tool.idempotent, tool.open_world)
    )
    return types.Tool(
        name=tool.name,
        description=tool.description,
        input_schema=dict(tool.parameters),
        annotations=hints if has_hints else None,
    )


def _error(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


def _call_result(result: Any) -> types.CallToolResult:
    is_error = False
    structured: Any = None
    if isinstance(result, ToolResult):
        is_error = result.is_error
        structured = result.structured
        result = result.value
    blocks = _blocks(result)
    if structured is None and isinstance(result, Mapping):
        structured = dict(cast("Mapping[str, Any]", result))
    return types.CallToolResult(
        content=blocks,
        structured_content=structured if isinstance(structured, dict) else None,
        is_error=is_error,
    )


def _blocks(value: Any) -> list[types.ContentBlock]:
    if isinstance(value, (TextContent, DataContent, UriContent)):
        value = (value,)
    if isinstance(value, (list, tuple)) and value:
        items: list[Any] = list(value)  # pyright: ignore[reportUnknownArgumentType]  # checked below
        if all(isinstance(item, (TextContent, DataContent, UriContent)) for item in items):
            return [_block(item) for item in items]
    text = value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
    return [types.TextContent(type="text", text=text)]


def _block(content: TextContent | DataContent | UriContent) -> types.ContentBlock:
    if isinstance(content, TextContent):
        return types.TextContent(type="text", text=content.text)
    if isinstance(content, UriContent):
        name = content.uri.rsplit("/", 1)[-1] or content.uri
        return types.ResourceLink(
            type="resource_link", uri=content.uri, name=name, mime_type=content.media_type
        )
    data = base64.b64encode(content.data).decode("ascii")
    if content.media_type.startswith("image/"):
        return types.ImageContent(type="image", data=data, mime_type=content.media_type)
    if content.media_type.startswith("audio/"):
        return types.AudioContent(type="audio", data=data, mime_type=content.media_type)
    resource = types.BlobResourceContents(
        uri=f"data:{content.media_type}", mime_type=content.media_type, blob=data
    )
    return types.EmbeddedResource(type="resource", resource=resource)


async def serve_stdio(server: Server[Any]) -> None:
    """Serve ``server`` on this process's stdin and stdout until the client leaves."""
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def streamable_http_app(
    server: Server[Any], *, path: str = "/mcp", host: str = "127.0.0.1"
) -> Starlette:
    """An ASGI app serving ``server`` over streamable HTTP at ``path``.

    ``host`` is where you will bind it: for a loopback host the app accepts only
    loopback ``Host`` and ``Origin`` headers (DNS-rebinding protection).
    """
    return server.streamable_http_app(streamable_http_path=path, host=host)


async def serve_http(
    server: Server[Any], *, host: str = "127.0.0.1", port: int = 8000, path: str = "/mcp"
) -> None:
    """Serve ``server`` over streamable HTTP with uvicorn (asyncio only).

    Binds 127.0.0.1 by default: pass ``host="0.0.0.0"`` only behind authentication.
    """
    import uvicorn

    app = streamable_http_app(server, path=path, host=host)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning")
    await uvicorn.Server(config).serve()
