"""The decorators that make executors without a base class: ``@executor`` on a
function, ``@handler`` and ``@response_handler`` on methods of a plain class.

They only mark or wrap; what the marks mean is read once, when the executor is
added (``_spec.read_executor``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, NamedTuple, TypeVar, overload

import attrs

from agentcore._equality import fields_eq, fields_hash
from agentcore._repr import fields_repr
from agentcore.workflows._context import WorkflowContext

__all__ = [
    "HANDLER_MARK",
    "MISSING",
    "RESPONSE_MARK",
    "Explicit",
    "FunctionExecutor",
    "call_function",
    "executor",
    "handler",
    "response_handler",
]

F = TypeVar("F", bound=Callable[..., Any])
HANDLER_MARK = "__agentcore_handler__"
RESPONSE_MARK = "__agentcore_response_handler__"
MISSING: Any = object()


class Explicit(NamedTuple):
    """Types given to a decorator (explicit mode): annotations are not read.

    A named tuple, not an attrs class: a frozen value all the same, without an
    ``__init__`` compiled when the module loads.
    """

    input: Any = MISSING
    output: Any = MISSING
    yields: Any = MISSING
    request: Any = MISSING
    response: Any = MISSING


# -- the decorators ----------------------------------------------------------------------


@overload
def handler(fn: F, /) -> F: ...
@overload
def handler(*, input: Any, output: Any = None, yields: Any = None) -> Callable[[F], F]: ...
def handler(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    input: Any = MISSING,
    output: Any = MISSING,
    yields: Any = MISSING,
) -> Any:
    """Mark a method of a plain class as a message handler: ``async def on_x(self,
    message: In, ctx: WorkflowContext[S, Y])``.

    With any keyword, explicit mode: types come only from ``input`` (required),
    ``output`` (sent types) and ``yields``; annotations are not read.
    """
    explicit = None
    if input is not MISSING or output is not MISSING or yields is not MISSING:
        explicit = Explicit(input=input, output=output, yields=yields)

    def mark(f: F) -> F:
        setattr(f, HANDLER_MARK, explicit or Explicit())
        return f

    return mark(fn) if fn is not None else mark


@overload
def response_handler(fn: F, /) -> F: ...
@overload
def response_handler(
    *, request: Any, response: Any, output: Any = None, yields: Any = None
) -> Callable[[F], F]: ...
def response_handler(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    request: Any = MISSING,
    response: Any = MISSING,
    output: Any = MISSING,
    yields: Any = MISSING,
) -> Any:
    """Mark a method as the handler of answers to one (request, response) type pair:
    ``async def on_answer(self, request: Req, response: Resp, ctx: WorkflowContext[S, Y])``.

    With any keyword, explicit mode: ``request`` and ``response`` are both required
    and annotations are not read. Two handlers for one pair on one class raise
    :class:`WorkflowBuildError` when the executor is added.
    """
    explicit = None
    given: tuple[object, ...] = (request, response, output, yields)
    if any(v is not MISSING for v in given):
        explicit = Explicit(request=request, response=response, output=output, yields=yields)

    def mark(f: F) -> F:
        setattr(f, RESPONSE_MARK, explicit or Explicit())
        return f

    return mark(fn) if fn is not None else mark


@attrs.frozen
class FunctionExecutor:
    """A function as an executor (what ``@executor`` returns). Calling it calls the function."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    id: str
    fn: Callable[..., Any]
    explicit: Explicit | None = attrs.field(default=None, repr=False)

    async def handle(self, message: Any, ctx: WorkflowContext[Any, Any]) -> None:
        """Run the function on ``message``; a non-``None`` return value is sent."""
        result = await call_function(self.fn, message, ctx)
        if result is not None:
            await ctx.send(result)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)


async def call_function(fn: Callable[..., Any], message: Any, ctx: Any) -> Any:
    if len(inspect.signature(fn).parameters) >= 2:
        return await fn(message, ctx)
    return await fn(message)


@overload
def executor(fn: Callable[..., Any], /) -> FunctionExecutor: ...
@overload
def executor(
    *, id: str | None = None, input: Any = None, output: Any = None, yields: Any = None
) -> Callable[[Callable[..., Any]], FunctionExecutor]: ...
def executor(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    id: str | None = None,
    input: Any = MISSING,
    output: Any = MISSING,
    yields: Any = MISSING,
) -> Any:
    """Make a function an executor (its id is its name unless ``id`` is given).

    Explicit types, when any of ``input`` / ``output`` / ``yields`` is given, replace
    the annotations entirely; ``input`` is then required.
    """
    explicit = None
    if input is not MISSING or output is not MISSING or yields is not MISSING:
        explicit = Explicit(input=input, output=output, yields=yields)

    def wrap(f: Callable[..., Any]) -> FunctionExecutor:
        return FunctionExecutor(id or f.__name__, f, explicit)

    return wrap(fn) if fn is not None else wrap
