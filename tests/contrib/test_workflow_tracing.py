"""WorkflowTracer: each routing decision is a ``workflow.edge_group`` span carrying one
of seed 002's six delivery statuses, checked with the SDK's in-memory exporter."""

from __future__ import annotations

from collections.abc import Sequence

import attrs
import pytest
from agentcore_contrib.workflow_tracing import WorkflowTracer
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode
from typing_extensions import Never

from agentcore.workflows import (
    ExecutorFailedError,
    WorkflowBuilder,
    WorkflowContext,
    executor,
)

pytestmark = pytest.mark.anyio
P = "agentcore.workflow"


@attrs.frozen
class Big:
    n: int


def traced(include_sensitive_data: bool = False) -> tuple[WorkflowTracer, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = WorkflowTracer(
        workflow="routes", tracer_provider=provider, include_sensitive_data=include_sensitive_data
    )
    return tracer, exporter


def statuses(spans: Sequence[ReadableSpan]) -> set[object]:
    return {(s.attributes or {})[f"{P}.edge_group.delivery_status"] for s in spans}


async def test_spans_record_all_six_delivery_statuses() -> None:
    tracer, exporter = traced()

    @executor
    async def fan(n: int, ctx: WorkflowContext[int | Big]) -> None:
        await ctx.send(n)
        await ctx.send(Big(n))

    @executor(id="ints")
    async def ints(n: int) -> str:
        return str(n)

    @executor(id="bigs")
    async def bigs(b: Big, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(f"big {b.n}")

    @executor(id="never")
    async def never(n: int, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output("never")

    @executor
    async def join(parts: Sequence[str], ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output("+".join(parts))

    @executor(id="picky")
    async def picky(n: int, ctx: WorkflowContext[int]) -> None:
        await ctx.send(n, target="ints")

    workflow = (
        WorkflowBuilder(fan, name="routes", dead_letters="ignore", observers=[tracer])
        .add_fan_out(fan, [ints, bigs])
        .add_edge(fan, never, when=lambda m: False)
        .add_fan_in([ints], join)
        .build()
    )
    await workflow.run(7)

    targeted = (
        WorkflowBuilder(picky, name="routes", observers=[tracer])
        .add_fan_out(picky, [ints, never])
        .add_fan_in([ints], join)
        .build()
    )
    await targeted.run(3)

    def boom(message: object) -> bool:
        raise RuntimeError("predicate broke")

    broken = (
        WorkflowBuilder(picky, name="routes", observers=[tracer])
        .add_edge(picky, ints, when=boom)
        .add_fan_in([ints], join)
        .build()
    )
    with pytest.raises(ExecutorFailedError):
        await broken.run(1)

    spans = exporter.get_finished_spans()
    assert {s.name for s in spans} == {"workflow.edge_group"}
    assert statuses(spans) == {
        "delivered",
        "buffered",
        "dropped_type_mismatch",
        "dropped_condition_false",
        "dropped_target_mismatch",
        "exception",
    }
    for span in spans:
        attributes = span.attributes or {}
        status = attributes[f"{P}.edge_group.delivery_status"]
        assert attributes[f"{P}.edge_group.delivered"] == (status == "delivered")
        assert attributes[f"{P}.name"] == "routes"
        assert attributes[f"{P}.event.source"] == "framework"
        assert f"{P}.message" not in attributes  # contents only when asked for
        assert (span.status.status_code is StatusCode.ERROR) == (status == "exception")
    [first] = [s for s in spans if (s.attributes or {})[f"{P}.message.type"] == "Big"][:1]
    attributes = first.attributes or {}
    assert attributes[f"{P}.executor.id"] == "fan"
    assert attributes[f"{P}.superstep"] == 1
    assert attributes[f"{P}.edge_group.kind"] == "fan_out"


async def test_message_contents_only_with_sensitive_data() -> None:
    tracer, exporter = traced(include_sensitive_data=True)

    @executor
    async def start(n: int, ctx: WorkflowContext[Big]) -> None:
        await ctx.send(Big(n))

    @executor(id="end")
    async def end(b: Big, ctx: WorkflowContext[Never, int]) -> None:
        await ctx.yield_output(b.n)

    workflow = WorkflowBuilder(start, name="routes", observers=[tracer]).add_edge(start, end)
    assert (await workflow.build().run(5)).output == 5
    [span] = exporter.get_finished_spans()
    assert (span.attributes or {})[f"{P}.message"] == "Big(n=5)"
