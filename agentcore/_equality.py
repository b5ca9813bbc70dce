"""One ``__eq__`` and ``__hash__`` for attrs value classes, written once instead of once per class.

attrs writes a frozen class's ``__eq__`` and ``__hash__`` as source text and compiles them
when the class is created, as it does the ``__repr__`` (``agentcore/_repr.py``). For the
value classes of ``import agentcore.workflows`` that was 34 million of its 156 million
instructions, and for the 32 of ``from agentcore import Agent, tool`` 19.5 of 352 million
(``valgrind --tool=callgrind``, 2026-11-26): about 6 ms and 3.5 ms, for methods that run
when someone compares or hashes two values. :func:`fields_eq` and :func:`fields_hash` do
what the generated ones do: only an instance of the very same class compares
(``NotImplemented`` otherwise), comparing its fields declared ``eq=True`` one by one in
their order, each through its ``eq=`` key where it has one; the hash covers the fields
that take part in it (``hash=``, else ``eq=``) and the class.

A class takes them with two lines in its body, which attrs sees as the class's own
methods and so generates neither::

    @attrs.frozen
    class RunStarted:
        __repr__ = fields_repr
        __eq__ = fields_eq
        __hash__ = fields_hash

        run_id: str

A mutable (``attrs.define``) class takes ``__eq__`` alone: Python then makes it
unhashable, as attrs does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs

__all__ = ["fields_eq", "fields_hash"]

_Fields = tuple[tuple[str, Callable[[Any], Any] | None], ...]

# Per class: (the compared fields, the hashed fields), read once from attrs' fields.
_FIELDS: dict[type[Any], tuple[_Fields, _Fields]] = {}


def _key(field: attrs.Attribute[Any]) -> Callable[[Any], Any] | None:
    # the field's ``eq=`` callable, which attrs keeps as ``eq_key`` (absent from its stubs)
    key: Callable[[Any], Any] | None = getattr(field, "eq_key", None)
    return key


def _fields(cls: type[Any]) -> tuple[_Fields, _Fields]:
    found = _FIELDS.get(cls)
    if found is None:
        every: tuple[attrs.Attribute[Any], ...] = attrs.fields(cls)
        compared = tuple((f.name, _key(f)) for f in every if f.eq)
        hashed = tuple((f.name, _key(f)) for f in every if (f.eq if f.hash is None else f.hash))
        found = _FIELDS[cls] = (compared, hashed)
    return found


def _values(self: object, fields: _Fields) -> tuple[Any, ...]:
    return tuple(
        getattr(self, name) if key is None else key(getattr(self, name)) for name, key in fields
    )


def fields_eq(self: attrs.AttrsInstance, other: object, /) -> bool:
    """Whether ``other`` is of ``self``'s class with equal compared fields: the generated
    ``self.a == other.a and self.b == other.b ...``, field by field."""
    if other.__class__ is not self.__class__:
        # what a generated __eq__ returns; mypy types NotImplemented as Any outside a method
        return NotImplemented  # type: ignore[no-any-return]
    equal: bool = True
    for name, key in _fields(type(self))[0]:
        mine, theirs = getattr(self, name), getattr(other, name)
        equal = mine == theirs if key is None else key(mine) == key(theirs)
        if not equal:
            break
    return equal


def fields_hash(self: attrs.AttrsInstance) -> int:
    """The hash of ``self``'s class and hashed fields (equal values hash alike)."""
    cls = type(self)
    return hash((cls, *_values(self, _fields(cls)[1])))
