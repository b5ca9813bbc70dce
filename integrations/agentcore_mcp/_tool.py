"""One tool an MCP server lists, as a tool of an agent (:class:`MCPFunctionTool`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

import attrs

from agentcore import ToolContext, ToolResult
from agentcore.tools import ApprovalMode, ToolArgumentsError, read_arguments

if TYPE_CHECKING:
    from agentcore_mcp._toolset import MCPToolset

__all__ = ["MCPFunctionTool", "MCPToolInfo", "tool_name"]

_VALID_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_INVALID_CHARS = re.compile(r"[^a-zA-Z0-9_-]")


def _frozen(value: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return {} if value is None else dict(value)


@attrs.frozen
class MCPToolInfo:
    """What the server listed for one tool (read-only; annotations are untrusted hints)."""

    server: str
    """The toolset's name."""
    name: str
    """The server's (unprefixed) name of the tool."""
    title: str | None
    description: str
    input_schema: Mapping[str, Any] = attrs.field(converter=_frozen)
    """Passed to the model as it is."""
    output_schema: Mapping[str, Any] | None = None
    annotations: Mapping[str, Any] = attrs.field(default=None, converter=_frozen)
    """``readOnlyHint``, ``destructiveHint``, ``idempotentHint``, ``openWorldHint``."""


def tool_name(remote: str, prefix: str | None) -> str:
    """The name the model calls a remote tool by: ``prefix_remote``, with characters
    providers reject replaced by ``_`` and cut to 64."""
    name = f"{prefix}_{remote}" if prefix else remote
    if _VALID_NAME.match(name):
        return name
    return _INVALID_CHARS.sub("_", name)[:64] or "_"


class MCPFunctionTool:
    """A tool of an MCP server, callable in an agent's tool loop.

    It satisfies :class:`agentcore.SupportsToolCall`. Arguments are checked against
    the server's input schema before any request; the call goes through the
    toolset's connection, and the result is a :class:`~agentcore.ToolResult`.
    Built by :class:`~agentcore_mcp.MCPToolset`, not by hand.
    """

    return_directly = False
    max_invocations: int | None = None

    def __init__(
        self,
        toolset: MCPToolset,
        info: MCPToolInfo,
        *,
        name: str,
        approval_mode: ApprovalMode,
        timeout: float | None,
    ) -> None:
        self.toolset = toolset
        self.info = info
        self.name = name
        self.description: str = info.description
        self.parameters: Mapping[str, Any] = info.input_schema
        self.approval_mode: Literal["always_require", "never_require"] = approval_mode
        self.timeout = timeout
        hints = info.annotations
        self.read_only: bool | None = hints.get("readOnlyHint")
        self.idempotent: bool | None = hints.get("idempotentHint")
        self.destructive: bool | None = hints.get("destructiveHint")
        self.open_world: bool | None = hints.get("openWorldHint")
        self._validator: Any = None

    def __repr__(self) -> str:
        return f"MCPFunctionTool(name={self.name!r}, server={self.info.server!r})"

    def declaration(self) -> dict[str, Any]:
        """What a provider adapter sends: ``{"name", "description", "parameters"}``."""
        return {"name": self.name, "description": self.description, "parameters": self.parameters}

    def parse_arguments(self, raw: str | bytes | Mapping[str, Any]) -> dict[str, Any]:
        """The model's arguments as a dict, checked against the server's schema.

        Raises :class:`~agentcore.tools.ToolArgumentsError` naming each problem by
        its path (``"a: 'x' is not of type 'integer'"``); nothing is sent then.
        """
        arguments = dict(read_arguments(raw, tool_name=self.name))
        problems = [
            f"{'.'.join(str(p) for p in error.absolute_path) or '(arguments)'}: {error.message}"
            for error in self._schema_validator().iter_errors(arguments)
        ]
        if problems:
            raise ToolArgumentsError("; ".join(sorted(problems)))
        return arguments

    async def invoke(self, arguments: Mapping[str, Any], *, context: ToolContext) -> ToolResult:
        """Call the tool on its server (see :meth:`MCPToolset.call_tool`)."""
        return await self.toolset.call_tool(self.info.name, arguments, timeout=self.timeout)

    def _schema_validator(self) -> Any:
        if self._validator is None:
            from jsonschema import (  # type: ignore[import-untyped]  # no stubs; kept behind Any
                validators,
            )

            schema = dict(self.parameters)
            self._validator = validators.validator_for(schema)(schema)
        return self._validator
