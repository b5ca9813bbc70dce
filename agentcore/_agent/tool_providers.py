"""Tool providers: what hands each agent run its tools (an MCP toolset, say)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias, Union, runtime_checkable

from agentcore.tools import SupportsToolCall

if TYPE_CHECKING:
    from agentcore._types.hosted_tools import HostedTool
    from agentcore.middleware._contexts import AgentContext

__all__ = ["AgentTool", "ToolProvider"]


@runtime_checkable
class ToolProvider(Protocol):
    """Hands a run its tools: an agent asks once when each run starts.

    One answer per run keeps the run's tool list consistent (a change takes effect
    at the next run). A provider that holds a connection is also an async context
    manager; ``async with agent:`` enters and leaves it.
    """

    async def get_tools(self, context: AgentContext) -> Sequence[SupportsToolCall]: ...


AgentTool: TypeAlias = Union[
    SupportsToolCall, ToolProvider, "HostedTool", Mapping[str, Any], Callable[..., Any]
]
"""What an agent's ``tools=`` list may hold: a tool (a ``FunctionTool`` or anything with a
tool's shape), a tool provider, a hosted tool, a raw provider tool dict, or a plain
function (made a ``FunctionTool``)."""
