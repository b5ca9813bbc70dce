"""The events a run reports: a tagged union of frozen values.

Every event has a ``type`` tag (set by its class) and a ``source``: ``"framework"``
for the engine's own events, ``"executor"`` for what handlers emit. Handlers can
only create :class:`ExecutorEvent` (through ``ctx.emit``): a framework event cannot
be forged. ``match event:`` and ``if event.type == "output":`` both narrow.
"""

from __future__ import annotations

from typing import Any, Literal, TypeAlias

import attrs

from agentcore.workflows._requests import PendingRequest

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

    run_id: str
    workflow: str
    resumed_from: str | None = None
    type: Literal["run_started"] = attrs.field(default="run_started", init=False)
    source: EventSource = attrs.field(default="framework", init=False)


@attrs.frozen
class SuperstepStarted:
    superstep: int
    invocations: int
    type: Literal["superstep_started"] = attrs.field(default="superstep_started", init=False)
    source: EventSource = attrs.field(default="framework", init=False)


@attrs.frozen
class ExecutorInvoked:
    """A handler is about to run on one message (or one fan-in tuple)."""

    executor_id: str
    superstep: int
    ordinal: int
    sources: tuple[str, ...]
    type: Literal["executor_invoked"] = attrs.field(default="executor_invoked", init=False)
    source: EventSource = attrs.field(default="framework", init=False)


@attrs.frozen
class ExecutorCompleted:
    """A handler returned; counts of what it staged."""

    executor_id: str
    superstep: int
    ordinal: int
    sent: int
    yielded: int
    requested: int
    type: Literal["executor_completed"] = attrs.field(default="executor_completed", init=False)
    source: EventSource = attrs.field(default="framework", init=False)


@attrs.frozen
class ExecutorFailed:
    executor_id: str
    superstep: int
    ordinal: int
    error: ErrorInfo
    type: Literal["executor_failed"] = attrs.field(default="executor_failed", init=False)
    source: EventSource = attrs.field(default="framework", init=False)


@attrs.frozen
class ExecutorEvent:
    """What a handler emitted with ``ctx.emit(data, name=...)``."""

    executor_id: str
    name: str
    data: Any
    type: Literal["executor_event"] = attrs.field(default="executor_event", init=False)
    source: EventSource = attrs.field(default="executor", init=False)


@attrs.frozen
class WorkflowOutput:
    """A final output was committed."""

    executor_id: str
    data: Any
    superstep: int
    type: Literal["output"] = attrs.field(default="output", init=False)
    source: EventSource = attrs.field(default="framework", init=False)


@attrs.frozen
class IntermediateOutput:
    """A yield of an executor that is not among the workflow's output executors."""

    executor_id: str
    data: Any
    superstep: int
    type: Literal["intermediate"] = attrs.field(default="intermediate", init=False)
    source: EventSource = attrs.field(default="framework", init=False)


@attrs.frozen
class RequestInfo:
    """A request was committed; the run will pause on it."""

    request: PendingRequest[Any, Any]
    type: Literal["request_info"] = attrs.field(default="request_info", init=False)
    source: EventSource = attrs.field(default="framework", init=False)


@attrs.frozen
class RequestCancelled:
    request_id: str
    executor_id: str
    reason: str
    type: Literal["request_cancelled"] = attrs.field(default="request_cancelled", init=False)
    source: EventSource = attrs.field(default="framework", init=False)


@attrs.frozen
class EdgeDelivery:
    """One routing decision (only with ``verbose_events=True``)."""

    superstep: int
    group_id: str
    kind: EdgeGroupKind
    source_id: str
    target_id: str
    message_type: str
    status: DeliveryStatus
    type: Literal["edge_delivery"] = attrs.field(default="edge_delivery", init=False)
    source: EventSource = attrs.field(default="framework", init=False)


@attrs.frozen
class DeliveryRecord:
    """What ``on_delivery`` observers receive: an :class:`EdgeDelivery` plus the message."""

    delivery: EdgeDelivery
    message: Any


@attrs.frozen
class SuperstepCompleted:
    superstep: int
    delivered: int
    dropped: int
    type: Literal["superstep_completed"] = attrs.field(default="superstep_completed", init=False)
    source: EventSource = attrs.field(default="framework", init=False)


@attrs.frozen
class SuperstepAborted:
    """Nothing of this superstep was committed (outputs streamed from it do not count)."""

    superstep: int
    reason: Literal["failed", "cancelled", "limit"]
    type: Literal["superstep_aborted"] = attrs.field(default="superstep_aborted", init=False)
    source: EventSource = attrs.field(default="framework", init=False)


@attrs.frozen
class RunPaused:
    run_id: str
    request_ids: tuple[str, ...]
    checkpoint_id: str | None
    type: Literal["run_paused"] = attrs.field(default="run_paused", init=False)
    source: EventSource = attrs.field(default="framework", init=False)


@attrs.frozen
class RunCompleted:
    run_id: str
    supersteps: int
    checkpoint_id: str | None = None
    type: Literal["run_completed"] = attrs.field(default="run_completed", init=False)
    source: EventSource = attrs.field(default="framework", init=False)


@attrs.frozen
class RunFailed:
    run_id: str
    error: ErrorInfo
    checkpoint_id: str | None
    type: Literal["run_failed"] = attrs.field(default="run_failed", init=False)
    source: EventSource = attrs.field(default="framework", init=False)


@attrs.frozen
class WorkflowWarning:
    """An engine warning: a message no edge took (a dead letter)."""

    message: str
    executor_id: str | None = None
    type: Literal["warning"] = attrs.field(default="warning", init=False)
    source: EventSource = attrs.field(default="framework", init=False)


WorkflowEvent: TypeAlias = (
    RunStarted
    | SuperstepStarted
    | ExecutorInvoked
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
