"""Served agents that ask: ``janitor`` needs approval to delete, ``banker`` asks for a
code before a transfer; their tools ``delete`` and ``transfer`` are served on their own
too. ``deleted`` and ``sent`` say what this server process did, so
a test over stdio or HTTP can see whether a call ran, and how often.

``python asking_agents.py stdio`` or ``python asking_agents.py http PORT``.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import Any

import anyio
from agentcore_mcp import serve_http, serve_stdio, to_mcp_server
from mcp.server.lowlevel import Server

from agentcore import (
    Agent,
    ChatResponse,
    FunctionCallContent,
    FunctionResultContent,
    Message,
    ToolContext,
    tool,
)
from agentcore.testing import FunctionChatClient


def _model(name: str, arguments: Mapping[str, Any]) -> Any:
    """A model that calls ``name`` with ``arguments`` for a task, then reports the
    tool's result (or its error) as its answer."""

    def respond(messages: Sequence[Message], _options: Mapping[str, Any]) -> Any:
        last = messages[-1]
        if last.role == "tool":
            results = [c for c in last.contents if isinstance(c, FunctionResultContent)]
            return "; ".join(str(r.result if r.error is None else r.error) for r in results)
        call = FunctionCallContent(f"call_{len(messages)}", name, dict(arguments))
        return ChatResponse(messages=[Message("assistant", [call])])

    return FunctionChatClient(respond)


def build() -> Server[Any]:
    """The server, with its own record of what its tools did."""
    removed: list[str] = []
    transfers: list[str] = []

    @tool(approval_mode="always_require")
    def delete(path: str) -> str:
        """Delete a path."""
        removed.append(path)
        return f"deleted {path}"

    @tool
    def transfer(amount: int, ctx: ToolContext) -> str:
        """Transfer money once the user gave the code."""
        code = ctx.ask(f"Code for the transfer of {amount} euros?")
        transfers.append(f"{amount} with {code}")
        return f"sent {amount} euros with code {code}"

    @tool(read_only=True)
    def deleted() -> list[str]:
        """The paths this server deleted."""
        return list(removed)

    @tool(read_only=True)
    def sent() -> list[str]:
        """The transfers this server made."""
        return list(transfers)

    janitor = Agent(
        _model("delete", {"path": "/tmp/old"}),
        name="janitor",
        description="Cleans up files.",
        tools=[delete],
    )
    banker = Agent(
        _model("transfer", {"amount": 5}),
        name="banker",
        description="Moves money.",
        tools=[transfer],
    )
    return to_mcp_server(janitor, banker, delete, transfer, deleted, sent, name="asking")


if __name__ == "__main__":
    server = build()
    if sys.argv[1] == "stdio":
        anyio.run(serve_stdio, server)
    else:
        port = int(sys.argv[2])
        anyio.run(lambda: serve_http(server, port=port))
