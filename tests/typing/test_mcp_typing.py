"""Static conformance of the MCP toolset and its tools (mypy and basedpyright, strict)."""

from __future__ import annotations

from agentcore_mcp import MCPFunctionTool, MCPToolInfo, MCPToolset

from agentcore import SupportsToolCall, ToolProvider


def as_tool(tool: MCPFunctionTool) -> SupportsToolCall:
    return tool  # checked: an MCPFunctionTool is statically a SupportsToolCall


_provider: ToolProvider = MCPToolset("http://127.0.0.1:1/mcp")


def test_an_mcp_tool_has_a_tools_shape_at_run_time() -> None:
    toolset = MCPToolset("http://127.0.0.1:1/mcp", name="t")
    info = MCPToolInfo("t", "add", None, "Adds.", {"type": "object"})
    tool = MCPFunctionTool(toolset, info, name="add", approval_mode="never_require", timeout=1.0)

    assert isinstance(as_tool(tool), SupportsToolCall)
    assert tool.declaration() == {
        "name": "add",
        "description": "Adds.",
        "parameters": {"type": "object"},
    }
