"""MCP both ways: serve agentcore tools as an MCP server, then use that server's tools
from an agent through ``MCPToolset``.

Run it as it is: it starts itself as a local MCP server over stdio (``python
examples/mcp_tools.py serve``), connects to it, and lets a scripted model call the
server's tools, one of them only after approval. Everything stays on this machine.
"""

from __future__ import annotations

import sys

import anyio
from agentcore_mcp import MCPToolset, serve_stdio, to_mcp_server

from agentcore import Agent, ChatResponse, FunctionCallContent, Message, tool
from agentcore.testing import ScriptedChatClient

NOTES = {"groceries": "eggs, rice, lemons"}


@tool(read_only=True)
def read_note(title: str) -> str:
    """Read a note by its title."""
    return NOTES.get(title, f"no note named {title!r}")


@tool(destructive=True)
def delete_note(title: str) -> str:
    """Delete a note."""
    return f"deleted {title!r}" if NOTES.pop(title, None) else f"no note named {title!r}"


def calling(call_id: str, name: str, arguments: str) -> ChatResponse[None]:
    """A model turn calling one tool (what a real model would decide)."""
    content = FunctionCallContent(call_id, name, arguments)
    return ChatResponse(messages=[Message("assistant", [content])], finish_reason="tool_calls")


async def main() -> None:
    notes = MCPToolset.stdio(
        sys.executable,
        [__file__, "serve"],
        name="notes",
        tool_prefix="notes",
        approval_mode={"delete_note": "always_require"},  # the server's own tool names
    )
    model = ScriptedChatClient(
        [
            calling("call_1", "notes_read_note", '{"title": "groceries"}'),
            calling("call_2", "notes_delete_note", '{"title": "groceries"}'),
            "Deleted the groceries note (it said: eggs, rice, lemons).",
        ]
    )
    agent = Agent(model, "You manage the user's notes.", tools=[notes])
    session = agent.create_session()

    async with agent:  # starts the server process; leaving the block ends it
        print("tools:", [t.name for t in await notes.get_tools()])
        response = await agent.run("Read my groceries note, then delete it.", session=session)
        for request in response.approval_requests:
            call = request.function_call
            print(f"approve {call.name}({call.arguments})? yes")
            response = await agent.run([request.create_response(True)], session=session)
        print("answer:", response.text)


if __name__ == "__main__":
    if sys.argv[1:] == ["serve"]:
        anyio.run(serve_stdio, to_mcp_server(read_note, delete_note, name="notes"))
    else:
        anyio.run(main)
