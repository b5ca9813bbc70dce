"""The events a run reports: a tagged union of frozen values.

Every event has a ``type`` tag (set by its class) and a ``source``: ``"framework"``
for the engine's own events, ``"executor"`` for what handlers emit. Handlers can
only create :class:`ExecutorEvent` (through ``ctx.emit``): a framework event cannot
be forged. ``match event:`` and ``if event.type == "output":`` both narrow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeAlias, get_origin

import attrs

from agentcore._converter_hooks import when_converter_loaded
from agentcore._equality import fields_eq, fields_hash
from agentcore._repr import fields_repr
from agentcore.workflows._codec import type_key
from agentcore.workflows._requests import PendingRequest

if TYPE_CHECKING:
    import cattrs

__all__ = [
    "DeliveryRecord",
    "DeliveryStatus",
    "EdgeDelivery",
    "EdgeGroupKind",
    "ErrorInfo",
    "EventSource",
    "ExecutorCompleted",
    "ExecutorEvent",
    "ExecutorFailed",
    "ExecutorInvoked",
    "ExecutorReplayed",
    "IntermediateOutput",
    "RequestCancelled",
    "RequestInfo",
    "RunCompleted",
    "RunFailed",
    "RunPaused",
    "RunStarted",
    "SuperstepAborted",
    "SuperstepCompleted",
    "SuperstepStarted",
    "WorkflowEvent",
    "WorkflowOutput",
    "WorkflowWarning",
]


def _is_request(tp: Any) -> bool:
    return (get_origin(tp) or tp) is PendingRequest


def _unstructure_request(request: PendingRequest[Any, Any]) -> dict[str, Any]:
    """A request as JSON for the kernel's converter (``to_json(event)``): its response
    type, a type and not data, is written as its type key, as ``RequestInfoArguments``
    writes it (reading a request back needs the definition's registry:
    ``Workflow.restore``)."""
    from agentcore.serialization import unstructure

    return {
        "id": request.id,
        "executor_id": request.executor_id,
        "data": unstructure(request.data),
        "request_type": type_key(type(request.data)),
        "response_type": type_key(request.response_type),
        "superstep": request.superstep,
        "path": list(request.path),
    }


# A RequestInfo event (and a SubWorkflowRequest message) holds a PendingRequest, whose
# response_type the converter could not write otherwise.
# It is registered when the converter loads (a run that writes no JSON never loads it).
def _register_request_hook(converter: cattrs.Converter) -> None:
    converter.register_unstructure_hook_func(_is_request, _unstructure_request)


when_converter_loaded(_register_request_hook)

EventSource: TypeAlias = Literal["framework", "executor"]
"""Where an event comes from (seed 002's ``WorkflowEventSource``)."""

DeliveryStatus: TypeAlias = Literal[
    "delivered",
    "buffered",
    "dropped_type_mismatch",
    "dropped_condition_false",
    "dropped_target_mismatch",
    "exception",
]
"""What one edge group did with one message (seed 002's ``EdgeGroupDeliveryStatus``)."""

EdgeGroupKind: TypeAlias = Literal["direct", "conditional", "fan_out", "select", "switch", "fan_in"]


@attrs.frozen
class ErrorInfo:
    """An error, described without the exception object."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    error_type: str
    message: str
    executor_id: str | None = None

    @classmethod
    def of(cls, error: BaseException, executor_id: str | None = None) -> ErrorInfo:
        kind = type(error)
        return cls(f"{kind.__module__}.{kind.__qualname__}", str(error), executor_id)


@attrs.frozen
class RunStarted:
    """The first event of every ``run()`` call."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    run_id: str
    workflow: str
    resumed_from: str | None = None
    type: ClassVar[Literal["run_started"]] = "run_started"
    source: ClassVar[EventSource] = "framework"


@attrs.frozen
class SuperstepStarted:
    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    superstep: int
    invocations: int
    type: ClassVar[Literal["superstep_started"]] = "superstep_started"
    source: ClassVar[EventSource] = "framework"


@attrs.frozen
class ExecutorInvoked:
    """A handler is about to run on one message (or one fan-in tuple, or one answer):
    ``message_type`` is the type it was sent as (``"tuple[Draft, ...]"``) and
    ``handler`` the handler's name. ``run(stream=True)`` delivers it when the superstep
    starts its invocations, before any of them finishes."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    executor_id: str
    superstep: int
    ordinal: int
    sources: tuple[str, ...]
    message_type: str = ""
    handler: str = ""
    type: ClassVar[Literal["executor_invoked"]] = "executor_invoked"
    source: ClassVar[EventSource] = "framework"


@attrs.frozen
class ExecutorReplayed:
    """An invocation that finished before its superstep failed is replayed from the
    checkpoint's saved effects instead of running its handler again (in place of
    :class:`ExecutorInvoked`)."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    executor_id: str
    superstep: int
    ordinal: int
    sources: tuple[str, ...]
    type: ClassVar[Literal["executor_replayed"]] = "executor_replayed"
    source: ClassVar[EventSource] = "framework"


@attrs.frozen
class ExecutorCompleted:
    """A handler returned; counts of what it staged."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    executor_id: str
    superstep: int
    ordinal: int
    sent: int
    yielded: int
    requested: int
    type: ClassVar[Literal["executor_completed"]] = "executor_completed"
    source: ClassVar[EventSource] = "framework"


@attrs.frozen
class ExecutorFailed:
    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    executor_id: str
    superstep: int
    ordinal: int
    error: ErrorInfo
    type: ClassVar[Literal["executor_failed"]] = "executor_failed"
    source: ClassVar[EventSource] = "framework"


@attrs.frozen
class ExecutorEvent:
    """What a handler emitted with ``ctx.emit(data, name=...)``."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    executor_id: str
    name: str
    data: Any
    type: ClassVar[Literal["executor_event"]] = "executor_event"
    source: ClassVar[EventSource] = "executor"


@attrs.frozen
class WorkflowOutput:
    """A final output was committed."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    executor_id: str
    data: Any
    superstep: int
    type: ClassVar[Literal["output"]] = "output"
    source: ClassVar[EventSource] = "framework"


@attrs.frozen
class IntermediateOutput:
    """A yield of an executor that is not among the workflow's output executors."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    executor_id: str
    data: Any
    superstep: int
    type: ClassVar[Literal["intermediate"]] = "intermediate"
    source: ClassVar[EventSource] = "framework"


@attrs.frozen
class RequestInfo:
    """A request was committed; the run will pause on it."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    request: PendingRequest[Any, Any]
    type: ClassVar[Literal["request_info"]] = "request_info"
    source: ClassVar[EventSource] = "framework"


@attrs.frozen
class RequestCancelled:
    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    request_id: str
    executor_id: str
    reason: str
    type: ClassVar[Literal["request_cancelled"]] = "request_cancelled"
    source: ClassVar[EventSource] = "framework"


@attrs.frozen
class EdgeDelivery:
    """One routing decision (only with ``verbose_events=True``)."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    superstep: int
    group_id: str
    kind: EdgeGroupKind
    source_id: str
    target_id: str
    message_type: str
    status: DeliveryStatus
    type: ClassVar[Literal["edge_delivery"]] = "edge_delivery"
    source: ClassVar[EventSource] = "framework"


@attrs.frozen
class DeliveryRecord:
    """What ``on_delivery`` observers receive: an :class:`EdgeDelivery` plus the message."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    delivery: EdgeDelivery
    message: Any


@attrs.frozen
class SuperstepCompleted:
    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    superstep: int
    delivered: int
    dropped: int
    type: ClassVar[Literal["superstep_completed"]] = "superstep_completed"
    source: ClassVar[EventSource] = "framework"


@attrs.frozen
class SuperstepAborted:
    """Nothing of this superstep was committed (outputs streamed from it do not count)."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    superstep: int
    reason: Literal["failed", "cancelled", "limit"]
    type: ClassVar[Literal["superstep_aborted"]] = "superstep_aborted"
    source: ClassVar[EventSource] = "framework"


@attrs.frozen
class RunPaused:
    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    run_id: str
    request_ids: tuple[str, ...]
    checkpoint_id: str | None
    type: ClassVar[Literal["run_paused"]] = "run_paused"
    source: ClassVar[EventSource] = "framework"


@attrs.frozen
class RunCompleted:
    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    run_id: str
    supersteps: int
    checkpoint_id: str | None = None
    type: ClassVar[Literal["run_completed"]] = "run_completed"
    source: ClassVar[EventSource] = "framework"


@attrs.frozen
class RunFailed:
    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    run_id: str
    error: ErrorInfo
    checkpoint_id: str | None
    type: ClassVar[Literal["run_failed"]] = "run_failed"
    source: ClassVar[EventSource] = "framework"


@attrs.frozen
class WorkflowWarning:
    """An engine warning: a message no edge took (a dead letter)."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    message: str
    executor_id: str | None = None
    type: ClassVar[Literal["warning"]] = "warning"
    source: ClassVar[EventSource] = "framework"


WorkflowEvent: TypeAlias = (
    RunStarted
    | SuperstepStarted
    | ExecutorInvoked
    | ExecutorReplayed
    | ExecutorCompleted
    | ExecutorFailed
    | ExecutorEvent
    | WorkflowOutput
    | IntermediateOutput
    | RequestInfo
    | RequestCancelled
    | EdgeDelivery
    | SuperstepCompleted
    | SuperstepAborted
    | RunPaused
    | RunCompleted
    | RunFailed
    | WorkflowWarning
)
