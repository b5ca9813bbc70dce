"""Whether a declared type can be stored in a checkpoint, asked at ``build()`` of a
definition that has a store: a type the checkpoint converter would pass through as it
is (a plain class, not attrs, not a dataclass, with no hook taught to
``agentcore.serialization.converter``) can never be written as JSON, so a run would
fail at its first barrier holding one. Walks unions, container element types and the
fields of attrs classes and dataclasses; ``Any`` and type variables say nothing (a
value of them is checked when it is stored)."""

from __future__ import annotations

import enum
import typing
from collections.abc import Iterable
from typing import Any, get_args, get_origin

from agentcore.workflows._typeexpr import describe, members, runtime_class

__all__ = ["unstorable"]

_JSON_SCALARS: tuple[type[Any], ...] = (str, int, float, bool, bytes, type(None))


def unstorable(types: Iterable[Any]) -> list[str]:
    """A line per declared type that holds a class no checkpoint can store."""
    from agentcore.serialization import converter

    identity = converter.get_unstructure_hook(object)
    seen: set[Any] = set()
    problems: list[str] = []
    for tp in types:
        found = _first_unstorable(tp, identity, converter, seen)
        if found is not None:
            where = "" if found == tp else f" (it holds {describe(found)})"
            problems.append(
                f"{describe(tp)} cannot be stored in a checkpoint{where}: "
                f"{describe(found)} is neither an attrs class, a dataclass nor a type the "
                f"converter knows; make it one of those, or teach "
                f"agentcore.serialization.converter to (un)structure it"
            )
    return problems


def _first_unstorable(tp: Any, identity: Any, converter: Any, seen: set[Any]) -> Any | None:
    try:
        if tp in seen:
            return None
        seen.add(tp)
    except TypeError:  # an unhashable type expression: looked at every time
        pass
    if tp is Any or tp is object or isinstance(tp, typing.TypeVar) or tp is Ellipsis:
        return None
    origin = get_origin(tp)
    if origin is typing.Literal:
        return None
    parts = members(tp)
    if len(parts) != 1 or parts[0] is not tp:
        return _first_of(parts, identity, converter, seen)
    cls = runtime_class(tp)
    if cls is None:
        return None
    if get_args(tp):
        return _first_of(get_args(tp), identity, converter, seen)
    if issubclass(cls, (*_JSON_SCALARS, enum.Enum, tuple, list, dict, set, frozenset)):
        return None
    fields = _field_types(cls)
    if fields is not None:
        return _first_of(fields, identity, converter, seen)
    if cls.__module__ in ("collections.abc", "typing", "builtins"):
        return None
    if converter.get_unstructure_hook(cls) is identity:
        return cls
    return None


def _first_of(types: Iterable[Any], identity: Any, converter: Any, seen: set[Any]) -> Any | None:
    for tp in types:
        found = _first_unstorable(tp, identity, converter, seen)
        if found is not None:
            return found
    return None


def _field_types(cls: type[Any]) -> list[Any] | None:
    """The field types of an attrs class or dataclass (``None`` for other classes;
    ``[]`` when they cannot be resolved: nothing to say then)."""
    if not hasattr(cls, "__attrs_attrs__") and not hasattr(cls, "__dataclass_fields__"):
        return None
    try:
        hints = typing.get_type_hints(cls)
    except Exception:  # a forward reference this module cannot resolve
        return []
    names = (
        [a.name for a in cls.__attrs_attrs__]
        if hasattr(cls, "__attrs_attrs__")
        else list(cls.__dataclass_fields__)
    )
    return [hints[n] for n in names if n in hints]
