"""Tracing: GenAI semantic-convention spans and metrics, checked with the SDK's in-memory
exporter and metric reader."""

from __future__ import annotations

import importlib
import json
import re
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from agentcore_contrib.tracing import Tracing
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import HistogramDataPoint, InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from agentcore import (
    Agent,
    ChatOptions,
    ChatResponse,
    FunctionCallContent,
    FunctionInvocationContext,
    Message,
    MiddlewareTermination,
    Usage,
    function_middleware,
    tool,
)
from agentcore.errors import RateLimitedError
from agentcore.middleware import Middleware
from agentcore.testing import ScriptedChatClient

pytestmark = pytest.mark.anyio

DOCS = Path(__file__).resolve().parents[2] / "docs" / "middleware" / "tracing.md"


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool
def explode() -> str:
    """Always fails."""
    raise ValueError("boom")


def call(name: str, arguments: str = "{}", call_id: str = "c1") -> ChatResponse[None]:
    return ChatResponse(
        messages=(Message("assistant", (FunctionCallContent(call_id, name, arguments),)),),
        finish_reason="tool_calls",
        usage=Usage(input_tokens=10, output_tokens=2),
        model="m-1-2024",
        response_id="r-1",
    )


def answer(text: str) -> ChatResponse[None]:
    return ChatResponse(
        messages=(Message("assistant", text),),
        finish_reason="stop",
        usage=Usage(input_tokens=12, output_tokens=5),
        model="m-1-2024",
        response_id="r-2",
    )


class Telemetry:
    def __init__(self, record_content: bool = False) -> None:
        self.exporter = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.reader = InMemoryMetricReader()
        self.tracing = Tracing(
            tracer_provider=provider,
            meter_provider=MeterProvider(metric_readers=[self.reader]),
            record_content=record_content,
        )

    def spans(self) -> list[ReadableSpan]:
        return list(self.exporter.get_finished_spans())

    def span(self, prefix: str) -> ReadableSpan:
        (found,) = [s for s in self.spans() if s.name.startswith(prefix)][:1]
        return found

    def points(self, metric: str) -> list[HistogramDataPoint]:
        data = self.reader.get_metrics_data()
        assert data is not None
        out: list[HistogramDataPoint] = []
        for resource in data.resource_metrics:
            for scope in resource.scope_metrics:
                for each in scope.metrics:
                    if each.name == metric:
                        out.extend(p for p in each.data.data_points)  # type: ignore[misc]  # histogram points
        return out


async def run(
    agent: Agent, stream: bool, prompt: str = "hi", options: ChatOptions | None = None
) -> Any:
    if stream:
        updates = agent.run(prompt, stream=True, options=options)
        async for _ in updates:
            pass
        return await updates.get_final_response()
    return await agent.run(prompt, options=options)


def tool_agent(telemetry: Telemetry, *extra: Middleware) -> Agent:
    client = ScriptedChatClient([call("add", '{"a": 1, "b": 2}'), answer("3")])
    return Agent(
        client,
        name="calc",
        tools=[add],
        middleware=[*telemetry.tracing.middleware, *extra],
    )


@pytest.mark.parametrize("stream", [False, True])
async def test_span_names_follow_the_conventions(stream: bool) -> None:
    telemetry = Telemetry()
    await run(tool_agent(telemetry), stream, options={"model": "m-1"})
    assert [s.name for s in telemetry.spans()] == [
        "chat m-1",
        "execute_tool add",
        "chat m-1",
        "invoke_agent calc",
    ]


@pytest.mark.parametrize("stream", [False, True])
async def test_model_and_tool_spans_are_children_of_the_run_span(stream: bool) -> None:
    telemetry = Telemetry()
    await run(tool_agent(telemetry), stream)
    root = telemetry.span("invoke_agent")
    assert root.parent is None
    assert root.context is not None
    children = [s for s in telemetry.spans() if s is not root]
    assert all(s.parent is not None and s.parent.span_id == root.context.span_id for s in children)


@pytest.mark.parametrize("stream", [False, True])
async def test_chat_span_carries_request_response_and_usage_attributes(stream: bool) -> None:
    telemetry = Telemetry()
    await run(tool_agent(telemetry), stream, options={"model": "m-1", "temperature": 0.2})
    chat = [s for s in telemetry.spans() if s.name.startswith("chat")][1]
    assert chat.kind is SpanKind.CLIENT
    assert dict(chat.attributes or {}) == {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "m-1",
        "gen_ai.request.temperature": 0.2,
        "gen_ai.response.id": "r-2",
        "gen_ai.response.model": "m-1-2024",
        "gen_ai.response.finish_reasons": ("stop",),
        "gen_ai.usage.input_tokens": 12,
        "gen_ai.usage.output_tokens": 5,
    }


@pytest.mark.parametrize("stream", [False, True])
async def test_tool_span_names_the_tool_and_its_call(stream: bool) -> None:
    telemetry = Telemetry()
    await run(tool_agent(telemetry), stream)
    span = telemetry.span("execute_tool")
    attributes = dict(span.attributes or {})
    assert attributes["gen_ai.operation.name"] == "execute_tool"
    assert attributes["gen_ai.tool.name"] == "add"
    assert attributes["gen_ai.tool.call.id"] == "c1"
    assert "gen_ai.tool.call.arguments" not in attributes


@pytest.mark.parametrize("stream", [False, True])
async def test_agent_span_carries_the_agent_name_and_total_usage(stream: bool) -> None:
    telemetry = Telemetry()
    await run(tool_agent(telemetry), stream)
    attributes = dict(telemetry.span("invoke_agent").attributes or {})
    assert attributes["gen_ai.operation.name"] == "invoke_agent"
    assert attributes["gen_ai.agent.name"] == "calc"
    assert attributes["gen_ai.usage.input_tokens"] == 22
    assert attributes["gen_ai.usage.output_tokens"] == 7


@pytest.mark.parametrize("stream", [False, True])
async def test_token_usage_histogram_has_one_point_per_token_type(stream: bool) -> None:
    telemetry = Telemetry()
    await run(tool_agent(telemetry), stream)
    sums = {
        p.attributes["gen_ai.token.type"]: (p.sum, p.count)
        for p in telemetry.points("gen_ai.client.token.usage")
        if p.attributes is not None
    }
    assert sums == {"input": (22, 2), "output": (7, 2)}


@pytest.mark.parametrize("stream", [False, True])
async def test_operation_duration_is_recorded_for_every_operation(stream: bool) -> None:
    telemetry = Telemetry()
    await run(tool_agent(telemetry), stream)
    counts = {
        p.attributes["gen_ai.operation.name"]: p.count
        for p in telemetry.points("gen_ai.client.operation.duration")
        if p.attributes is not None
    }
    assert counts == {"chat": 2, "execute_tool": 1, "invoke_agent": 1}


@pytest.mark.parametrize("stream", [False, True])
async def test_content_is_not_recorded_by_default(stream: bool) -> None:
    telemetry = Telemetry()
    await run(tool_agent(telemetry), stream, prompt="my secret question")
    for span in telemetry.spans():
        assert "my secret question" not in json.dumps(dict(span.attributes or {}))


@pytest.mark.parametrize("stream", [False, True])
async def test_record_content_adds_messages_and_tool_payloads(stream: bool) -> None:
    telemetry = Telemetry(record_content=True)
    await run(tool_agent(telemetry), stream, prompt="add 1 and 2")
    first_chat = dict(telemetry.span("chat").attributes or {})
    messages = json.loads(str(first_chat["gen_ai.input.messages"]))
    assert messages == [{"role": "user", "parts": [{"type": "text", "content": "add 1 and 2"}]}]
    tool_span = dict(telemetry.span("execute_tool").attributes or {})
    assert json.loads(str(tool_span["gen_ai.tool.call.arguments"])) == {"a": 1, "b": 2}
    assert tool_span["gen_ai.tool.call.result"] == "3"
    output = json.loads(
        str(dict(telemetry.span("invoke_agent").attributes or {})["gen_ai.output.messages"])
    )
    assert output[-1]["parts"] == [{"type": "text", "content": "3"}]


@pytest.mark.parametrize("stream", [False, True])
async def test_a_failed_model_call_sets_error_type(stream: bool) -> None:
    telemetry = Telemetry()
    agent = Agent(
        ScriptedChatClient([RateLimitedError("slow down")]),
        name="calc",
        middleware=telemetry.tracing.middleware,
    )
    with pytest.raises(RateLimitedError):
        await run(agent, stream)
    for prefix in ("chat", "invoke_agent"):
        span = telemetry.span(prefix)
        assert span.status.status_code is StatusCode.ERROR
        assert dict(span.attributes or {})["error.type"] == "agentcore.errors.RateLimitedError"
    durations = telemetry.points("gen_ai.client.operation.duration")
    assert all(
        p.attributes is not None
        and p.attributes["error.type"] == "agentcore.errors.RateLimitedError"
        for p in durations
    )


async def test_a_failing_tool_marks_its_span_as_an_error() -> None:
    telemetry = Telemetry()
    client = ScriptedChatClient([call("explode"), answer("sorry")])
    agent = Agent(client, tools=[explode], middleware=telemetry.tracing.middleware)
    await agent.run("hi")
    span = telemetry.span("execute_tool")
    assert span.status.status_code is StatusCode.ERROR
    assert dict(span.attributes or {})["error.type"] == "ValueError"


async def test_a_termination_is_not_an_error() -> None:
    @function_middleware
    async def stop(
        context: FunctionInvocationContext, call_next: Callable[[], Awaitable[None]]
    ) -> None:
        raise MiddlewareTermination("enough", result="stopped")

    telemetry = Telemetry()
    await tool_agent(telemetry, stop).run("hi")
    assert telemetry.span("execute_tool").status.status_code is StatusCode.UNSET


async def test_spans_without_a_model_are_named_by_operation_only() -> None:
    telemetry = Telemetry()
    agent = Agent(ScriptedChatClient([answer("x")]), middleware=telemetry.tracing.middleware)
    await agent.run("hi")
    assert [s.name for s in telemetry.spans()] == ["chat", "invoke_agent"]


async def test_the_streamed_span_ends_only_when_the_stream_finishes() -> None:
    telemetry = Telemetry()
    agent = Agent(
        ScriptedChatClient([answer("a fairly long answer")]),
        name="a",
        middleware=telemetry.tracing.middleware,
    )
    updates = agent.run("hi", stream=True)
    seen = 0
    async for _ in updates:
        seen += 1
        if seen == 1:
            assert telemetry.spans() == []
    assert [s.name for s in telemetry.spans()] == ["chat", "invoke_agent a"]


def test_importing_without_opentelemetry_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "agentcore_contrib.tracing")
    monkeypatch.setitem(sys.modules, "opentelemetry", None)
    with pytest.raises(ImportError, match=re.escape("pip install 'agentcore-framework[otel]'")):
        importlib.import_module("agentcore_contrib.tracing")


def test_a_non_callable_clock_is_refused() -> None:
    with pytest.raises(TypeError, match="clock must be a callable"):
        Tracing(clock=1.0)  # type: ignore[arg-type]  # the wrong type is the point of the test


async def test_the_docs_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    source = re.search(r"```python\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.DOTALL)
    assert source is not None
    namespace: dict[str, Any] = {"__name__": "docs_example"}
    exec(compile(source.group(1), str(DOCS), "exec"), namespace)
    await namespace["main"]()
    assert capsys.readouterr().out.splitlines() == [
        "chat demo-1",
        "execute_tool get_weather",
        "chat demo-1",
        "invoke_agent weather",
    ]
