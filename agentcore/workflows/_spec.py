"""Reading an executor once, when it is added: what it accepts, sends, yields and asks.

Three conveniences make an executor, none needing a base class:

- ``@executor`` on a function (``FunctionExecutor``): ``async def f(message: In,
  ctx: WorkflowContext[S, Y])`` or ``async def f(message: In) -> Out`` (the return
  value is sent);
- ``@handler`` / ``@response_handler`` on methods of a plain class with an ``id``;
- any object with an ``id`` and ``async def handle(self, message, ctx)``.

Types come from the annotations (resolved with ``typing.get_type_hints``, so
``from __future__ import annotations`` works) or, in *explicit mode*, only from
the decorator's keywords. The result is an immutable :class:`ExecutorSpec`.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, cast, get_args, get_origin

from agentcore.workflows._context import WorkflowContext
from agentcore.workflows._decorators import (
    HANDLER_MARK,
    MISSING,
    RESPONSE_MARK,
    Explicit,
    FunctionExecutor,
    executor,
    handler,
    response_handler,
)
from agentcore.workflows._overlaps import refuse_duplicates
from agentcore.workflows._reads import Body, Read, lookup, remember
from agentcore.workflows._typeexpr import (
    class_decides,
    compatible,
    conforms,
    describe,
    exact_class_wins,
    has_typevar,
    matches,
    members,
    most_specific,
    union_of,
)
from agentcore.workflows.errors import WorkflowBuildError

__all__ = [
    "ExecutorSpec",
    "FunctionExecutor",
    "HandlerSpec",
    "ResponseSpec",
    "executor",
    "handler",
    "read_executor",
    "response_handler",
]

_NONE = type(None)


# -- specs -------------------------------------------------------------------------------


# The specs are plain classes: read once per executor, compared by identity and never
# serialized, they need none of the methods attrs would compile for them when the package
# is imported (design §10's import budget). Nothing writes them once read.


class HandlerSpec:
    """One message handler: what it accepts, sends and yields, and how to call it:
    ``call(message, ctx)``, or ``call(message)`` when it takes no context (``with_ctx``
    false: a function's own, with no wrapper to drop the context)."""

    __slots__ = (
        "_input_cache",
        "_send_cache",
        "_yield_cache",
        "call",
        "inputs",
        "name",
        "returns_send",
        "sends",
        "with_ctx",
        "yields",
    )

    def __init__(
        self,
        name: str,
        call: Callable[..., Awaitable[Any]],
        inputs: tuple[Any, ...],
        sends: tuple[Any, ...],
        yields: tuple[Any, ...],
        returns_send: bool,
        send_cache: dict[type[Any], Any] | None = None,
        yield_cache: dict[type[Any], bool] | None = None,
        input_cache: dict[type[Any], Any] | None = None,
        with_ctx: bool = True,
    ) -> None:
        self.name: str = name
        self.call: Callable[..., Awaitable[Any]] = call
        self.inputs: tuple[Any, ...] = inputs
        self.sends: tuple[Any, ...] = sends
        self.yields: tuple[Any, ...] = yields
        self.returns_send: bool = returns_send
        self._send_cache: dict[type[Any], Any] = {} if send_cache is None else send_cache
        self._yield_cache: dict[type[Any], bool] = {} if yield_cache is None else yield_cache
        self._input_cache: dict[type[Any], Any] = {} if input_cache is None else input_cache
        self.with_ctx: bool = with_ctx

    def __repr__(self) -> str:
        return (
            f"HandlerSpec(name={self.name!r}, inputs={self.inputs!r}, sends={self.sends!r}, "
            f"yields={self.yields!r}, returns_send={self.returns_send!r})"
        )

    def sent_type(self, message: object) -> Any | None:
        """The declared send type ``message`` is (``None``: not declared): the most
        specific one it conforms to, elements included; cached per class when the class
        alone decides."""
        cls = type(message)
        cached = self._send_cache.get(cls, MISSING)
        if cached is not MISSING:
            return cached
        found = None
        for tp in self.sends:
            if tp is cls:
                found = tp
                break
        if found is None:
            found = _pick(message, self.sends)
        if all(class_decides(tp) for tp in self.sends if matches(message, tp)):
            self._send_cache[cls] = found  # a pure cache: the answer depends only on cls
        return found

    def may_yield(self, value: object) -> bool:
        cls = type(value)
        known = self._yield_cache.get(cls)
        if known is not None:
            return known
        ok = any(conforms(value, tp) for tp in self.yields)
        if all(class_decides(tp) for tp in self.yields):
            self._yield_cache[cls] = ok  # a pure cache: the answer depends only on cls
        return ok

    def declared_input(self, message: object) -> Any:
        """The input type ``message`` is accepted as (its class when none matches)."""
        cls = type(message)
        known = self._input_cache.get(cls)
        if known is not None:
            return known
        if exact_class_wins(cls, self.inputs):
            self._input_cache[cls] = cls  # a pure cache: the answer depends only on cls
            return cls
        found = _pick(message, self.inputs)
        if found is None:
            found = cls
        if all(class_decides(tp) for tp in self.inputs if matches(message, tp)):
            self._input_cache[cls] = found  # a pure cache: the answer depends only on cls
        return found

    def describe_sends(self) -> str:
        return " | ".join(describe(t) for t in self.sends) or "nothing"

    def describe_yields(self) -> str:
        return " | ".join(describe(t) for t in self.yields) or "nothing"


class ResponseSpec:
    """One response handler, for answers of type ``response`` to requests of type ``request``."""

    __slots__ = ("call", "handler", "name", "request", "response")

    def __init__(
        self,
        name: str,
        call: Callable[[Any, Any, Any], Awaitable[Any]],
        request: Any,
        response: Any,
        handler: HandlerSpec,  # what the response handler may send and yield
    ) -> None:
        self.name: str = name
        self.call: Callable[[Any, Any, Any], Awaitable[Any]] = call
        self.request: Any = request
        self.response: Any = response
        self.handler: HandlerSpec = handler

    def __repr__(self) -> str:
        return (
            f"ResponseSpec(name={self.name!r}, request={self.request!r}, "
            f"response={self.response!r})"
        )


class ExecutorSpec:
    """What the builder knows about one executor, read once."""

    __slots__ = (
        "_dispatch",
        "handlers",
        "id",
        "inputs",
        "obj",
        "responses",
        "sends",
        "state_type",
        "yields",
    )

    def __init__(
        self,
        id: str,  # the executor's id, as everywhere in the package
        obj: object,
        handlers: tuple[HandlerSpec, ...],
        responses: tuple[ResponseSpec, ...],
        state_type: type[Any] | None,
    ) -> None:
        self.id: str = id
        self.obj: object = obj
        self.handlers: tuple[HandlerSpec, ...] = handlers
        self.responses: tuple[ResponseSpec, ...] = responses
        self.state_type: type[Any] | None = state_type
        self._dispatch: dict[type[Any], HandlerSpec] = {}
        # computed once from the fields above
        self.inputs: tuple[Any, ...]
        self.sends: tuple[Any, ...]
        self.yields: tuple[Any, ...]
        if len(handlers) == 1 and not responses:
            # one handler (most executors): its own tuples, already free of duplicates
            only = handlers[0]
            self.inputs, self.sends, self.yields = only.inputs, only.sends, only.yields
        else:
            merged_sends: list[Any] = []
            merged_yields: list[Any] = []
            for h in (*handlers, *(r.handler for r in responses)):
                merged_sends.extend(t for t in h.sends if t not in merged_sends)
                merged_yields.extend(t for t in h.yields if t not in merged_yields)
            self.inputs = tuple(t for h in handlers for t in h.inputs)
            self.sends, self.yields = tuple(merged_sends), tuple(merged_yields)

    def __repr__(self) -> str:
        return f"ExecutorSpec(id={self.id!r}, handlers={self.handlers!r})"

    def accepts(self, tp: Any) -> bool:
        """Whether some handler accepts values declared as ``tp``."""
        return any(compatible(tp, accepted) for accepted in self.inputs)

    def handler_for(self, message: object) -> HandlerSpec | None:
        """The handler for ``message``: of the input types it conforms to (elements of
        containers included), the most specific (``_typeexpr.most_specific``); a tie
        left by build's ambiguity check (an empty container) goes to the handler
        declared first. Cached per class when the class alone decides."""
        cls = type(message)
        found = self._dispatch.get(cls)
        if found is not None:
            return found
        handlers = self.handlers
        if len(handlers) == 1:
            only = handlers[0]
            if any(tp is cls for tp in only.inputs):
                self._dispatch[cls] = only
                return only
        owners: list[HandlerSpec] = []
        types: list[Any] = []
        decided = True
        for h in handlers:
            for tp in h.inputs:
                if matches(message, tp):
                    decided = decided and class_decides(tp)
                    if conforms(message, tp):
                        owners.append(h)
                        types.append(tp)
        best = most_specific(message, types)
        if best:
            found = min((owners[i] for i in best), key=_declared_at)
        if found is not None and decided:
            self._dispatch[cls] = found  # a pure cache: the answer depends only on cls
        return found

    def response_handler(self, data: object, response_type: Any) -> ResponseSpec | None:
        """The response handler for answers of ``response_type`` to ``data``: of the
        pairs whose request type ``data`` conforms to and whose response type takes a
        ``response_type``, the most specific request, then the narrowest response
        (``(Ask, bool)`` before ``(Ask, int)`` for a ``bool`` answer)."""
        fitting = [
            r
            for r in self.responses
            if conforms(data, r.request) and compatible(response_type, r.response)
        ]
        if len(fitting) < 2:
            return fitting[0] if fitting else None
        near = [fitting[i] for i in most_specific(data, [r.request for r in fitting])]
        narrow = [
            r
            for r in near
            if not any(
                o is not r
                and compatible(o.response, r.response)
                and not compatible(r.response, o.response)
                for o in near
            )
        ]
        return min(narrow or near, key=_declared_at)


def _pick(value: object, types: Sequence[Any]) -> Any | None:
    """The most specific of ``types`` that ``value`` conforms to (the first declared of
    equally specific ones), or ``None``."""
    fitting = [tp for tp in types if conforms(value, tp)]
    if len(fitting) < 2:
        return fitting[0] if fitting else None
    return fitting[most_specific(value, fitting)[0]]


def _declared_at(spec: HandlerSpec | ResponseSpec) -> tuple[str, int]:
    """Where a handler is written (file, first line): the order a tie is broken by,
    so renaming a method never changes which handler runs."""
    code = getattr(getattr(spec.call, "__func__", spec.call), "__code__", None)
    if code is None:
        return ("", 0)
    return (code.co_filename, code.co_firstlineno)


# -- reading -----------------------------------------------------------------------------


def _hints(fn: Callable[..., Any], owner: str) -> dict[str, Any]:
    target = getattr(fn, "__func__", fn)
    try:
        return typing.get_type_hints(target, include_extras=True)
    except Exception as exc:
        raise WorkflowBuildError(
            [f"{owner}: cannot resolve the annotations of {target.__qualname__}: {exc}"]
        ) from exc


def _resolve(value: Any, fn: Callable[..., Any]) -> Any:
    """An explicit type: strings resolve against the function's globals; a tuple or
    list of types is their union."""
    if isinstance(value, str):
        target = getattr(fn, "__func__", fn)
        return typing._eval_type(  # type: ignore[attr-defined]  # the resolver get_type_hints uses, for one string
            typing.ForwardRef(value), getattr(target, "__globals__", {}), None
        )
    if isinstance(value, (tuple, list)):
        return union_of([_resolve(v, fn) for v in cast("Sequence[Any]", value)])
    return value


def _explicit_members(value: Any, fn: Callable[..., Any]) -> tuple[Any, ...]:
    if value is MISSING or value is None or (isinstance(value, (tuple, list)) and not value):
        return ()
    return tuple(m for m in members(_resolve(value, fn)) if m is not _NONE)


def _context_types(annotation: Any) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    if annotation is WorkflowContext:
        return (), ()
    if get_origin(annotation) is WorkflowContext:
        args = get_args(annotation)
        sends = members(args[0]) if args else ()
        yields = members(args[1]) if len(args) > 1 else ()
        return tuple(t for t in sends if t is not _NONE), tuple(t for t in yields if t is not _NONE)
    return (), ()


def _read_callable(
    fn: Callable[..., Any],
    owner: str,
    explicit: Explicit | None,
    *,
    arity: int,
) -> tuple[tuple[Any, ...], ...]:
    """Types of a handler taking ``arity`` data parameters then an optional ctx:
    the data parameters' types, then sends, then yields."""
    params = [
        p
        for p in inspect.signature(fn).parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    name = _name(fn)
    if len(params) < arity:
        raise WorkflowBuildError([f"{owner}: {name} must take {arity} argument(s) before ctx"])
    if explicit is not None:
        return ((), _explicit_members(explicit.output, fn), _explicit_members(explicit.yields, fn))
    hints = _hints(fn, owner)
    data: list[tuple[Any, ...]] = []
    for p in params[:arity]:
        if p.name not in hints:
            raise WorkflowBuildError(
                [
                    f"{owner}: parameter {p.name!r} of {name} has no annotation; annotate it "
                    f"or give the types to the decorator (explicit mode)"
                ]
            )
        data.append(members(hints[p.name]))
    sends: tuple[Any, ...] = ()
    yields: tuple[Any, ...] = ()
    if len(params) > arity:
        sends, yields = _context_types(hints.get(params[arity].name))
    returned = hints.get("return")
    if returned is not None and returned is not _NONE:
        extra = tuple(t for t in members(returned) if t is not _NONE and t not in sends)
        sends = sends + extra
    return (*data, sends, yields)


def _check_resolved(owner: str, name: str, types: Sequence[Any]) -> None:
    for tp in types:
        if has_typevar(tp):
            raise WorkflowBuildError(
                [
                    f"{owner}: {name} uses the type variable in {describe(tp)}, which cannot "
                    f"be checked; give concrete types to the decorator (explicit mode), e.g. "
                    f"@handler(input=..., output=...)"
                ]
            )


def _name(fn: Callable[..., Any]) -> str:
    return getattr(fn, "__qualname__", None) or repr(fn)


def _message_call(fn: Callable[..., Any], takes_ctx: bool, is_async: bool) -> Callable[..., Any]:
    """How to call a message handler: an async one as it is (with or without the
    context, ``HandlerSpec.with_ctx``), a sync one in a worker thread."""
    if is_async:
        return fn
    if takes_ctx:
        raise WorkflowBuildError(
            [
                f"{getattr(fn, '__qualname__', fn)} takes a ctx but is not async; a handler "
                f"that uses ctx must be async def"
            ]
        )

    async def in_thread(message: Any, ctx: Any) -> Any:
        # anyio's thread machinery (anyio's core, sniffio, textwrap) loads with the first
        # sync handler's call, not with ``import agentcore.workflows``
        import anyio.to_thread

        return await anyio.to_thread.run_sync(fn, message)

    return in_thread


def _handler_spec(
    fn: Callable[..., Any], owner: str, explicit: Explicit | None, *, returns_send: bool
) -> HandlerSpec:
    name = _name(fn)
    found = lookup(fn, explicit)
    read = found if isinstance(found, Read) else _read_handler(fn, owner, explicit, found)
    return HandlerSpec(
        name,
        _message_call(fn, read.takes_ctx, read.is_async),
        read.inputs,
        read.sends,
        read.yields,
        returns_send,
        read.send_cache,
        read.yield_cache,
        read.input_cache,
        with_ctx=read.takes_ctx or not read.is_async,
    )


def _read_handler(
    fn: Callable[..., Any], owner: str, explicit: Explicit | None, body: Body | None
) -> Read:
    """Read a message handler's types (once per function body, see ``_reads``)."""
    name = _name(fn)
    inputs, sends, yields = _read_callable(fn, owner, explicit, arity=1)
    if explicit is not None:
        if explicit.input is MISSING or explicit.input is None:
            raise WorkflowBuildError(
                [
                    f"{owner}: {name} is in explicit mode (types given to the decorator), so "
                    f"input= is required"
                ]
            )
        inputs = tuple(m for m in members(_resolve(explicit.input, fn)))
    _check_resolved(owner, name, (*inputs, *sends, *yields))
    takes_ctx = (
        len(
            [
                p
                for p in inspect.signature(fn).parameters.values()
                if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
            ]
        )
        >= 2
    )
    is_async = body.is_async if body is not None else inspect.iscoroutinefunction(fn)
    read = Read(body, inputs, sends, yields, takes_ctx, is_async)
    remember(read)
    return read


def _response_spec(fn: Callable[..., Any], owner: str, explicit: Explicit) -> ResponseSpec:
    name = _name(fn)
    if not inspect.iscoroutinefunction(fn):
        raise WorkflowBuildError([f"{owner}: response handler {name} must be async def"])
    if (
        explicit.request is not MISSING
        or explicit.response is not MISSING
        or (explicit.output is not MISSING or explicit.yields is not MISSING)
    ):
        if explicit.request is MISSING or explicit.response is MISSING:
            raise WorkflowBuildError(
                [
                    f"{owner}: response handler {name} is in explicit mode, so both request= "
                    f"and response= are required"
                ]
            )
        request, response = _resolve(explicit.request, fn), _resolve(explicit.response, fn)
        sends = _explicit_members(explicit.output, fn)
        yields = _explicit_members(explicit.yields, fn)
    else:
        req, resp, sends, yields = _read_callable(fn, owner, None, arity=2)
        request, response = union_of(req), union_of(resp)
    _check_resolved(owner, name, (request, response, *sends, *yields))
    as_handler = HandlerSpec(name, fn, (request,), sends, yields, returns_send=False)
    return ResponseSpec(name, fn, request, response, as_handler)


def _declared_types(obj: object, fn: Callable[..., Any]) -> Explicit | None:
    """Explicit ``input_types`` / ``output_types`` / ``yield_types`` attributes."""
    names = ("input_types", "output_types", "yield_types")
    if not any(hasattr(obj, n) for n in names):
        return None
    return Explicit(
        input=tuple(getattr(obj, "input_types", ())) or MISSING,
        output=tuple(getattr(obj, "output_types", ())),
        yields=tuple(getattr(obj, "yield_types", ())),
    )


def _members(cls: type[Any]) -> list[tuple[str, object]]:
    """The attributes of ``cls`` as ``inspect.getattr_static`` finds them (the first class
    of the MRO that defines a name, no descriptor run), in ``dir`` order. Read from the
    classes' own dictionaries in one pass: ``getattr_static`` walks the MRO again for each
    of the ~30 names a class with one handler has, half the cost of building a small
    workflow of classes."""
    found: dict[str, object] = {}
    for klass in cls.__mro__:
        for name, member in vars(klass).items():
            found.setdefault(name, member)
    return sorted(found.items(), key=lambda item: item[0])


def read_executor(
    obj: object, *, id: str | None = None, state_type: type[Any] | None = None
) -> ExecutorSpec:
    """Read ``obj`` as an executor (``TypeError`` naming it when it is not one)."""
    if isinstance(obj, FunctionExecutor):
        ident = id or obj.id
        h = _handler_spec(obj.fn, repr(ident), obj.explicit, returns_send=True)
        return ExecutorSpec(ident, obj, (h,), (), state_type)
    if inspect.isfunction(obj) or inspect.ismethod(obj):
        return read_executor(
            FunctionExecutor(id or obj.__name__, obj), id=id, state_type=state_type
        )
    given: object = id or getattr(obj, "id", None)
    if not isinstance(given, str) or not given:
        raise TypeError(
            f"{obj!r} is not an executor: it needs an id (a str attribute `id`, or id= "
            f"when added) and either async handle(message, ctx) or @handler methods"
        )
    ident = given
    owner = repr(ident)
    state = state_type or getattr(obj, "state_type", None)
    cls = type(obj)
    handlers: list[HandlerSpec] = []
    responses: list[ResponseSpec] = []
    for attr, member in _members(cls):
        if isinstance(member, (staticmethod, classmethod)):
            continue
        marked = getattr(member, HANDLER_MARK, None)
        if marked is not None:
            explicit = marked if marked != Explicit() else None
            handlers.append(_handler_spec(getattr(obj, attr), owner, explicit, returns_send=True))
        answered = getattr(member, RESPONSE_MARK, None)
        if answered is not None:
            responses.append(_response_spec(getattr(obj, attr), owner, answered))
    if not handlers:
        handle = getattr(obj, "handle", None)
        if handle is None or not callable(handle):
            raise TypeError(
                f"{obj!r} is not an executor: give it async handle(self, message, ctx) or "
                f"@handler methods"
            )
        handlers.append(
            _handler_spec(handle, owner, _declared_types(obj, handle), returns_send=False)
        )
    forwarded = getattr(obj, "forwarded_pairs", ())
    if forwarded:  # a sub-workflow node answering its child's requests for the caller
        node: Any = obj
        answer: Callable[..., Any] = node.answer_child
        for request, response, sends in forwarded:
            explicit = Explicit(request=request, response=response, output=sends)
            responses.append(_response_spec(answer, owner, explicit))
    refuse_duplicates(owner, handlers, responses)
    return ExecutorSpec(ident, obj, tuple(handlers), tuple(responses), state)
