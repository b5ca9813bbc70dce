"""Reading one function body's types once, for every executor made from it.

A loop of ``@executor`` over one ``def`` (the workers of a wide fan-out) makes many
functions that share a code object, globals and annotations: their signature and
resolved annotations are the same, so they are read once and their handlers share
one cache of per-class answers. The cache is looked up by the code object's
identity (hashing a code object hashes its bytecode and constants, every time) and
confirmed by the globals' identity and equal annotations; an entry holds its code,
so the identity cannot be reused while the entry lives. Bounded.
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable
from typing import Any

from agentcore.workflows._decorators import Explicit

__all__ = ["Body", "Read", "lookup", "remember"]

_CO_COROUTINE = inspect.CO_COROUTINE
_LIMIT = 4096


class Body:
    """What a read of a function depends on: its code, globals, annotations, the
    decorator's explicit types, whether it is bound (``self`` is not a parameter)
    and whether it is async."""

    __slots__ = ("annotations", "bound", "code", "explicit", "globals", "is_async")

    def __init__(
        self,
        code: types.CodeType,
        globals: dict[str, Any],
        annotations: dict[str, Any],
        explicit: Explicit | None,
        bound: bool,
        is_async: bool,
    ) -> None:
        self.code = code
        self.globals = globals
        self.annotations = annotations
        self.explicit = explicit
        self.bound = bound
        self.is_async = is_async


class Read:
    """The types one body declares, and the per-class answers its handlers share."""

    __slots__ = (
        "body",
        "input_cache",
        "inputs",
        "is_async",
        "send_cache",
        "sends",
        "takes_ctx",
        "yield_cache",
        "yields",
    )

    def __init__(
        self,
        body: Body | None,
        inputs: tuple[Any, ...],
        sends: tuple[Any, ...],
        yields: tuple[Any, ...],
        takes_ctx: bool,
        is_async: bool,
    ) -> None:
        self.body = body
        self.is_async = is_async
        self.inputs = inputs
        self.sends = sends
        self.yields = yields
        self.takes_ctx = takes_ctx
        self.send_cache: dict[type[Any], Any] = {}
        self.yield_cache: dict[type[Any], bool] = {}
        self.input_cache: dict[type[Any], Any] = {}


_READS: dict[int, list[Read]] = {}
"""id(code) -> the reads of bodies with that code (each entry holds its code)."""
_size = 0


def lookup(fn: Callable[..., Any], explicit: Explicit | None) -> Read | Body | None:
    """The read shared by functions with ``fn``'s body; on a miss, the :class:`Body`
    to :func:`remember` a new read under; ``None`` when a read cannot be shared (not a
    plain function or method, or one whose signature comes from elsewhere:
    ``__wrapped__``, ``__signature__``)."""
    target: Any = getattr(fn, "__func__", fn)
    if (
        type(target) is not types.FunctionType
        or getattr(target, "__wrapped__", None) is not None
        or getattr(target, "__signature__", None) is not None
    ):
        return None
    code = target.__code__
    is_async = bool(code.co_flags & _CO_COROUTINE) or inspect.iscoroutinefunction(fn)
    bound = target is not fn
    globals_ = target.__globals__
    annotations = target.__annotations__
    for read in _READS.get(id(code), ()):
        known = read.body
        if (
            known is None
            or known.code is not code
            or known.globals is not globals_
            or known.bound is not bound
            or known.is_async is not is_async
        ):
            continue
        try:
            if (
                known.explicit is explicit or known.explicit == explicit
            ) and known.annotations == annotations:
                return read
        except Exception:  # an annotation whose == does not answer: read it again
            continue
    return Body(code, globals_, dict(annotations), explicit, bound, is_async)


def remember(read: Read) -> None:
    """Keep ``read`` for the next function with the same body (``read.body``)."""
    global _size
    body = read.body
    if body is None:
        return
    if _size >= _LIMIT:
        _READS.clear()
        _size = 0
    _READS.setdefault(id(body.code), []).append(read)
    _size += 1
