"""Type expressions as the engine reads them: once at build, never per message.

A type expression is what a handler annotation or an explicit decorator argument
holds: a class, a union, ``Literal[...]``, ``Any``, or a parametrized generic such
as ``tuple[str, ...]``, ``Sequence[Summary]`` or ``SubWorkflowRequest[Q, bool]``.
The engine asks three questions of them:

- :func:`compatible`: at build, can a value declared as one be accepted by the other?
- :func:`matches`: at run time, is this value an instance of the expression? (the
  origin class is checked; container elements are not walked, so a send stays O(1))
- :func:`mutable_reason`: is it a type the engine can tell is mutable?
"""

from __future__ import annotations

import collections.abc
import types
import typing
from collections.abc import Sequence
from typing import Any, Literal, NoReturn, TypeVar, Union, get_args, get_origin

from typing_extensions import Never

__all__ = [
    "compatible",
    "describe",
    "element_type",
    "has_typevar",
    "matches",
    "members",
    "mutable_reason",
    "runtime_class",
    "union_of",
]

_NONE = type(None)
_UNIONS: tuple[Any, ...] = (Union, types.UnionType)


def members(tp: Any) -> tuple[Any, ...]:
    """The members of a union (``Annotated`` and ``Never`` removed), else ``(tp,)``."""
    if tp is Never or tp is NoReturn or tp is typing.NoReturn:
        return ()
    origin = get_origin(tp)
    if origin is typing.Annotated:
        return members(get_args(tp)[0])
    if origin in _UNIONS:
        out: list[Any] = []
        for arg in get_args(tp):
            for member in members(arg):
                if member not in out:
                    out.append(member)
        return tuple(out)
    return (tp,)


def runtime_class(tp: Any) -> type[Any] | None:
    """The class an ``isinstance`` check uses for ``tp`` (``None`` for ``Any`` / ``Literal``)."""
    if tp is None:
        return _NONE
    if isinstance(tp, type):
        return tp
    origin = get_origin(tp)
    if isinstance(origin, type):
        return origin
    return None


def matches(value: object, tp: Any) -> bool:
    """Whether ``value`` is an instance of the type expression ``tp`` (shallow)."""
    if tp is Any or tp is object:
        return True
    origin = get_origin(tp)
    if origin is Literal:
        return any(value == v and type(value) is type(v) for v in get_args(tp))
    if origin in _UNIONS or origin is typing.Annotated:
        return any(matches(value, m) for m in members(tp))
    cls = runtime_class(tp)
    return cls is not None and isinstance(value, cls)


def element_type(tp: Any) -> Any | None:
    """``T`` for ``tuple[T, ...]`` / ``Sequence[T]`` (and ``Any`` when unparametrized),
    else ``None``."""
    origin = get_origin(tp) or tp
    if origin not in (tuple, collections.abc.Sequence, typing.Sequence):
        return None
    args = get_args(tp)
    if not args:
        return Any
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return args[0]
        return union_of(args)
    return args[0]


def union_of(types: Sequence[Any]) -> Any:
    """The union of ``types`` (the one type itself when there is one)."""
    if len(types) == 1:
        return types[0]
    union: Any = Union
    return union[tuple(types)]


def compatible(sent: Any, accepted: Any) -> bool:
    """Whether a value declared as ``sent`` may be accepted as ``accepted``."""
    if accepted is Any or accepted is object or sent is Any:
        return True
    accepted_members = members(accepted)
    sent_members = members(sent)
    if len(sent_members) != 1:
        return all(compatible(s, accepted) for s in sent_members)
    if len(accepted_members) != 1:
        return any(compatible(sent, a) for a in accepted_members)
    if get_origin(sent) is Literal:
        if get_origin(accepted) is Literal:
            return set(get_args(sent)) <= set(get_args(accepted))
        return all(matches(v, accepted) for v in get_args(sent))
    if get_origin(accepted) is Literal:
        return False
    sent_cls, accepted_cls = runtime_class(sent), runtime_class(accepted)
    if sent_cls is None or accepted_cls is None:
        return bool(sent == accepted)
    if not issubclass(sent_cls, accepted_cls):
        return False
    accepted_element = element_type(accepted)
    if accepted_element is not None:
        sent_element = element_type(sent)
        return sent_element is None or compatible(sent_element, accepted_element)
    accepted_args, sent_args = get_args(accepted), get_args(sent)
    if not accepted_args or not sent_args or len(accepted_args) != len(sent_args):
        return True
    return all(compatible(s, a) for s, a in zip(sent_args, accepted_args, strict=True))


def has_typevar(tp: Any) -> bool:
    """Whether ``tp`` still contains a ``TypeVar`` (it cannot be checked)."""
    if isinstance(tp, TypeVar):
        return True
    return any(has_typevar(arg) for arg in get_args(tp) if arg is not Ellipsis)


def describe(tp: Any) -> str:
    """A short readable name for messages: ``Report``, ``tuple[str, ...]``, ``A | B``."""
    if tp is None or tp is _NONE:
        return "None"
    if tp is Any:
        return "Any"
    if isinstance(tp, type) and not get_args(tp):
        return tp.__qualname__
    parts = members(tp)
    if len(parts) > 1:
        return " | ".join(describe(p) for p in parts)
    origin = get_origin(tp)
    if origin is Literal:
        return f"Literal[{', '.join(repr(a) for a in get_args(tp))}]"
    if origin is not None:
        args = ", ".join("..." if a is Ellipsis else describe(a) for a in get_args(tp))
        name = getattr(origin, "__qualname__", None) or repr(origin)
        return f"{name}[{args}]"
    return repr(tp)


_MUTABLE_BUILTINS: dict[type[Any], str] = {
    list: "a tuple",
    dict: "a frozen attrs class (or a Mapping you never change)",
    set: "a frozenset",
    bytearray: "bytes",
}


def mutable_reason(tp: Any) -> str | None:
    """Why ``tp`` is a mutable message type (and what to use instead), or ``None``."""
    for member in members(tp):
        cls = runtime_class(member)
        if cls is None:
            continue
        for mutable, instead in _MUTABLE_BUILTINS.items():
            if issubclass(cls, mutable):
                return f"{describe(member)} is mutable; use {instead}"
        if hasattr(cls, "__attrs_attrs__") and not _attrs_frozen(cls):
            return f"{describe(member)} is a mutable attrs class; declare it @attrs.frozen"
        # every dataclass has __dataclass_params__ (read without importing dataclasses,
        # which a program without dataclasses need not load)
        params = getattr(cls, "__dataclass_params__", None)
        if params is not None and not params.frozen:
            return f"{describe(member)} is a mutable dataclass; declare it frozen=True"
    return None


def _attrs_frozen(cls: type[Any]) -> bool:
    props = getattr(cls, "__attrs_props__", None)
    if props is not None:
        return bool(props.is_frozen)
    return getattr(cls.__setattr__, "__name__", "") == "_frozen_setattrs"
