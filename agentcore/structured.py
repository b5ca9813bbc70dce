"""Structured output: JSON schemas for ``response_format`` and parsing the answer."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["json_schema_for", "parse_value"]


def json_schema_for(response_format: type[Any] | Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """The ``(name, JSON schema)`` an adapter sends for ``options["response_format"]``.

    A mapping is either a bare JSON schema or ``{"name": ..., "schema": {...}}``;
    a type (attrs class, dataclass, TypedDict, pydantic model) gets a schema built
    from its fields and its class name as the name.
    """
    if isinstance(response_format, Mapping):
        schema = response_format.get("schema")
        if isinstance(schema, Mapping) and "name" in response_format:
            return str(response_format["name"]), dict(schema)  # pyright: ignore[reportUnknownArgumentType]
        return "response", dict(response_format)
    from agentcore.tools._schema import schema_for_type

    return response_format.__name__, schema_for_type(response_format)


_converter: Any = None


def _structure(data: Any, tp: type[Any]) -> Any:
    global _converter
    validate = getattr(tp, "model_validate", None)
    if callable(validate) and hasattr(tp, "model_json_schema"):
        return validate(data)  # a pydantic model, duck-typed
    if _converter is None:
        import cattrs

        _converter = cattrs.Converter(forbid_extra_keys=True)
    return _converter.structure(data, tp)


def parse_value(response_format: type[Any] | Mapping[str, Any] | None, text: str) -> Any:
    """Parse the model's final text into ``response_format``.

    A type gives an instance of it; a JSON-schema mapping gives the decoded JSON.
    Raises :class:`~agentcore.errors.StructuredOutputError` carrying the raw text
    when the output does not fit.
    """
    import json

    from agentcore.errors import StructuredOutputError

    if response_format is None:
        return None
    stripped = text.strip()
    if stripped.startswith("```"):
        # Some models wrap JSON in a fenced block despite the schema.
        stripped = stripped.strip("`")
        stripped = stripped.split("\n", 1)[1] if "\n" in stripped else stripped
    try:
        data = json.loads(stripped)
    except json.JSONDecodeError as exc:
        raise StructuredOutputError(
            f"the model's answer is not valid JSON ({exc.msg} at position {exc.pos})",
            raw_text=text,
        ) from exc
    if isinstance(response_format, Mapping):
        return data
    try:
        return _structure(data, response_format)
    except Exception as exc:
        raise StructuredOutputError(
            f"the model's answer does not fit {response_format.__name__}: {exc}", raw_text=text
        ) from exc
