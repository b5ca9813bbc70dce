"""Type-hint introspection shared by the schema builder and the argument validator.

Both sides must agree on what a hint *is* (a list, a union, an attrs class, ...),
so the classification lives here, once.
"""

from __future__ import annotations

import collections.abc
import enum
import types
from collections.abc import Mapping
from typing import Any, Literal, Protocol, TypeGuard, Union

import attrs
import typing_extensions

__all__ = [
    "ARRAY_ORIGINS",
    "MAPPING_ORIGINS",
    "SET_ORIGINS",
    "PydanticModel",
    "annotated_description",
    "is_enum_class",
    "is_list",
    "is_literal",
    "is_mapping",
    "is_pydantic_model",
    "is_record_class",
    "is_typeddict",
    "is_union",
    "json_type_of",
    "render_type",
    "strip_wrappers",
    "typeddict_fields",
    "unwrap",
]

NoneType = type(None)

ARRAY_ORIGINS: frozenset[Any] = frozenset(
    {list, collections.abc.Sequence, collections.abc.MutableSequence}
)
"""Origins that become a JSON array and structure into a ``list``."""

SET_ORIGINS: frozenset[Any] = frozenset(
    {set, frozenset, collections.abc.Set, collections.abc.MutableSet}
)
"""Origins that become a JSON array with ``uniqueItems``."""

MAPPING_ORIGINS: frozenset[Any] = frozenset(
    {dict, collections.abc.Mapping, collections.abc.MutableMapping}
)
"""Origins that become a JSON object with ``additionalProperties``."""

_TYPEDDICT_QUALIFIERS: frozenset[Any] = frozenset(
    {typing_extensions.Required, typing_extensions.NotRequired, typing_extensions.ReadOnly}
)


def annotated_description(metadata: tuple[Any, ...]) -> str | None:
    """The description carried by ``Annotated`` metadata: its strings, space-joined."""
    texts = [item.strip() for item in metadata if isinstance(item, str) and item.strip()]
    return " ".join(texts) if texts else None


def unwrap(hint: Any) -> tuple[Any, tuple[Any, ...]]:
    """Remove ``Annotated`` and the ``TypedDict`` qualifiers, in any nesting order.

    Returns the bare hint and the ``Annotated`` metadata found on the way, outermost first.
    """
    metadata: list[Any] = []
    while True:
        origin = typing_extensions.get_origin(hint)
        if origin is typing_extensions.Annotated:
            metadata.extend(hint.__metadata__)
            hint = hint.__origin__
        elif origin in _TYPEDDICT_QUALIFIERS:
            hint = typing_extensions.get_args(hint)[0]
        else:
            return hint, tuple(metadata)


def strip_wrappers(hint: Any) -> Any:
    """The bare hint under any ``Annotated`` and ``TypedDict`` qualifiers."""
    return unwrap(hint)[0]


def typeddict_fields(cls: Any) -> list[tuple[str, Any, bool]]:
    """``(key, hint, required)`` for each key of a ``TypedDict``.

    ``Required`` / ``NotRequired`` are read from the resolved hints, since
    ``__required_keys__`` misses them when annotations are strings
    (``from __future__ import annotations``). Raises what ``get_type_hints`` raises.
    """
    hints = typing_extensions.get_type_hints(cls, include_extras=True)
    required_keys: frozenset[str] = getattr(cls, "__required_keys__", frozenset(hints))
    fields: list[tuple[str, Any, bool]] = []
    for key, hint in hints.items():
        qualifier = _typeddict_qualifier(hint)
        if qualifier is None:
            required = key in required_keys
        else:
            required = qualifier is typing_extensions.Required
        fields.append((key, hint, required))
    return fields


def _typeddict_qualifier(hint: Any) -> Any:
    while True:
        origin = typing_extensions.get_origin(hint)
        if origin is typing_extensions.Annotated:
            hint = hint.__origin__
        elif origin is typing_extensions.ReadOnly:
            hint = typing_extensions.get_args(hint)[0]
        elif origin in (typing_extensions.Required, typing_extensions.NotRequired):
            return origin
        else:
            return None


def is_union(hint: Any) -> bool:
    """``Union[...]``, ``Optional[...]`` or ``X | Y``."""
    origin = typing_extensions.get_origin(hint)
    return origin is Union or origin is types.UnionType


def is_literal(hint: Any) -> bool:
    """``Literal[...]``."""
    return typing_extensions.get_origin(hint) is Literal


def is_typeddict(hint: Any) -> TypeGuard[type[Any]]:
    """A ``TypedDict`` class from ``typing`` or ``typing_extensions``."""
    return typing_extensions.is_typeddict(hint)


def is_record_class(hint: Any) -> TypeGuard[type[Any]]:
    """An attrs class or a dataclass (not a generic alias of one)."""
    if not isinstance(hint, type):
        return False
    if attrs.has(hint):
        return True
    import dataclasses  # here, not at the top: ``import agentcore`` does not load it

    return dataclasses.is_dataclass(hint)


def is_enum_class(hint: Any) -> TypeGuard[type[enum.Enum]]:
    """An ``Enum`` subclass."""
    return isinstance(hint, type) and issubclass(hint, enum.Enum)


class PydanticModel(Protocol):
    """The two class methods agentcore uses from a pydantic model (pydantic is optional)."""

    @classmethod
    def model_json_schema(cls) -> dict[str, Any]: ...

    @classmethod
    def model_validate(cls, obj: Any) -> Any: ...


def is_pydantic_model(hint: Any) -> TypeGuard[type[PydanticModel]]:
    """A pydantic-style model class, recognised by shape so pydantic is never imported."""
    return (
        isinstance(hint, type)
        and callable(getattr(hint, "model_json_schema", None))
        and callable(getattr(hint, "model_validate", None))
    )


def is_mapping(value: object) -> TypeGuard[Mapping[Any, Any]]:
    """``isinstance(value, Mapping)``, typed for values of unknown origin."""
    return isinstance(value, Mapping)


def is_list(value: object) -> TypeGuard[list[Any]]:
    """``isinstance(value, list)``, typed for values of unknown origin."""
    return isinstance(value, list)


def json_type_of(value: Any) -> str | None:
    """The JSON-schema ``type`` of a literal value, or ``None`` when it has none."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return None


def render_type(hint: Any) -> str:
    """A short, readable spelling of a hint for error messages (``list[str]``, ``int | None``)."""
    hint = strip_wrappers(hint)
    if hint is NoneType or hint is None:
        return "None"
    if hint is Any:
        return "Any"
    if is_union(hint):
        return " | ".join(render_type(arg) for arg in typing_extensions.get_args(hint))
    if is_literal(hint):
        values = [v.value if isinstance(v, enum.Enum) else v for v in hint.__args__]
        return "one of " + ", ".join(repr(v) for v in values)
    if is_record_class(hint) or is_typeddict(hint) or is_pydantic_model(hint):
        return "object"
    origin = typing_extensions.get_origin(hint)
    if origin is not None:
        args = typing_extensions.get_args(hint)
        base = _ORIGIN_NAMES.get(origin, getattr(origin, "__name__", repr(origin)))
        if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
            return f"tuple[{render_type(args[0])}, ...]"
        if not args:
            return base
        return f"{base}[{', '.join(render_type(arg) for arg in args)}]"
    if isinstance(hint, type):
        return hint.__name__
    return repr(hint)


_ORIGIN_NAMES: dict[Any, str] = {
    collections.abc.Sequence: "list",
    collections.abc.MutableSequence: "list",
    collections.abc.Set: "set",
    collections.abc.MutableSet: "set",
    collections.abc.Mapping: "dict",
    collections.abc.MutableMapping: "dict",
}
