"""An agent wrapped as a function tool of another agent."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from agentcore.tools import FunctionTool, ToolContext

if TYPE_CHECKING:
    from agentcore.protocols import SupportsAgentRun

__all__ = ["agent_as_tool"]


def agent_as_tool(
    agent: SupportsAgentRun, *, name: str | None = None, description: str | None = None
) -> FunctionTool[..., Any]:
    """A tool that runs ``agent`` on a task and returns its answer's text."""
    tool_name = name or agent.name
    if not tool_name:
        raise ValueError("as_tool() needs a name: give the agent a name or pass name=...")

    async def run_agent(
        task: Annotated[str, "What the agent should do, in plain language."],
        context: ToolContext,
    ) -> str:
        response = await agent.run(task)
        if response.usage is not None:
            context.run.add_usage(response.usage)
        return response.text

    return FunctionTool(
        run_agent,
        name=tool_name,
        description=description or agent.description or f"Ask the {tool_name} agent to do a task.",
    )
