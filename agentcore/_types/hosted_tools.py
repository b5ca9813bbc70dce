"""Values describing tools a provider runs on its own side.

An adapter hands these out from its ``get_<kind>_tool(**kwargs)`` factories and
knows how to send them; the kernel only passes them along.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal, TypeAlias

import attrs

from agentcore._equality import fields_eq, fields_hash
from agentcore._repr import fields_repr

__all__ = [
    "CodeInterpreterTool",
    "FileSearchTool",
    "HostedTool",
    "ImageGenerationTool",
    "MCPTool",
    "ShellTool",
    "WebSearchTool",
]


def _options(value: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return {} if value is None else dict(value)


def _no_options() -> Mapping[str, Any]:
    return {}


def _to_names(value: Iterable[str]) -> tuple[str, ...]:
    if isinstance(value, str):
        raise TypeError(f"expected a list of names, got the single string {value!r}")
    return tuple(value)


def _to_optional_names(value: Iterable[str] | None) -> tuple[str, ...] | None:
    return None if value is None else _to_names(value)


@attrs.frozen
class WebSearchTool:
    """Server-side web search. ``options`` carries provider-specific settings."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    options: Mapping[str, Any] = attrs.field(factory=_no_options, converter=_options)
    kind: Literal["web_search"] = attrs.field(default="web_search", init=False)


@attrs.frozen
class CodeInterpreterTool:
    """Server-side code execution in the provider's sandbox."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    options: Mapping[str, Any] = attrs.field(factory=_no_options, converter=_options)
    kind: Literal["code_interpreter"] = attrs.field(default="code_interpreter", init=False)


@attrs.frozen
class FileSearchTool:
    """Server-side search over the provider's vector stores."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    vector_store_ids: tuple[str, ...] = attrs.field(default=(), converter=_to_names)
    options: Mapping[str, Any] = attrs.field(factory=_no_options, converter=_options)
    kind: Literal["file_search"] = attrs.field(default="file_search", init=False)


@attrs.frozen
class ImageGenerationTool:
    """Server-side image generation."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    options: Mapping[str, Any] = attrs.field(factory=_no_options, converter=_options)
    kind: Literal["image_generation"] = attrs.field(default="image_generation", init=False)


@attrs.frozen
class MCPTool:
    """A remote MCP server the provider connects to on the model's behalf."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    name: str
    url: str
    allowed_tools: tuple[str, ...] | None = attrs.field(default=None, converter=_to_optional_names)
    headers: Mapping[str, str] | None = None
    approval_mode: Literal["always_require", "never_require"] | None = None
    options: Mapping[str, Any] = attrs.field(factory=_no_options, converter=_options)
    kind: Literal["mcp"] = attrs.field(default="mcp", init=False)


@attrs.frozen
class ShellTool:
    """A shell the provider drives (the commands run where the adapter says)."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    options: Mapping[str, Any] = attrs.field(factory=_no_options, converter=_options)
    kind: Literal["shell"] = attrs.field(default="shell", init=False)


HostedTool: TypeAlias = (
    WebSearchTool | CodeInterpreterTool | FileSearchTool | ImageGenerationTool | MCPTool | ShellTool
)
HOSTED_TOOL_TYPES: tuple[type[HostedTool], ...] = (
    WebSearchTool,
    CodeInterpreterTool,
    FileSearchTool,
    ImageGenerationTool,
    MCPTool,
    ShellTool,
)
