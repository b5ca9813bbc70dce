"""Tools, tool choice and structured output as both OpenAI APIs take them.

``options["tools"]`` holds function tools (any ``agentcore.protocols.ToolDeclaration``:
``name``, ``description``, ``parameters``), hosted tool values, or raw provider dicts
that pass through unchanged. OpenAI's *strict* mode (constrained decoding) only accepts schemas
whose every object lists all its properties as required and forbids extra
ones; :func:`is_strict_schema` decides, and ``strict`` is sent accordingly.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeAlias, cast

import attrs

from agentcore import (
    CodeInterpreterTool,
    FileSearchTool,
    HostedTool,
    ImageGenerationTool,
    MCPTool,
    ShellTool,
    WebSearchTool,
)
from agentcore.protocols import ToolDeclaration

__all__ = [
    "FunctionSpec",
    "ToolSpec",
    "check_tool_choice",
    "is_strict_schema",
    "required_function_name",
    "split_tools",
    "structured_output",
]

_HOSTED_TYPES = (
    WebSearchTool,
    CodeInterpreterTool,
    FileSearchTool,
    ImageGenerationTool,
    MCPTool,
    ShellTool,
)
_SUBSCHEMA_LISTS = ("anyOf", "allOf", "oneOf", "prefixItems")
_SUBSCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties")


@attrs.frozen
class FunctionSpec:
    """A function tool as the wire needs it."""

    name: str
    description: str | None
    parameters: dict[str, Any]

    @property
    def strict(self) -> bool:
        return is_strict_schema(self.parameters)


ToolSpec: TypeAlias = FunctionSpec | HostedTool | Mapping[str, Any]


def is_strict_schema(schema: Mapping[str, Any]) -> bool:
    """Whether OpenAI's strict mode accepts ``schema`` as it is.

    Every object schema must set ``additionalProperties: false`` and list all
    its properties in ``required``; this is checked through nested schemas.
    """
    is_object = schema.get("type") == "object" or "properties" in schema
    if is_object:
        properties: Mapping[str, Any] = schema.get("properties") or {}
        required = set(schema.get("required") or ())
        if schema.get("additionalProperties", True) is not False:
            return False
        if set(properties) != required:
            return False
    for key in _SUBSCHEMA_MAPS:
        children = schema.get(key)
        if isinstance(children, Mapping):
            for child in children.values():  # pyright: ignore[reportUnknownVariableType]  # JSON schema
                if isinstance(child, Mapping) and not is_strict_schema(child):  # pyright: ignore[reportUnknownArgumentType]  # JSON schema
                    return False
    for key in _SUBSCHEMA_LISTS:
        children = schema.get(key)
        if isinstance(children, Sequence):
            for child in children:  # pyright: ignore[reportUnknownVariableType]  # JSON schema
                if isinstance(child, Mapping) and not is_strict_schema(child):  # pyright: ignore[reportUnknownArgumentType]  # JSON schema
                    return False
    items = schema.get("items")
    return not (isinstance(items, Mapping) and not is_strict_schema(items))  # pyright: ignore[reportUnknownArgumentType]  # JSON schema


def _function_spec(tool: object, adapter: str) -> FunctionSpec:
    if not isinstance(tool, ToolDeclaration) or not isinstance(tool.name, str):
        raise _not_a_tool(tool, adapter)
    parameters: object = tool.parameters
    if callable(parameters):  # a schema computed on demand
        parameters = cast("Callable[[], object]", parameters)()
    if not isinstance(parameters, Mapping):
        raise _not_a_tool(tool, adapter)
    description = tool.description
    return FunctionSpec(
        name=tool.name,
        description=description if isinstance(description, str) and description else None,
        parameters=dict(parameters),  # pyright: ignore[reportUnknownArgumentType]  # a JSON schema
    )


def _not_a_tool(tool: object, adapter: str) -> ValueError:
    return ValueError(
        f"{adapter} cannot send tool {tool!r}: options['tools'] takes function tools "
        "(with .name, .description and a .parameters JSON schema), hosted tool values "
        "from the client's get_<kind>_tool() factories, or raw OpenAI tool dicts"
    )


def split_tools(tools: Sequence[object] | None, adapter: str) -> list[ToolSpec]:
    """Each tool as a :class:`FunctionSpec`, a hosted tool value or a raw dict."""
    specs: list[ToolSpec] = []
    for tool in tools or ():
        if isinstance(tool, _HOSTED_TYPES):
            specs.append(tool)
        elif isinstance(tool, Mapping):
            specs.append(tool)  # pyright: ignore[reportUnknownArgumentType]  # raw provider dict
        else:
            specs.append(_function_spec(tool, adapter))
    return specs


def required_function_name(tool_choice: object) -> str | None:
    """The function a ``{"mode": "required", ...}`` tool choice names, if any."""
    if isinstance(tool_choice, Mapping):
        name = cast("Mapping[str, object]", tool_choice).get("required_function_name")
        return name if isinstance(name, str) else None
    return None


def check_tool_choice(tool_choice: object, adapter: str) -> None:
    """Raise ``ValueError`` unless ``tool_choice`` is one agentcore defines."""
    if tool_choice in ("auto", "none", "required"):
        return
    if (
        isinstance(tool_choice, Mapping)
        and cast("Mapping[str, object]", tool_choice).get("mode") == "required"
    ):
        return
    raise ValueError(
        f"{adapter}: tool_choice must be 'auto', 'none', 'required' or "
        f"{{'mode': 'required', 'required_function_name': name}}, got {tool_choice!r}"
    )


def structured_output(response_format: object) -> tuple[str, dict[str, Any], bool]:
    """``(name, schema, strict)`` for ``options["response_format"]``."""
    from agentcore.structured import json_schema_for

    if not isinstance(response_format, (Mapping, type)):
        raise ValueError(
            "response_format must be a type (attrs class, dataclass, TypedDict) or a JSON "
            f"schema dict, got {type(response_format).__name__}"
        )
    name, schema = json_schema_for(response_format)  # pyright: ignore[reportUnknownArgumentType]  # checked above
    return name, schema, is_strict_schema(schema)
