# pyright: reportUnnecessaryTypeIgnoreComment=true
"""Static conformance of tools and tool providers (mypy and basedpyright, strict).

A line that must be rejected carries ``# type: ignore[...]``, which both checkers
report as unused if the rejection ever stops (see ``test_protocol_conformance``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agentcore import AgentContext, FunctionTool, SupportsToolCall, ToolProvider, tool
from agentcore.protocols import ToolDeclaration


@tool
def lookup(key: str) -> str:
    """Look a key up."""
    return key


class Provider:
    async def get_tools(self, context: AgentContext) -> Sequence[SupportsToolCall]:
        return [lookup]


class NotAProvider:
    async def get_tools(self) -> list[int]:
        return []


_function_tool: SupportsToolCall = lookup
_generic_function_tool: SupportsToolCall = FunctionTool[..., Any](lookup.func)
_provider: ToolProvider = Provider()


def declared(tool: SupportsToolCall) -> ToolDeclaration:
    return tool  # checked: every executable tool is also a declaration adapters can send


_not_a_tool: SupportsToolCall = Provider()  # type: ignore[assignment]
_not_a_provider: ToolProvider = NotAProvider()  # type: ignore[assignment]


def test_the_runtime_checks_agree_with_the_static_ones() -> None:
    assert isinstance(lookup, SupportsToolCall)
    assert isinstance(declared(lookup), ToolDeclaration)
    assert isinstance(Provider(), ToolProvider)
    assert not isinstance(Provider(), SupportsToolCall)
