"""The agent of the interrupt/resume tests: shared by the tests and the resume process."""

from __future__ import annotations

from typing import Any

from agentcore import Agent, HistoryStore, SupportsGetResponse, ToolContext, tool


@tool
def open_ticket(context: ToolContext) -> str:
    """Open a change ticket; later tools of the run file their work under it."""
    context.locals["ticket"] = "T-42"
    return "ticket opened"


@tool(approval_mode="always_require")
def delete_file(path: str, context: ToolContext) -> str:
    """Delete a file (a person must approve)."""
    return f"deleted {path} under {context.locals['ticket']}"


def make_agent(client: SupportsGetResponse[Any], history: HistoryStore) -> Agent:
    """The same agent on both sides of the pause."""
    return Agent(client, "Tidy up files.", tools=[open_ticket, delete_file], history=history)
