"""MCP servers as tools of an agent, and agents served over MCP.

Needs the ``mcp`` extra: ``pip install 'agentcore-framework[mcp]'``. This package is the
home the MCP work fills; today it only checks that its SDK is installed.
"""

import importlib.util

if importlib.util.find_spec("mcp") is None:
    raise ImportError("agentcore_mcp needs the MCP SDK: pip install 'agentcore-framework[mcp]'")

__all__: list[str] = []
