"""agentcore tools and an agent served over MCP, for the serving tests.

``python served_tools.py stdio`` or ``python served_tools.py http PORT``.
"""

from __future__ import annotations

import sys
from typing import Any

import anyio
from agentcore_mcp import serve_http, serve_stdio, to_mcp_server
from mcp.server.lowlevel import Server

from agentcore import Agent
from agentcore.testing import ScriptedChatClient
from agentcore.tools import tool


@tool(read_only=True, idempotent=True)
def shout(text: str) -> str:
    """Upper-case a text."""
    return text.upper()


def build() -> Server[Any]:
    helper = Agent(
        ScriptedChatClient(["Paris.", "Rome."]),
        name="helper",
        description="Answers geography questions.",
    )
    return to_mcp_server(shout, helper, name="served", instructions="Shout or ask.")


if __name__ == "__main__":
    server = build()
    if sys.argv[1] == "stdio":
        anyio.run(serve_stdio, server)
    else:
        port = int(sys.argv[2])
        anyio.run(lambda: serve_http(server, port=port))
