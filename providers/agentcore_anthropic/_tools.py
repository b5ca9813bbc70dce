"""The run's tools and ``tool_choice`` as the Messages API wants them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

import attrs

from agentcore import (
    CodeInterpreterTool,
    FileSearchTool,
    ImageGenerationTool,
    MCPTool,
    ShellTool,
    WebSearchTool,
)
from agentcore.protocols import ToolDeclaration
from agentcore_anthropic._options import (
    CODE_EXECUTION_TOOL_TYPE,
    MCP_CONNECTOR_BETA,
    WEB_SEARCH_TOOL_TYPE,
)
from agentcore_anthropic._response import obj

__all__ = ["ToolDeclarations", "convert_tool_choice", "convert_tools"]

_ADAPTER = "AnthropicChatClient"


@attrs.frozen
class ToolDeclarations:
    """What the run's tools become on the wire."""

    tools: list[dict[str, Any]] = attrs.field(factory=list)
    mcp_servers: list[dict[str, Any]] = attrs.field(factory=list)
    betas: list[str] = attrs.field(factory=list)


def convert_tools(tools: Sequence[Any]) -> ToolDeclarations:
    """Function tools, hosted tools and raw dicts -> ``tools``, ``mcp_servers``, betas."""
    declared = ToolDeclarations()
    for tool in tools:
        if isinstance(tool, Mapping):
            declared.tools.append(dict(cast("Mapping[str, Any]", tool)))
        elif isinstance(tool, WebSearchTool):
            declared.tools.append(_server_tool("web_search", WEB_SEARCH_TOOL_TYPE, tool.options))
        elif isinstance(tool, CodeInterpreterTool):
            declared.tools.append(
                _server_tool("code_execution", CODE_EXECUTION_TOOL_TYPE, tool.options)
            )
        elif isinstance(tool, MCPTool):
            server, toolset = _mcp(tool)
            declared.mcp_servers.append(server)
            declared.tools.append(toolset)
            if MCP_CONNECTOR_BETA not in declared.betas:
                declared.betas.append(MCP_CONNECTOR_BETA)
        elif isinstance(tool, (FileSearchTool, ImageGenerationTool, ShellTool)):
            raise ValueError(
                f"{_ADAPTER} cannot send a {type(tool).__name__}: the Anthropic Messages API "
                "has no such hosted tool"
            )
        else:
            declared.tools.append(_function_tool(tool))
    return declared


def _server_tool(name: str, default_type: str, options: Mapping[str, Any]) -> dict[str, Any]:
    return {"type": default_type, **options, "name": name}


def _function_tool(tool: object) -> dict[str, Any]:
    if not isinstance(tool, ToolDeclaration) or not tool.name:
        raise ValueError(
            f"{_ADAPTER} cannot send tool {tool!r}: a tool must be a FunctionTool (with .name, "
            ".description, .parameters), a hosted tool from get_*_tool(), or a raw tool dict"
        )
    parameters: object = tool.parameters
    schema = dict(obj(parameters)) if isinstance(parameters, Mapping) else {"type": "object"}
    declared: dict[str, Any] = {"name": tool.name, "input_schema": schema}
    description = tool.description
    if isinstance(description, str) and description:
        declared["description"] = description
    return declared


def _mcp(tool: MCPTool) -> tuple[dict[str, Any], dict[str, Any]]:
    if tool.approval_mode == "always_require":
        raise ValueError(
            f"{_ADAPTER} cannot honour approval_mode='always_require' for MCP server "
            f"{tool.name!r}: Anthropic's MCP connector runs the server's tools without asking; "
            "use approval_mode='never_require' or call the server through a local MCP client"
        )
    options = dict(tool.options)
    token = options.pop("authorization_token", None)
    for key, value in (tool.headers or {}).items():
        if key.lower() == "authorization" and value.lower().startswith("bearer "):
            token = token or value[len("bearer ") :]
        else:
            raise ValueError(
                f"{_ADAPTER} cannot send header {key!r} to MCP server {tool.name!r}: Anthropic's "
                "MCP connector only passes an authorization token (authorization_token=...)"
            )
    server: dict[str, Any] = {"type": "url", "url": tool.url, "name": tool.name}
    if token:
        server["authorization_token"] = token
    toolset: dict[str, Any] = {"type": "mcp_toolset", "mcp_server_name": tool.name}
    if tool.allowed_tools is not None:
        toolset["default_config"] = {"enabled": False}
        toolset["configs"] = {name: {"enabled": True} for name in tool.allowed_tools}
    toolset.update(options)
    return server, toolset


def convert_tool_choice(choice: Any, parallel_tool_calls: bool | None) -> dict[str, Any] | None:
    """agentcore's ``tool_choice`` (and ``parallel_tool_calls``) -> Anthropic's ``tool_choice``."""
    wire: dict[str, Any]
    if choice is None:
        if parallel_tool_calls is not False:
            return None
        wire = {"type": "auto"}
    elif choice == "auto":
        wire = {"type": "auto"}
    elif choice == "none":
        return {"type": "none"}
    elif choice == "required":
        wire = {"type": "any"}
    elif isinstance(choice, Mapping) and obj(choice).get("mode") == "required":
        name: Any = obj(choice).get("required_function_name")
        wire = {"type": "tool", "name": name} if name else {"type": "any"}
    else:
        raise ValueError(
            f"tool_choice must be 'auto', 'none', 'required' or {{'mode': 'required', "
            f"'required_function_name': name}}, got {choice!r}"
        )
    if parallel_tool_calls is False:
        wire["disable_parallel_tool_use"] = True
    return wire
