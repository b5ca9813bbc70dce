"""The middleware onion: one pipeline shape for the agent, chat and function scopes.

A middleware is an object with ``async def process(context, call_next)`` or a
plain ``async def (context, call_next)``. Work before ``await call_next()`` runs
on the way in, work after it on the way out. Skipping ``call_next()``
short-circuits (set ``context.result``); raising :class:`MiddlewareTermination`
stops the chain and skips the post-processing of the layers outside; any other
exception propagates to the caller.

The scope of a middleware comes from :func:`agent_middleware` /
:func:`chat_middleware` / :func:`function_middleware`, or else from the type
hint of its context parameter. It is worked out once per function or class.
"""

from __future__ import annotations

import inspect
import typing
from collections import OrderedDict
from collections.abc import Callable, Coroutine, Iterable, Sequence
from typing import Any, Literal, TypeAlias, TypeVar

from agentcore.middleware._contexts import AgentContext, ChatContext, FunctionInvocationContext
from agentcore.middleware._shapes import CallNext

__all__ = [
    "MiddlewareTermination",
    "Scope",
    "agent_middleware",
    "chat_middleware",
    "function_middleware",
    "middleware_scope",
]

Scope: TypeAlias = Literal["agent", "chat", "function"]

Handler: TypeAlias = Callable[[Any, CallNext], Coroutine[Any, Any, None]]

_SCOPE_ATTR = "__agentcore_middleware_scope__"
_UNSET: Any = object()
_CONTEXT_SCOPES: tuple[tuple[type[Any], Scope], ...] = (
    (AgentContext, "agent"),
    (ChatContext, "chat"),
    (FunctionInvocationContext, "function"),
)
_class_scopes: dict[type[Any], Scope] = {}

F = TypeVar("F")


class MiddlewareTermination(Exception):
    """Stop the middleware chain now.

    The layers outside the one that raised skip their post-processing. With
    ``result``, that value becomes ``context.result`` of the scope (converted to
    the scope's result type: text or a message becomes a response). Raised in
    function middleware, it also ends the tool loop without another model call.
    """

    def __init__(self, message: str = "", *, result: Any = _UNSET) -> None:
        super().__init__(message)
        self.message = message
        self.result = result

    @property
    def has_result(self) -> bool:
        """Whether a ``result`` was given."""
        return self.result is not _UNSET


def _mark(scope: Scope) -> Callable[[F], F]:
    def decorate(middleware: F) -> F:
        _handler_of(middleware)  # fail early on something that is not a middleware
        if isinstance(middleware, type):
            _class_scopes[middleware] = scope
        else:
            try:
                setattr(middleware, _SCOPE_ATTR, scope)
            except AttributeError:
                raise TypeError(
                    f"cannot mark {middleware!r} as {scope} middleware; decorate its class "
                    "or a function instead"
                ) from None
        return middleware

    return decorate


def agent_middleware(middleware: F) -> F:
    """Mark a function or class as agent middleware (around a whole run)."""
    return _mark("agent")(middleware)


def chat_middleware(middleware: F) -> F:
    """Mark a function or class as chat middleware (around every model call)."""
    return _mark("chat")(middleware)


def function_middleware(middleware: F) -> F:
    """Mark a function or class as function middleware (around every tool call)."""
    return _mark("function")(middleware)


def _not_middleware(middleware: object) -> TypeError:
    return TypeError(
        f"{middleware!r} is not a middleware: give an object with "
        "`async def process(self, context, call_next)` or an `async def (context, call_next)`"
    )


def _check_async(middleware: object, method: object) -> None:
    # A plain `def process` would only fail later, at `await`, far from the mistake.
    if (inspect.isfunction(method) or inspect.ismethod(method)) and not (
        inspect.iscoroutinefunction(method)
    ):
        raise TypeError(
            f"the process method of {middleware!r} must be `async def process(self, context, "
            "call_next)`"
        )


def _handler_of(middleware: object) -> Handler:
    if isinstance(middleware, type):
        process = getattr(middleware, "process", None)
        if not callable(process):
            raise _not_middleware(middleware)
        _check_async(middleware, process)
        return typing.cast("Handler", process)
    process = getattr(middleware, "process", None)
    if process is not None and callable(process):
        _check_async(middleware, process)
        return typing.cast("Handler", process)
    if inspect.iscoroutinefunction(middleware):
        return typing.cast("Handler", middleware)
    if inspect.iscoroutinefunction(type(middleware).__call__):
        return typing.cast("Handler", middleware)
    raise _not_middleware(middleware)


def _scope_from_hints(handler: Callable[..., Any]) -> Scope | None:
    """The scope named by the resolved type hint of the context parameter.

    Raises what ``typing.get_type_hints`` raises when a hint cannot be resolved.
    """
    try:
        params = list(inspect.signature(handler).parameters.values())
    except (TypeError, ValueError):
        return None
    if not params:
        return None
    target: Any = handler
    if not (inspect.isfunction(handler) or inspect.ismethod(handler)):
        # A callable object: the hints are on its class's __call__.
        target = type(handler).__call__
    func = getattr(target, "__func__", target)
    hint = typing.get_type_hints(func).get(params[0].name)
    hint = typing.get_origin(hint) or hint  # AgentContext[Deps] is an AgentContext
    if isinstance(hint, type):
        for context_type, scope in _CONTEXT_SCOPES:
            if issubclass(hint, context_type):
                return scope
    return None


def middleware_scope(middleware: object) -> Scope:
    """The scope of ``middleware``, from its decorator or its context type hint.

    Raises ``TypeError`` naming the middleware when neither tells, or when it is
    not a middleware at all (a class instead of an instance, a sync function).
    """
    if isinstance(middleware, type):
        raise TypeError(
            f"{middleware.__qualname__} is a class; pass an instance of it as middleware "
            f"({middleware.__qualname__}())"
        )
    marked = getattr(middleware, _SCOPE_ATTR, None)
    if marked is not None:
        return typing.cast("Scope", marked)
    cls = type(middleware)
    cached = _class_scopes.get(cls)
    if cached is not None:
        return cached
    handler = _handler_of(middleware)
    problem = ""
    try:
        scope = _scope_from_hints(handler)
    except Exception as exc:
        scope = None
        problem = f" (its type hints could not be resolved: {type(exc).__name__}: {exc})"
    if scope is None:
        raise TypeError(
            f"cannot tell the scope of middleware {middleware!r}{problem}: annotate its "
            "context parameter as AgentContext, ChatContext or FunctionInvocationContext, "
            "or decorate it with @agent_middleware / @chat_middleware / @function_middleware"
        )
    if inspect.isfunction(middleware):
        setattr(middleware, _SCOPE_ATTR, scope)
    elif callable(getattr(cls, "process", None)):
        # An object whose class defines process: the class decides, once.
        _class_scopes[cls] = scope
    return scope


def middleware_list(value: object, where: str) -> tuple[object, ...]:
    """``value`` as a tuple of middleware; a ``TypeError`` for one middleware not in
    a list (or anything else that is not a list)."""
    single = callable(value) or getattr(value, "process", None) is not None
    if single or isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        name = getattr(value, "__name__", None) or type(value).__name__
        raise TypeError(
            f"{where} takes a list of middleware, got {value!r}; wrap it in a list: "
            f"{where}=[{name}]"
        )
    return tuple(typing.cast("Iterable[object]", value))


def _check_handler(middleware: object, handler: Handler, scope: Scope) -> None:
    """Fail now, not at the first run, on a handler that cannot take ``(context,
    call_next)`` or whose context type hint names another scope than its decorator."""
    try:
        signature = inspect.signature(handler)
    except (TypeError, ValueError):
        return  # nothing to check (a builtin)
    try:
        signature.bind(None, None)
    except TypeError:
        raise TypeError(
            f"middleware {middleware!r} needs a call_next parameter: its handler "
            f"{getattr(handler, '__qualname__', handler)}{signature} must take "
            "(context, call_next), and await call_next() to go on"
        ) from None
    try:
        hinted = _scope_from_hints(handler)
    except Exception:
        return  # unresolvable hints: the decorator decides
    if hinted is not None and hinted != scope:
        context_type = next(t for t, s in _CONTEXT_SCOPES if s == hinted).__name__
        raise TypeError(
            f"middleware {middleware!r} is marked as {scope} middleware, but its context "
            f"parameter is typed {context_type} ({hinted} middleware); drop the decorator "
            "or fix the type hint"
        )


class Pipelines:
    """The handlers of each scope, in order (first = outermost)."""

    __slots__ = ("agent", "chat", "function")

    def __init__(
        self,
        agent: tuple[Handler, ...] = (),
        chat: tuple[Handler, ...] = (),
        function: tuple[Handler, ...] = (),
    ) -> None:
        self.agent: tuple[Handler, ...] = agent
        self.chat: tuple[Handler, ...] = chat
        self.function: tuple[Handler, ...] = function

    @classmethod
    def build(cls, middleware: Iterable[object]) -> Pipelines:
        """Sort a mixed list into scopes, keeping order within each."""
        scopes: dict[Scope, list[Handler]] = {"agent": [], "chat": [], "function": []}
        for item in middleware:
            scope = middleware_scope(item)
            handler = _handler_of(item)
            _check_handler(item, handler, scope)
            scopes[scope].append(handler)
        return cls(tuple(scopes["agent"]), tuple(scopes["chat"]), tuple(scopes["function"]))

    def then(self, inner: Pipelines) -> Pipelines:
        """These pipelines outside ``inner``'s (agent-level outside run-level)."""
        if not (inner.agent or inner.chat or inner.function):
            return self
        return Pipelines(
            self.agent + inner.agent, self.chat + inner.chat, self.function + inner.function
        )


class PipelineCache:
    """Pipelines composed once per distinct middleware list (by identity), LRU-bounded."""

    __slots__ = ("_entries", "_size")

    def __init__(self, size: int = 64) -> None:
        self._entries: OrderedDict[tuple[int, ...], tuple[Sequence[object], Pipelines]] = (
            OrderedDict()
        )
        self._size = size

    def get(self, base: Pipelines, middleware: Sequence[object]) -> Pipelines:
        try:
            key = tuple(map(id, middleware))
        except TypeError:
            middleware_list(middleware, "middleware")  # says what was wrong
            raise
        entry = self._entries.get(key)
        if entry is not None:
            self._entries.move_to_end(key)
            return entry[1]
        pipelines = base.then(Pipelines.build(middleware))
        # Keep the middleware objects alive so their ids cannot be reused meanwhile.
        self._entries[key] = (tuple(middleware), pipelines)
        if len(self._entries) > self._size:
            self._entries.popitem(last=False)
        return pipelines


class _CallNext:
    """One layer's ``call_next``: enters the next layer and keeps the coroutine it
    made, so a run can tell afterwards whether it was awaited."""

    __slots__ = ("_context", "_handler", "coroutine", "inner")

    def __init__(self, handler: Handler, context: Any, inner: _CallNext | _CallFinal) -> None:
        self._handler = handler
        self._context = context
        self.inner = inner
        self.coroutine: Coroutine[Any, Any, None] | None = None

    def __call__(self) -> Coroutine[Any, Any, None]:
        # Returns the next layer's coroutine itself: no extra frame per layer.
        self.coroutine = coroutine = self._handler(self._context, self.inner)
        return coroutine


class _CallFinal:
    """The innermost layer's ``call_next``: the operation itself (``final``)."""

    __slots__ = ("_context", "_final", "coroutine")

    inner = None

    def __init__(self, final: Callable[[Any], Coroutine[Any, Any, None]], context: Any) -> None:
        self._final = final
        self._context = context
        self.coroutine: Coroutine[Any, Any, None] | None = None

    def __call__(self) -> Coroutine[Any, Any, None]:
        self.coroutine = coroutine = self._final(self._context)
        return coroutine


def _name(handler: Handler) -> str:
    owner = getattr(handler, "__self__", None)
    if owner is not None and not isinstance(owner, type):
        return type(owner).__qualname__
    return str(getattr(handler, "__qualname__", handler))


def _check_layers(
    handlers: tuple[Handler, ...], outermost: _CallNext | _CallFinal, context: Any
) -> None:
    """After a chain whose final step did not run to its end: say which middleware
    called ``call_next()`` without awaiting it (a ``TypeError``), or warn about one that
    ended the chain without calling it and without setting ``context.result``."""
    call_next: _CallNext | _CallFinal | None = outermost
    for handler in handlers:
        if call_next is None:
            return
        coroutine = call_next.coroutine
        call_next = call_next.inner
        if coroutine is None:
            if context.result is None and not context.terminated:
                import warnings

                warnings.warn(
                    f"middleware {_name(handler)} returned without calling call_next() and "
                    "without setting context.result, so nothing ran after it and the result "
                    "is empty; write `await call_next()` to go on, set context.result to "
                    "answer in its place, or raise MiddlewareTermination to stop on purpose",
                    UserWarning,
                    stacklevel=2,
                )
            return
        if inspect.iscoroutine(coroutine) and (
            inspect.getcoroutinestate(coroutine) == inspect.CORO_CREATED
        ):
            coroutine.close()  # nobody will run it: no "never awaited" warning later
            raise TypeError(
                f"middleware {_name(handler)} called call_next() without awaiting it, so "
                "nothing after it ran; write `await call_next()`"
            )


async def run_pipeline(
    handlers: tuple[Handler, ...],
    context: Any,
    final: Callable[[Any], Coroutine[Any, Any, None]],
    on_termination: Callable[[Any, MiddlewareTermination], None],
) -> None:
    """Run ``handlers`` around ``final``; a termination ends the chain here.

    A middleware that calls ``call_next()`` without awaiting it fails the run with a
    ``TypeError`` naming it; one that returns without calling it and without setting
    ``context.result`` gets a ``UserWarning`` (the result stays empty).
    """
    if not handlers:
        await final(context)
        return
    # Each layer's call_next enters the next layer (the innermost's runs ``final``).
    innermost = _CallFinal(final, context)
    call_next: _CallNext | _CallFinal = innermost
    for index in range(len(handlers) - 1, 0, -1):
        call_next = _CallNext(handlers[index], context, call_next)
    try:
        await handlers[0](context, call_next)
    except MiddlewareTermination as termination:
        on_termination(context, termination)
        return
    coroutine = innermost.coroutine
    # A coroutine that ran to its end has no frame left (an awaitable that is no
    # coroutine cannot be inspected, and is taken as finished).
    if coroutine is None or getattr(coroutine, "cr_frame", None) is not None:
        _check_layers(handlers, call_next, context)
