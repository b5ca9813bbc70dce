"""What a handler may do: :class:`WorkflowContext`, one per invocation.

Everything a handler does through its context is *staged* on the context and
becomes visible to other invocations only at the barrier, where the runner
commits the contexts in ordinal order. The context checks each call where the
mistake is made: a send of an undeclared type, a send to a target no edge
reaches, a yield of an undeclared type, a request with no response handler, a
state of the wrong type, an undeclared shared key.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from collections.abc import Mapping as _Mapping
from typing import TYPE_CHECKING, Any, Generic, Protocol, cast

from typing_extensions import Never, TypeVar

from agentcore._types.contents import FunctionApprovalRequestContent, UserInputRequestContent
from agentcore._types.usage import Usage
from agentcore.workflows._events import ExecutorEvent, IntermediateOutput
from agentcore.workflows._ids import NO_DEPS, IdSource
from agentcore.workflows._requests import (
    GENERATED_PREFIX,
    PendingRequest,
    generated_request_id,
    sub_workflow_messages,
)
from agentcore.workflows._state import Envelope, RunState
from agentcore.workflows._typeexpr import describe, with_article
from agentcore.workflows.errors import WorkflowTypeError

if TYPE_CHECKING:
    from agentcore.workflows._subtypes import SubWorkflowResponse

__all__ = ["ChildOutput", "SharedState", "WorkflowContext"]

SendT = TypeVar("SendT", default=Never)
YieldT = TypeVar("YieldT", default=Never)
DepsT = TypeVar("DepsT", default=Any)
ReqT = TypeVar("ReqT")
RespT = TypeVar("RespT")
StateT = TypeVar("StateT")

_MISSING: Any = object()


class HandlerSpec(Protocol):
    """What a context needs of the handler it serves (``_spec.HandlerSpec``)."""

    def sent_type(self, message: object) -> Any | None: ...
    def may_yield(self, value: object) -> bool: ...
    def describe_sends(self) -> str: ...
    def describe_yields(self) -> str: ...


class _Responses(Protocol):
    def response_handler(self, data: object, response_type: Any) -> object | None: ...


class Node(Protocol):
    """What a context needs of the node it runs on (``_graph.Node``)."""

    @property
    def id(self) -> str: ...
    @property
    def spec(self) -> _Responses: ...
    @property
    def reachable(self) -> frozenset[str]: ...
    @property
    def state_type(self) -> type[Any] | None: ...
    @property
    def max_concurrency(self) -> int: ...
    @property
    def shared_keys(self) -> _Mapping[str, Any]: ...


class Run(Protocol):
    """What a context reads of the run it serves (``_invoke.Invocations``)."""

    @property
    def state(self) -> RunState: ...
    @property
    def streaming(self) -> bool: ...
    @property
    def live(self) -> Callable[[ExecutorEvent], Awaitable[None]] | None: ...


def _address(message: object) -> str | None:
    """A sub-workflow answer goes back to its node; other messages have no address."""
    classes = sub_workflow_messages()
    if classes is not None and isinstance(message, classes[1]):
        answer: SubWorkflowResponse[Any] = cast("Any", message)
        return answer.executor_id
    return None


_QUESTIONS: tuple[type[Any], ...] = (
    FunctionApprovalRequestContent,
    UserInputRequestContent,
)
"""The kernel's request contents: a request of one is named by the content's id."""


class SharedState:
    """The run's shared key/value state: reads see the snapshot committed at the
    previous barrier (plus this invocation's own writes); writes are staged."""

    __slots__ = ("_declared", "_executor_id", "_snapshot", "_writes")

    def __init__(
        self, snapshot: Mapping[str, Any], declared: Mapping[str, Any], executor_id: str
    ) -> None:
        self._snapshot = snapshot
        self._declared = declared
        self._executor_id = executor_id
        self._writes: dict[str, Any] = {}

    def _check(self, key: str) -> None:
        if key not in self._declared:
            known = ", ".join(sorted(self._declared)) or "none"
            raise KeyError(
                f"{self._executor_id!r} used the shared key {key!r}, which the workflow does "
                f"not declare; add builder.add_shared({key!r}, ...) (declared keys: {known})"
            )

    def get(self, key: str, default: Any = None) -> Any:
        """The value committed at the previous barrier (or this invocation's own write);
        before any write and after a delete, the key's declared ``initial`` (``default``
        when that is None)."""
        self._check(key)
        value = self._writes.get(key, _MISSING)
        if value is _MISSING:
            value = self._snapshot.get(key, _MISSING)
        if value is _MISSING or value is _DELETED:
            # never written (or deleted): the value it was declared with (add_shared(initial=))
            initial = getattr(self._declared[key], "initial", None)
            return default if initial is None else initial
        return value

    def set(self, key: str, value: Any) -> None:
        """Stage a write. ``value`` must be JSON-serializable (``TypeError`` naming the key)."""
        self._check(key)
        try:
            json.dumps(value, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"shared key {key!r} must hold a JSON value (dicts, lists, strings, numbers, "
                f"booleans, None): {exc}"
            ) from None
        self._writes[key] = value

    def delete(self, key: str) -> None:
        """Stage removing ``key``."""
        self._check(key)
        self._writes[key] = _DELETED


_DELETED: Any = type("_Deleted", (), {"__repr__": lambda self: "<deleted>"})()


class ChildOutput:
    """A sub-workflow's intermediate output, staged by its node among the node's own
    outputs (a node yields nothing else): the barrier commits ``event`` (attributed
    ``node/executor``) to the run's intermediate outputs and events, the same object a
    stream may have delivered live."""

    __slots__ = ("event",)

    def __init__(self, event: IntermediateOutput) -> None:
        self.event = event

    def __repr__(self) -> str:
        return f"ChildOutput({self.event!r})"


class WorkflowContext(Generic[SendT, YieldT, DepsT]):
    """What a handler may do. ``SendT`` is what it sends, ``YieldT`` what it yields
    as workflow output; both default to ``Never`` (sends / yields nothing). ``DepsT``
    types :attr:`deps` (``WorkflowContext[S, Y, Deps]``, as ``ToolContext[Deps]``).

    Nothing a handler stages is visible to other invocations before the barrier.
    """

    __slots__ = (
        "_env",
        "_events",
        "_handler",
        "_ids",
        "_node",
        "_outputs",
        "_requests",
        "_run",
        "_sends",
        "_shared",
        "_state",
        "_state_set",
        "_usage",
        "executor_id",
        "ordinal",
        "superstep",
    )

    def __init__(
        self,
        node: Node,
        handler: HandlerSpec,
        run: Run,
        env: Envelope,
        superstep: int,
        ordinal: int,
        state: Any,
    ) -> None:
        # What the run and the message already hold is read from them when asked
        # (run_id, sources, the request answered, ...), not copied here: a context is
        # made per invocation, 10,000 of them in one superstep of a wide fan-out.
        self._node = node
        self._handler = handler
        self._run = run
        self._env = env
        self._ids: IdSource | None = None
        self.executor_id: str = node.id
        self.superstep: int = superstep
        self.ordinal: int = ordinal
        self._state = state
        self._state_set = False
        self._shared: SharedState | None = None
        self._sends: list[tuple[Any, Any, str | None]] = []
        # Most invocations yield, request and emit nothing: these three start as the
        # shared empty tuple and become lists on first use (a 10,000-way fan-out then
        # leaves 30,000 fewer objects for the garbage collector to walk; see
        # docs/performance.md, "Workflows").
        self._outputs: list[Any] | tuple[()] = ()
        self._requests: list[tuple[PendingRequest[Any, Any], Any]] | tuple[()] = ()
        self._events: list[ExecutorEvent] | tuple[()] = ()
        self._usage: Usage | None = None

    @property
    def run_id(self) -> str:
        return self._run.state.run_id

    @property
    def sources(self) -> tuple[str, ...]:
        """Ids of the executors whose messages this invocation handles (several for a fan-in)."""
        return self._env.sources

    @property
    def streaming(self) -> bool:
        """Whether the run is streamed (``run(stream=True)`` or ``open_run``)."""
        return self._run.streaming

    @property
    def request_id(self) -> str | None:
        """The answered request's id, in a response handler; else ``None``."""
        entry = self._env.request
        return None if entry is None else entry.request.id

    @property
    def request_context(self) -> Any:
        """The ``context`` given to ``request``, in a response handler; else ``None``."""
        entry = self._env.request
        return None if entry is None else entry.context

    @property
    def _live(self) -> Callable[[ExecutorEvent], Awaitable[None]] | None:
        """Where emitted events go at once (``open_run``), besides the run's events."""
        return self._run.live

    @property
    def _deps(self) -> Any:
        """The call's deps, or ``NO_DEPS``."""
        return self._run.state.call.deps

    @property
    def deps(self) -> DepsT:
        """The dependencies the call that started (or resumed) the run gave with
        ``run(..., deps=...)``: a database handle, an HTTP client, the current user.
        Never saved in checkpoints: a resumed run has the ``deps`` of the call that
        resumes it. ``LookupError`` when that call gave none."""
        deps = self._deps
        if deps is NO_DEPS:
            raise LookupError(
                f"{self.executor_id!r} asked for deps, but this run has none: pass them to the "
                f"call that starts or resumes the run, workflow.run(..., deps=...)"
            )
        typed: DepsT = deps
        return typed

    # -- messages and outputs ------------------------------------------------------------

    async def send(self, message: SendT, *, target: str | None = None) -> None:
        """Stage ``message`` for the next superstep, along this executor's edges.

        Raises :class:`WorkflowTypeError` when the message's type is not one this
        handler declared, or when no edge of this executor reaches ``target``.
        """
        self._stage_send(message, target)

    def _stage_send(self, message: object, target: str | None) -> None:
        if target is None:
            target = _address(message)
        declared = self._handler.sent_type(message)
        if declared is None:
            raise WorkflowTypeError(
                f"{self.executor_id!r} sent {with_article(type(message).__qualname__)}, but its "
                f"handler "
                f"declares it sends {self._handler.describe_sends()}; declare the type in "
                f"WorkflowContext[...] (or the return annotation), or send one of those"
            )
        if target is not None and target not in self._node.reachable:
            reach = ", ".join(sorted(self._node.reachable)) or "nothing"
            raise WorkflowTypeError(
                f"{self.executor_id!r} sent to target {target!r}, which none of its edges "
                f"reaches (its edges reach: {reach}); add an edge to {target!r}"
            )
        self._sends.append((message, declared, target))

    async def yield_output(self, value: YieldT) -> None:
        """Stage a workflow output (final or intermediate, per ``outputs_from``)."""
        if not self._handler.may_yield(value):
            raise WorkflowTypeError(
                f"{self.executor_id!r} yielded {with_article(type(value).__qualname__)}, but "
                f"its handler "
                f"declares it yields {self._handler.describe_yields()}; declare it as the "
                f"second parameter of WorkflowContext[...]"
            )
        if isinstance(self._outputs, list):
            self._outputs.append(value)
        else:
            self._outputs = [value]

    def _stage_event(self, event: ExecutorEvent) -> None:
        """Stage ``event`` in the run's events (delivered at the barrier)."""
        if isinstance(self._events, list):
            self._events.append(event)
        else:
            self._events = [event]

    def _stage_child_output(self, event: IntermediateOutput) -> None:
        """Stage a sub-workflow's intermediate output (``ChildOutput``)."""
        if isinstance(self._outputs, list):
            self._outputs.append(ChildOutput(event))
        else:
            self._outputs = [ChildOutput(event)]

    async def emit(self, data: Any, *, name: str = "custom") -> None:
        """Stage an :class:`ExecutorEvent` (source ``"executor"``); under ``open_run``
        it also reaches the consumer at once."""
        await self._emit(ExecutorEvent(self.executor_id, name, data))

    async def _emit(self, event: ExecutorEvent) -> None:
        self._stage_event(event)
        live = self._run.live
        if live is not None:
            await live(event)

    def add_usage(self, usage: Usage | None) -> None:
        """Count tokens spent on the run's behalf; they add to the run's ``usage`` when
        this superstep commits (agent executors count their agent's usage themselves)."""
        if usage is not None:
            self._usage = usage if self._usage is None else self._usage + usage

    def _id_source(self) -> IdSource:
        """Where the ids this invocation makes come from (child runs, agent sessions'
        requests): derived from the run's id source, the same on every schedule."""
        ids = self._ids
        if ids is None:
            call = self._run.state.call
            ids = self._ids = call.for_invocation(self.run_id, self.superstep, self.ordinal)
        return ids

    # -- requests ------------------------------------------------------------------------

    async def request(
        self,
        data: ReqT,
        response_type: type[RespT],
        *,
        context: Any = None,
        request_id: str | None = None,
    ) -> PendingRequest[ReqT, RespT]:
        """Ask the outside for a ``response_type``. The handler continues and returns;
        the answer goes to this executor's response handler for the pair.

        Raises :class:`WorkflowTypeError` at once unless this executor has a response
        handler for ``(type(data), response_type)``. ``context`` (a JSON value) is kept
        with the request and handed back to the response handler as ``request_context``.

        ``request_id`` names the request (an approval or user-input request content is
        named by its own ``id`` unless given one), so the question keeps one id up to
        the caller, through a workflow agent too; the run gives it another only when a
        pending request already has that id. Left out, the run names it.
        """
        if request_id is None and isinstance(data, _QUESTIONS):
            request_id = cast("Any", data).id
        return self._stage_request(data, response_type, context, request_id)

    def _stage_request(
        self, data: ReqT, response_type: type[RespT], context: Any, preferred: str | None
    ) -> PendingRequest[ReqT, RespT]:
        """:meth:`request`, under the id ``preferred`` when one is given (an agent
        executor passes its agent's approval or input request id, design §3.10). An id
        of the engine's own form (``req_...``) is not taken (a request the engine names
        later could get the same); one that a pending request of the run already holds
        is replaced at the barrier by the generated id (``unique_request``), so the
        request returned here may be renamed there."""
        if self._node.spec.response_handler(data, response_type) is None:
            raise WorkflowTypeError(
                f"{self.executor_id!r} requested {with_article(describe(response_type))} for "
                f"{with_article(type(data).__qualname__)}, but it has no response handler for "
                f"that pair; "
                f"add a @response_handler taking ({type(data).__qualname__}, "
                f"{describe(response_type)})"
            )
        if context is not None:
            try:
                json.dumps(context, allow_nan=False)
            except (TypeError, ValueError) as exc:
                raise TypeError(f"a request's context must be a JSON value: {exc}") from None
        request_id = generated_request_id(self.superstep, self.ordinal, len(self._requests))
        if preferred is not None and not preferred.startswith(GENERATED_PREFIX):
            request_id = preferred
        request: PendingRequest[ReqT, RespT] = PendingRequest(
            request_id, self.executor_id, data, response_type, self.superstep
        )
        if isinstance(self._requests, list):
            self._requests.append((request, context))
        else:
            self._requests = [(request, context)]
        return request

    # -- state ---------------------------------------------------------------------------

    def get_state(self, cls: type[StateT]) -> StateT | None:
        """This executor's state in this run: what this invocation staged, else the
        committed value, else ``None``."""
        state = self._state
        if state is None:
            return None
        if not isinstance(state, cls):
            raise WorkflowTypeError(
                f"{self.executor_id!r} holds {with_article(type(state).__qualname__)} state, not "
                f"{with_article(cls.__qualname__)}"
            )
        return state

    def set_state(self, value: object) -> None:
        """Stage this executor's new state, an instance of its declared ``state_type``."""
        node = self._node
        if node.state_type is None:
            raise WorkflowTypeError(
                f"{self.executor_id!r} has no declared state type; pass state_type= to "
                f"builder.add(...) or give the class a state_type attribute"
            )
        if not isinstance(value, node.state_type):
            raise WorkflowTypeError(
                f"{self.executor_id!r} state must be "
                f"{with_article(node.state_type.__qualname__)}, got "
                f"{type(value).__qualname__}"
            )
        if node.max_concurrency > 1 and self.request_id is None:
            raise WorkflowTypeError(
                f"{self.executor_id!r} runs up to {node.max_concurrency} invocations at once, "
                f"so its message handlers may read state but not write it; keep what an "
                f"answer needs in ctx.request(..., context=...)"
            )
        self._state = value
        self._state_set = True

    @property
    def shared(self) -> SharedState:
        """The run's shared state (declared keys only)."""
        if self._shared is None:
            snapshot = self._run.state.shared  # committed at the previous barrier
            self._shared = SharedState(snapshot, self._node.shared_keys, self.executor_id)
        return self._shared
