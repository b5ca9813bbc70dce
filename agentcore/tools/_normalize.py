"""Turning what users pass as ``tools=`` into what adapters and the loop expect."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, cast

from agentcore._types.options import ToolLike
from agentcore.tools._function_tool import FunctionTool
from agentcore.tools._protocols import SupportsToolCall, is_tool_shaped
from agentcore.tools._types import is_mapping

if TYPE_CHECKING:
    from agentcore._types.hosted_tools import HostedTool

__all__ = ["is_tool_provider", "normalize_tools", "split_tool_providers"]


def normalize_tools(
    tools: Iterable[
        FunctionTool[..., Any]
        | SupportsToolCall
        | Callable[..., Any]
        | HostedTool
        | Mapping[str, Any]
    ],
) -> list[ToolLike]:
    """Wrap plain callables in :class:`FunctionTool`; pass tools (anything with a
    tool's shape), hosted tools and raw provider dicts through, in order.

    Anything else raises ``TypeError`` naming it; so does a tool provider, which
    only an agent can ask for its tools. A plain callable that cannot be a tool
    raises the ``FunctionTool`` construction error.
    """
    normalized: list[ToolLike] = []
    for item in tools:
        if isinstance(item, FunctionTool):
            normalized.append(cast("FunctionTool[..., Any]", item))
        elif is_mapping(item) or _is_hosted_tool(item) or is_tool_shaped(item):
            normalized.append(cast("ToolLike", item))
        elif is_tool_provider(item):
            raise TypeError(
                f"{item!r} is a tool provider: pass it to Agent(tools=...) or "
                f"agent.run(tools=...), which ask it for its tools when a run starts, or "
                f"pass the tools from `await provider.get_tools()` here"
            )
        elif callable(item) and not isinstance(item, type):
            normalized.append(FunctionTool(item))
        else:
            raise TypeError(
                f"cannot use {item!r} ({type(item).__name__}) as a tool; pass a function, a "
                f"FunctionTool (or anything with a tool's shape: agentcore.SupportsToolCall), "
                f"a tool provider, a hosted tool (WebSearchTool, MCPTool, ...) or a raw "
                f"provider tool dict"
            )
    return normalized


def is_tool_provider(item: object) -> bool:
    """Whether ``item`` hands out tools per run (``get_tools``) rather than being one."""
    return callable(getattr(item, "get_tools", None)) and not is_tool_shaped(item)


def split_tool_providers(items: Iterable[Any]) -> tuple[list[Any], list[Any]]:
    """``items`` as (everything else, tool providers), each in order.

    One tool given where a list of tools belongs raises ``TypeError`` saying to wrap
    it in a list (iterating it would fail with a message about the tool instead).
    """
    if (
        callable(items)
        or isinstance(items, (str, bytes))
        or is_mapping(items)
        or not isinstance(items, Iterable)
    ):
        name = getattr(items, "name", None) or getattr(items, "__name__", None)
        hint = f": tools=[{name}]" if isinstance(name, str) else ""
        raise TypeError(
            f"tools takes a list of tools, got {type(items).__name__} {items!r}; wrap it in "
            f"a list{hint}"
        )
    tools: list[Any] = []
    providers: list[Any] = []
    for item in items:
        (providers if is_tool_provider(item) else tools).append(item)
    return tools, providers


def _is_hosted_tool(item: object) -> bool:
    # Imported here: runs that use no hosted tool never load their classes.
    from agentcore._types.hosted_tools import HOSTED_TOOL_TYPES

    return isinstance(item, HOSTED_TOOL_TYPES)
