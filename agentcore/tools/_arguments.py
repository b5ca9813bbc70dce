"""Reading a model's tool-call arguments into a mapping, for every kind of tool.

``FunctionTool`` reads its arguments with :func:`read_arguments` before checking them
against its signature; a tool of another shape (an MCP server's) reads them with it
before its own schema check. Kept apart from the signature checks so importing
``agentcore.tools`` does not load them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from agentcore._types.json_arguments import STRICT_DECODER, NotJsonNumber
from agentcore.tools._errors import ToolArgumentsError

__all__ = ["read_arguments", "show_value"]


def show_value(value: Any) -> str:
    """``repr(value)``, cut to 60 characters for an error message."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def read_arguments(
    raw: str | bytes | Mapping[str, Any], *, tool_name: str | None = None
) -> Mapping[Any, Any]:
    """A model's tool-call arguments (JSON text or a mapping) as a mapping.

    For tool authors reading arguments themselves. JSON text is read strictly: text
    that is not a JSON object, ``NaN`` or ``Infinity`` for a number, or nesting too deep
    to read raise :class:`ToolArgumentsError` saying so (a message for the model), where
    Python's ``json`` would accept the constants and raise ``RecursionError``. Empty
    text is no arguments (``{}``); a mapping is returned as it is.
    """
    if isinstance(raw, str) and raw:
        try:
            data: Any = STRICT_DECODER.decode(raw)  # the usual case: a JSON object in a str
        except (json.JSONDecodeError, NotJsonNumber, RecursionError):
            pass  # reported with detail below
        else:
            if isinstance(data, dict):
                return data  # pyright: ignore[reportUnknownVariableType] # parsed JSON
    if isinstance(raw, Mapping):
        return raw
    if not isinstance(raw, (str, bytes, bytearray)):
        raise TypeError(
            f"arguments for tool {tool_name!r} must be a JSON string or a mapping, "
            f"got {type(raw).__name__}"
        )
    if not raw.strip():
        return {}  # some models send "" for a call without arguments
    try:
        text = (
            raw if isinstance(raw, str) else raw.decode(json.detect_encoding(raw), "surrogatepass")
        )
        data = STRICT_DECODER.decode(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ToolArgumentsError(
            f"arguments are not valid JSON: {exc}", tool_name=tool_name
        ) from None
    except NotJsonNumber as exc:
        raise ToolArgumentsError(
            f"arguments are not valid JSON: {exc} is not a JSON number; send a finite "
            "number (or a string)",
            tool_name=tool_name,
        ) from None
    except RecursionError:
        raise ToolArgumentsError(
            "arguments are nested too deeply to read; send a flatter JSON object",
            tool_name=tool_name,
        ) from None
    if not isinstance(data, dict):
        raise ToolArgumentsError(
            f"arguments must be a JSON object, got {show_value(data)}", tool_name=tool_name
        )
    return data  # pyright: ignore[reportUnknownVariableType] # parsed JSON
