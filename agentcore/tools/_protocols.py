"""What the tool loop needs from a tool, and the value a tool may return.

:class:`SupportsToolCall` is the shape the loop, agents and adapters accept: a
:class:`~agentcore.tools.FunctionTool` has it, and so does anything else with the
same members (an MCP server's tool, a durable wrapper). It is a superset of the
declaration shape adapters read (``name``, ``description``, ``parameters``).
:class:`ToolResult` lets a tool say more than a return value can: structured
content kept for code, and an error flag for failures meant for the model.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, Protocol, runtime_checkable

import attrs

from agentcore._equality import fields_eq, fields_hash
from agentcore._repr import fields_repr
from agentcore.tools._context import ToolContext

__all__ = ["SupportsToolCall", "ToolResult", "is_tool_shaped"]


@runtime_checkable
class SupportsToolCall(Protocol):
    """Anything the tool loop can declare to a model and call.

    The loop reads the metadata (approval, return-directly, invocation limit,
    timeout); middleware may read the effect hints. ``parse_arguments`` raises
    :class:`~agentcore.tools.ToolArgumentsError` for arguments the model got wrong;
    ``invoke`` returns the result (any JSON value, a sequence of contents, or a
    :class:`ToolResult`).
    """

    @property
    def name(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def parameters(self) -> Mapping[str, Any]: ...
    @property
    def approval_mode(self) -> Literal["always_require", "never_require"]: ...
    @property
    def return_directly(self) -> bool: ...
    @property
    def read_only(self) -> bool | None: ...
    @property
    def idempotent(self) -> bool | None: ...
    @property
    def destructive(self) -> bool | None: ...
    @property
    def open_world(self) -> bool | None: ...
    @property
    def max_invocations(self) -> int | None: ...
    @property
    def timeout(self) -> float | None: ...

    def declaration(self) -> dict[str, Any]: ...

    def parse_arguments(self, raw: str | bytes | Mapping[str, Any]) -> dict[str, Any]: ...

    async def invoke(self, arguments: Mapping[str, Any], *, context: ToolContext) -> Any: ...


_TOOL_MEMBERS = (
    "name",
    "description",
    "parameters",
    "declaration",
    "approval_mode",
    "return_directly",
    "read_only",
    "idempotent",
    "destructive",
    "open_world",
    "max_invocations",
    "timeout",
)


def is_tool_shaped(item: object) -> bool:
    """Whether ``item`` has every member of :class:`SupportsToolCall`.

    The same question as ``isinstance(item, SupportsToolCall)``, at a fraction of
    its cost; asked once when tools are handed over, never per call.
    """
    return (
        callable(getattr(item, "invoke", None))
        and callable(getattr(item, "parse_arguments", None))
        and all(hasattr(item, member) for member in _TOOL_MEMBERS)
    )


def _freeze_meta(value: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    return None if value is None else dict(value)


@attrs.frozen
class ToolResult:
    """A tool's result with more than a value: structured content and an error flag.

    ``value`` is what the model sees (text, a JSON value, or a sequence of
    ``TextContent``/``DataContent``/``UriContent``). ``structured`` is kept for code
    (in the result content's ``additional_properties``), not sent again. With
    ``is_error`` the call counts as failed and ``value`` still reaches the model,
    even without ``include_detailed_errors``: it is written for the model, unlike
    an exception's text.
    """

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    value: Any = None
    structured: Any = None
    is_error: bool = False
    meta: Mapping[str, Any] | None = attrs.field(default=None, converter=_freeze_meta)
