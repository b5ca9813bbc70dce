"""MCP servers as tools of an agent, and agents served over MCP.

Needs the ``mcp`` extra: ``pip install 'agentcore-framework[mcp]'``.

- :class:`MCPToolset` connects to one MCP server (stdio, streamable HTTP) and hands
  its tools to each agent run; :class:`MCPFunctionTool` is one of those tools,
  :class:`ReconnectPolicy` says how a lost connection is made again, and
  :class:`ServerInstructions` is the opt-in that passes a server's instructions on.
- :func:`to_mcp_server` serves agents and tools as an MCP server, run by
  :func:`serve_stdio` or mounted as :func:`streamable_http_app`.
"""

import importlib.util

if importlib.util.find_spec("mcp") is None:
    raise ImportError("agentcore_mcp needs the MCP SDK: pip install 'agentcore-framework[mcp]'")

from agentcore_mcp._connection import ReconnectPolicy
from agentcore_mcp._results import ResultMode, to_contents, to_tool_result
from agentcore_mcp._serve import serve_http, serve_stdio, streamable_http_app, to_mcp_server
from agentcore_mcp._tool import MCPToolInfo
from agentcore_mcp._toolset import ApprovalSpec, MCPFunctionTool, MCPToolset, ServerInstructions

__all__ = [
    "ApprovalSpec",
    "MCPFunctionTool",
    "MCPToolInfo",
    "MCPToolset",
    "ReconnectPolicy",
    "ResultMode",
    "ServerInstructions",
    "serve_http",
    "serve_stdio",
    "streamable_http_app",
    "to_contents",
    "to_mcp_server",
    "to_tool_result",
]
