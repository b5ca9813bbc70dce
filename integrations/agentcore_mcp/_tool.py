"""What an MCP server lists for one tool (:class:`MCPToolInfo`), and the name the model
calls it by."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

import attrs
from mcp import types

__all__ = ["MCPToolInfo", "check_prefix", "tool_info", "tool_name"]

_VALID_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_INVALID_CHARS = re.compile(r"[^a-zA-Z0-9_-]")
_VALID_PREFIX = re.compile(r"^[a-zA-Z0-9_-]{1,63}$")

TaskSupport = Literal["forbidden", "optional", "required"]


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
    task_support: TaskSupport = "forbidden"
    """The tool's ``execution.taskSupport``: ``"required"`` means the server runs it only
    as an MCP task, which this client does not start; the toolset leaves such tools out."""

    @property
    def retry_safe(self) -> bool:
        """Whether the server says a repeated call does no harm (``readOnlyHint`` or
        ``idempotentHint``): a call lost in flight is then sent again after a reconnect."""
        hints = self.annotations
        return hints.get("readOnlyHint") is True or hints.get("idempotentHint") is True


def tool_info(tool: types.Tool, server: str) -> MCPToolInfo:
    """The listing of ``tool`` as an :class:`MCPToolInfo` of toolset ``server``."""
    annotations = (
        {}
        if tool.annotations is None
        else tool.annotations.model_dump(by_alias=True, exclude_none=True)
    )
    execution = tool.execution
    support = None if execution is None else execution.task_support
    return MCPToolInfo(
        server=server,
        name=tool.name,
        title=tool.title,
        description=tool.description or "",
        input_schema=tool.input_schema,
        output_schema=tool.output_schema,
        annotations=annotations,
        task_support=support or "forbidden",
    )


def check_prefix(prefix: str | None) -> str | None:
    """``prefix`` if tool names built from it are valid, else ``ValueError`` with the rule."""
    if prefix is None or _VALID_PREFIX.match(prefix):
        return prefix
    if not isinstance(prefix, str):  # pyright: ignore[reportUnnecessaryIsInstance]  # runtime check
        raise TypeError(f"tool_prefix must be a str or None, got {type(prefix).__name__}")
    raise ValueError(
        f"tool_prefix {prefix!r} is not valid: the tool names the model sees are "
        f"'<prefix>_<tool>' and must match ^[a-zA-Z0-9_-]{{1,64}}$ (MCP's tool-name rule "
        f"without the dot, which model APIs reject), so a prefix is 1 to 63 letters, digits, "
        f"'_' or '-'; for example tool_prefix={_suggest(prefix)!r}"
    )


def _suggest(prefix: str) -> str:
    return _INVALID_CHARS.sub("_", prefix)[:63] or "tools"


def tool_name(remote: str, prefix: str | None) -> str:
    """The name the model calls a remote tool by: ``prefix_remote``; characters model
    APIs reject in the server's own name are replaced by ``_``, and the name cut to 64."""
    name = f"{prefix}_{remote}" if prefix else remote
    if _VALID_NAME.match(name):
        return name
    return _INVALID_CHARS.sub("_", name)[:64] or "_"
