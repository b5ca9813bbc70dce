"""Type expressions as the engine reads them: once at build, never per message.

A type expression is what a handler annotation or an explicit decorator argument
holds: a class, a union, ``Literal[...]``, ``Any``, or a parametrized generic such
as ``tuple[str, ...]``, ``Sequence[Summary]`` or ``SubWorkflowRequest[Q, bool]``.
The engine asks three questions of them:

- :func:`compatible`: at build, can a value declared as one be accepted by the other?
- :func:`matches`: at run time, is this value an instance of the expression? (the
  origin class is checked; container elements are not walked, so a send stays O(1))
- :func:`conforms`: the same, with the element types of tuples, sequences, sets and
  mappings walked; what dispatch asks when handlers differ only in those (and
  :func:`class_decides` says when the class alone answers, so the answer is cached
  per class);
- :func:`most_specific`: of the types a value conforms to, the one a handler for it
  should be chosen by (:func:`overlaps` finds at build the pairs it could not order);
- :func:`mutable_reason`: is it a type the engine can tell is mutable?
"""

from __future__ import annotations

import collections.abc
import types
import typing
from collections.abc import Iterable, Sequence
from typing import Any, Literal, NoReturn, TypeVar, Union, cast, get_args, get_origin

from typing_extensions import Never

__all__ = [
    "class_decides",
    "compatible",
    "conforms",
    "describe",
    "element_type",
    "exact_class_wins",
    "has_typevar",
    "matches",
    "members",
    "most_specific",
    "mutable_reason",
    "overlaps",
    "runtime_class",
    "union_of",
    "with_article",
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


_STRINGS = (str, bytes, bytearray)


def conforms(value: object, tp: Any) -> bool:
    """Whether ``value`` is an instance of ``tp``, elements included: ``("a",)`` is no
    ``tuple[int, ...]``, ``{"k": 1}`` no ``Mapping[str, str]``. Generic classes other
    than the containers are checked by their class only."""
    if tp is Any or tp is object:
        return True
    origin = get_origin(tp)
    if origin is Literal:
        return any(value == v and type(value) is type(v) for v in get_args(tp))
    if origin in _UNIONS or origin is typing.Annotated:
        return any(conforms(value, m) for m in members(tp))
    cls = runtime_class(tp)
    if cls is None or not isinstance(value, cls):
        return False
    args = get_args(tp)
    if not args or isinstance(value, _STRINGS):
        return True
    if cls is tuple:
        items: tuple[Any, ...] = cast("tuple[Any, ...]", value)
        if len(args) == 2 and args[1] is Ellipsis:
            return _all_conform(items, args[0])
        if args == ((),):
            return not items
        return len(items) == len(args) and all(
            conforms(item, arg) for item, arg in zip(items, args, strict=True)
        )
    if isinstance(value, collections.abc.Mapping) and len(args) == 2:
        mapping = cast("collections.abc.Mapping[object, object]", value)
        return _all_conform(mapping.keys(), args[0]) and _all_conform(mapping.values(), args[1])
    if isinstance(value, collections.abc.Collection) and len(args) == 1:
        return _all_conform(cast("Iterable[Any]", value), args[0])
    return True


def _all_conform(items: Iterable[Any], tp: Any) -> bool:
    """Every item conforms to ``tp``: a plain class is one ``isinstance`` an item (a
    fan-in's join of 10,000 results is walked at that cost)."""
    if tp is Any or tp is object:
        return True
    if isinstance(tp, type) and not get_args(tp):
        return all(isinstance(item, tp) for item in items)
    return all(conforms(item, tp) for item in items)


def class_decides(tp: Any) -> bool:
    """Whether every value of one class either conforms to ``tp`` or does not (no
    ``Literal`` value and no element type to look at), so an answer may be cached by
    the value's class."""
    for member in members(tp):
        if member is Any or member is object:
            continue
        cls = runtime_class(member)
        if cls is None:
            return False
        if get_args(member) and _walked(cls):
            return False
    return True


def exact_class_wins(cls: type[Any], types: Sequence[Any]) -> bool:
    """Whether ``cls`` itself, declared among ``types``, is the most specific of them for
    every value of class ``cls``: nothing is nearer than the value's own class, and only
    a ``Literal`` or an element type of a container could be narrower, so the answer
    depends on the class alone (and may be cached by it)."""
    return (
        any(tp is cls for tp in types)
        and not _walked(cls)
        and not any(get_origin(m) is Literal for tp in types for m in members(tp))
    )


def _walked(cls: type[Any]) -> bool:
    return issubclass(cls, (tuple, collections.abc.Collection)) and not issubclass(cls, _STRINGS)


def _rank(cls: type[Any], tp: Any) -> int:
    """How close ``tp``'s class is to ``cls`` along its MRO (0: ``cls`` itself, or an
    abstract class it is registered as); ``Literal`` before everything, ``Any`` after."""
    if get_origin(tp) is Literal:
        return -1
    target = runtime_class(tp)
    if target is None or target is object:
        return len(cls.__mro__)
    for i, base in enumerate(cls.__mro__):
        if issubclass(base, target):
            return i
    return len(cls.__mro__)


def most_specific(value: object, candidates: Sequence[Any]) -> list[int]:
    """The positions in ``candidates`` (types ``value`` conforms to) of the most
    specific ones: the nearest class of ``value``'s MRO first, then no other candidate
    strictly narrower (``tuple[int, ...]`` before ``Sequence[int]``, ``bool`` before
    ``int``). More than one only for types :func:`overlaps` lets through (an empty
    container, for one)."""
    if len(candidates) < 2:
        return list(range(len(candidates)))
    cls = type(value)
    ranks = [_rank(cls, tp) for tp in candidates]
    best = min(ranks)
    near = [i for i, r in enumerate(ranks) if r == best]
    return [
        i
        for i in near
        if not any(
            j != i
            and compatible(candidates[j], candidates[i])
            and not compatible(candidates[i], candidates[j])
            for j in near
        )
    ]


def overlaps(a: Any, b: Any) -> bool:
    """Whether some value could be both an ``a`` and a ``b`` (an empty container aside):
    two handlers for such types, neither narrower, would be ambiguous."""
    if a is Any or b is Any or a is object or b is object:
        return True
    ma, mb = members(a), members(b)
    if len(ma) != 1 or len(mb) != 1:
        return any(overlaps(x, y) for x in ma for y in mb)
    if get_origin(a) is Literal:
        return any(conforms(v, b) for v in get_args(a))
    if get_origin(b) is Literal:
        return any(conforms(v, a) for v in get_args(b))
    ca, cb = runtime_class(a), runtime_class(b)
    if ca is None or cb is None:
        return bool(a == b)
    if not (issubclass(ca, cb) or issubclass(cb, ca)):
        return False
    ea, eb = element_type(a), element_type(b)
    if ea is not None and eb is not None:
        return overlaps(ea, eb)
    args_a, args_b = get_args(a), get_args(b)
    if not args_a or not args_b or len(args_a) != len(args_b):
        return True
    return all(overlaps(x, y) for x, y in zip(args_a, args_b, strict=True))


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


def with_article(name: str) -> str:
    """``name`` with its indefinite article, for messages: ``a str``, ``an int``,
    ``an Order``, ``a UUID``, ``a UserInputRequestContent`` (a "you" sound takes "a")."""
    lower = name.lower()
    vowel = lower[:1] in ("a", "e", "i", "o", "u") and not lower.startswith(_YOU_SOUNDS)
    return f"{'an' if vowel else 'a'} {name}"


_YOU_SOUNDS = ("uu", "us", "uni", "uti", "eu")


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
