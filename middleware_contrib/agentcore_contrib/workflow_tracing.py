"""OpenTelemetry spans for workflow routing decisions.

``WorkflowTracer`` is a workflow observer (``WorkflowBuilder(observers=[...])``): each
routing decision becomes a ``workflow.edge_group`` span, a child of whatever span is
current when the run commits its superstep, with the delivery status among seed 002's
six (``delivered``, ``buffered``, ``dropped_type_mismatch``,
``dropped_condition_false``, ``dropped_target_mismatch``, ``exception``):

- ``agentcore.workflow.name``, ``agentcore.workflow.superstep``,
  ``agentcore.workflow.executor.id`` (the sender), ``agentcore.workflow.target.id``,
  ``agentcore.workflow.message.type``;
- ``agentcore.workflow.edge_group.id``, ``agentcore.workflow.edge_group.kind``,
  ``agentcore.workflow.edge_group.delivered`` (bool),
  ``agentcore.workflow.edge_group.delivery_status``;
- ``agentcore.workflow.event.source`` (always ``framework``: the engine decides routes).

An ``exception`` decision (a condition or selection function raised) sets the span's
status to error. The message itself (its ``repr``) is recorded only with
``include_sensitive_data=True``. Needs the ``otel`` extra (``opentelemetry-api``).
"""

from __future__ import annotations

try:
    from opentelemetry import trace
except ImportError as _missing:  # pragma: no cover  # exercised with the import blocked
    raise ImportError(
        "agentcore_contrib.workflow_tracing needs OpenTelemetry: "
        "pip install 'agentcore-framework[otel]'"
    ) from _missing

from agentcore import __version__
from agentcore.workflows import DeliveryRecord

__all__ = ["PREFIX", "WorkflowTracer"]

PREFIX = "agentcore.workflow"


class WorkflowTracer:
    """A workflow observer recording each routing decision as a span (module docs)."""

    def __init__(
        self,
        *,
        workflow: str | None = None,
        tracer_provider: trace.TracerProvider | None = None,
        include_sensitive_data: bool = False,
    ) -> None:
        self.workflow = workflow
        self.include_sensitive_data = include_sensitive_data
        self.tracer: trace.Tracer = trace.get_tracer(
            "agentcore_contrib.workflow_tracing", __version__, tracer_provider=tracer_provider
        )

    def on_delivery(self, record: DeliveryRecord) -> None:
        """One ``workflow.edge_group`` span for one routing decision."""
        d = record.delivery
        attributes: dict[str, str | int | bool] = {
            f"{PREFIX}.superstep": d.superstep,
            f"{PREFIX}.executor.id": d.source_id,
            f"{PREFIX}.target.id": d.target_id,
            f"{PREFIX}.message.type": d.message_type,
            f"{PREFIX}.edge_group.id": d.group_id,
            f"{PREFIX}.edge_group.kind": d.kind,
            f"{PREFIX}.edge_group.delivered": d.status == "delivered",
            f"{PREFIX}.edge_group.delivery_status": d.status,
            f"{PREFIX}.event.source": d.source,
        }
        if self.workflow is not None:
            attributes[f"{PREFIX}.name"] = self.workflow
        if self.include_sensitive_data:
            attributes[f"{PREFIX}.message"] = repr(record.message)
        name = "workflow.edge_group"
        with self.tracer.start_as_current_span(name, attributes=attributes) as span:
            if d.status == "exception":
                span.set_status(trace.Status(trace.StatusCode.ERROR, "a routing function raised"))
