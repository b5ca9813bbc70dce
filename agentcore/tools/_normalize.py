"""Turning what users pass as ``tools=`` into what adapters and the loop expect."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, cast

from agentcore._types.options import ToolLike
from agentcore.tools._function_tool import FunctionTool
from agentcore.tools._types import is_mapping

if TYPE_CHECKING:
    from agentcore._types.hosted_tools import HostedTool

__all__ = ["normalize_tools"]


def normalize_tools(
    tools: Iterable[FunctionTool[..., Any] | Callable[..., Any] | HostedTool | Mapping[str, Any]],
) -> list[ToolLike]:
    """Wrap plain callables in :class:`FunctionTool`; pass tools, hosted tools and raw
    provider dicts through, in order.

    Anything else raises ``TypeError`` naming it. A plain callable that cannot be a
    tool raises the ``FunctionTool`` construction error.
    """
    normalized: list[ToolLike] = []
    for item in tools:
        if isinstance(item, FunctionTool):
            normalized.append(cast("FunctionTool[..., Any]", item))
        elif is_mapping(item) or _is_hosted_tool(item):
            normalized.append(cast("ToolLike", item))
        elif callable(item) and not isinstance(item, type):
            normalized.append(FunctionTool(item))
        else:
            raise TypeError(
                f"cannot use {item!r} ({type(item).__name__}) as a tool; pass a function, a "
                f"FunctionTool, a hosted tool (WebSearchTool, MCPTool, ...) or a raw "
                f"provider tool dict"
            )
    return normalized


def _is_hosted_tool(item: object) -> bool:
    # Imported here: runs that use no hosted tool never load their classes.
    from agentcore._types.hosted_tools import HOSTED_TOOL_TYPES

    return isinstance(item, HOSTED_TOOL_TYPES)
