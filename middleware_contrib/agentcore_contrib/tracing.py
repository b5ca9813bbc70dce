"""OpenTelemetry spans and metrics for runs, model calls and tool calls.

Follows the OpenTelemetry GenAI semantic conventions: spans ``invoke_agent {agent}``,
``chat {model}`` and ``execute_tool {tool}`` with the ``gen_ai.*`` attributes, and the
``gen_ai.client.token.usage`` and ``gen_ai.client.operation.duration`` histograms.
Message content is recorded only with ``record_content=True``. Needs the ``otel``
extra (``opentelemetry-api``); nothing else in agentcore imports OpenTelemetry.
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Awaitable,
    Callable,
    Iterable,
    Mapping,
    Sequence,
)
from typing import Any, TypeVar

try:
    from opentelemetry import context as otel_context
    from opentelemetry import metrics, trace
except ImportError as _missing:  # pragma: no cover  # exercised with the import blocked
    raise ImportError(
        "agentcore_contrib.tracing needs OpenTelemetry: pip install 'agentcore-framework[otel]'"
    ) from _missing

import anyio
import attrs

from agentcore import (
    AgentContext,
    AgentResponse,
    ChatContext,
    ChatResponse,
    FunctionCallContent,
    FunctionInvocationContext,
    FunctionResultContent,
    Message,
    MiddlewareTermination,
    ResponseStream,
    StreamEnd,
    TextContent,
    Usage,
    __version__,
)

__all__ = ["AgentTracing", "ChatTracing", "FunctionTracing", "Tracing"]

_U = TypeVar("_U")
_F = TypeVar("_F")
Attributes = dict[str, Any]

OPERATION = "gen_ai.operation.name"
PROVIDER = "gen_ai.provider.name"
REQUEST_MODEL = "gen_ai.request.model"
RESPONSE_MODEL = "gen_ai.response.model"
ERROR_TYPE = "error.type"

_REQUEST_OPTIONS = {
    "temperature": "gen_ai.request.temperature",
    "top_p": "gen_ai.request.top_p",
    "max_tokens": "gen_ai.request.max_tokens",
    "seed": "gen_ai.request.seed",
    "frequency_penalty": "gen_ai.request.frequency_penalty",
    "presence_penalty": "gen_ai.request.presence_penalty",
}


def _error_type(exc: BaseException) -> str:
    cls = type(exc)
    module = cls.__module__
    return cls.__qualname__ if module == "builtins" else f"{module}.{cls.__qualname__}"


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _parts(message: Message) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    for content in message.contents:
        if isinstance(content, TextContent):
            parts.append({"type": "text", "content": content.text})
        elif isinstance(content, FunctionCallContent):
            raw = content.arguments
            arguments: Any = raw if isinstance(raw, str) else dict(raw)
            parts.append(
                {
                    "type": "tool_call",
                    "id": content.call_id,
                    "name": content.name,
                    "arguments": arguments,
                }
            )
        elif isinstance(content, FunctionResultContent):
            parts.append(
                {"type": "tool_call_response", "id": content.call_id, "response": content.result}
            )
    return parts


def _messages_json(messages: Iterable[Message]) -> str:
    return _json([{"role": m.role, "parts": _parts(m)} for m in messages])


def _output_json(messages: Iterable[Message], finish_reason: str | None) -> str:
    return _json(
        [
            {"role": m.role, "parts": _parts(m), "finish_reason": finish_reason or "stop"}
            for m in messages
        ]
    )


def _usage_attributes(usage: Usage | None) -> Attributes:
    if usage is None:
        return {}
    out: Attributes = {}
    if usage.input_tokens is not None:
        out["gen_ai.usage.input_tokens"] = usage.input_tokens
    if usage.output_tokens is not None:
        out["gen_ai.usage.output_tokens"] = usage.output_tokens
    return out


def _end_with_error(span: trace.Span, exc: BaseException) -> str:
    kind = _error_type(exc)
    span.set_attribute(ERROR_TYPE, kind)
    span.set_status(trace.Status(trace.StatusCode.ERROR, str(exc) or kind))
    if isinstance(exc, Exception):
        span.record_exception(exc)
    return kind


def _record_input(span: trace.Span, instructions: str | None, messages: Sequence[Message]) -> None:
    """The request's instructions and messages on ``span`` (``record_content=True``)."""
    if instructions:
        span.set_attribute(
            "gen_ai.system_instructions", _json([{"type": "text", "content": instructions}])
        )
    span.set_attribute("gen_ai.input.messages", _messages_json(messages))


async def _call_in_span(
    span: trace.Span,
    call_next: Callable[[], Awaitable[None]],
    end: Callable[[Any, BaseException | None], None],
) -> otel_context.Context:
    """Run the rest of the onion with ``span`` current; ``end`` it if that raises.

    Returns the context that makes ``span`` the parent, for a stream's later updates.
    """
    parent = trace.set_span_in_context(span)
    token = otel_context.attach(parent)
    try:
        await call_next()
    except BaseException as exc:
        end(None, exc)
        raise
    finally:
        otel_context.detach(token)
    return parent


def _traced_stream(
    stream: ResponseStream[_U, _F],
    fold: Callable[[Sequence[_U]], _F],
    parent: otel_context.Context,
    on_end: Callable[[_F | None, BaseException | None], None],
) -> ResponseStream[_U, _F]:
    """``stream`` re-streamed with ``parent`` current while it produces each update
    (so the spans of inner calls nest), calling ``on_end`` once when it ends."""

    async def step(iterator: AsyncIterator[_U]) -> _U:
        token = otel_context.attach(parent)
        try:
            return await iterator.__anext__()
        finally:
            otel_context.detach(token)

    async def updates() -> AsyncGenerator[_U, None]:
        iterator = stream.__aiter__()
        try:
            while True:
                try:
                    update = await step(iterator)
                except StopAsyncIteration:
                    return
                yield update
        finally:
            with anyio.CancelScope(shield=True):
                await stream.aclose()

    def ended(end: StreamEnd[_F]) -> None:
        on_end(end.final, end.error)

    traced = ResponseStream(updates(), finalizer=fold, final=stream.get_final_response)
    return traced.on_end(ended)


class Tracing:
    """OpenTelemetry instrumentation for the agent, chat and function scopes.

    Give all three to an agent with ``Agent(..., middleware=tracing.middleware)``.
    Without providers the global ones are used. A streaming span ends when its stream
    finishes, fails or is abandoned. ``gen_ai.client.token.usage`` is recorded per model
    call only (so run totals are not counted twice); ``gen_ai.client.operation.duration``
    for all three operations, told apart by ``gen_ai.operation.name``.
    """

    def __init__(
        self,
        *,
        tracer_provider: trace.TracerProvider | None = None,
        meter_provider: metrics.MeterProvider | None = None,
        record_content: bool = False,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        if not callable(clock):
            raise TypeError("clock must be a callable returning seconds as a float")
        self.record_content = record_content
        self.clock = clock
        self.tracer: trace.Tracer = trace.get_tracer(
            "agentcore_contrib.tracing", __version__, tracer_provider=tracer_provider
        )
        meter = metrics.get_meter(
            "agentcore_contrib.tracing", __version__, meter_provider=meter_provider
        )
        self.token_usage: metrics.Histogram = meter.create_histogram(
            "gen_ai.client.token.usage",
            unit="{token}",
            description="Number of input and output tokens used.",
        )
        self.operation_duration: metrics.Histogram = meter.create_histogram(
            "gen_ai.client.operation.duration",
            unit="s",
            description="GenAI operation duration.",
        )
        self.agent: AgentTracing = AgentTracing(self)
        self.chat: ChatTracing = ChatTracing(self)
        self.function: FunctionTracing = FunctionTracing(self)
        self.middleware: tuple[AgentTracing, ChatTracing, FunctionTracing] = (
            self.agent,
            self.chat,
            self.function,
        )

    def _duration(self, started: float, attributes: Attributes) -> None:
        self.operation_duration.record(max(self.clock() - started, 0.0), attributes)


def _model_of(client: object, options: Mapping[str, Any]) -> str | None:
    model = options.get("model") or getattr(client, "model", None)
    return model if isinstance(model, str) and model else None


class AgentTracing:
    """The ``invoke_agent`` span of a :class:`Tracing` (agent scope)."""

    def __init__(self, tracing: Tracing) -> None:
        self.tracing = tracing

    async def process(
        self, context: AgentContext, call_next: Callable[[], Awaitable[None]]
    ) -> None:
        tracing = self.tracing
        agent = context.agent
        name = agent.name
        model = _model_of(getattr(agent, "client", None), context.options)
        attributes: Attributes = {OPERATION: "invoke_agent"}
        if name:
            attributes["gen_ai.agent.name"] = name
        if agent.description:
            attributes["gen_ai.agent.description"] = agent.description
        if model:
            attributes[REQUEST_MODEL] = model
        if context.session is not None:
            attributes["gen_ai.conversation.id"] = context.session.session_id
        metric_attributes = {k: v for k, v in attributes.items() if k in (OPERATION, REQUEST_MODEL)}
        span = tracing.tracer.start_span(
            f"invoke_agent {name}" if name else "invoke_agent",
            kind=trace.SpanKind.INTERNAL,
            attributes=attributes,
        )
        if tracing.record_content:
            _record_input(span, context.instructions, context.messages)
        end = functools.partial(self._end, span, tracing.clock(), metric_attributes)
        parent = await _call_in_span(span, call_next, end)
        result = context.result
        if isinstance(result, ResponseStream):
            context.result = _traced_stream(result, AgentResponse.from_updates, parent, end)
        else:
            end(result, None)

    def _end(
        self,
        span: trace.Span,
        started: float,
        metric_attributes: Attributes,
        response: AgentResponse[Any] | None,
        error: BaseException | None,
    ) -> None:
        if error is not None and not isinstance(error, MiddlewareTermination):
            metric_attributes = {**metric_attributes, ERROR_TYPE: _end_with_error(span, error)}
        if response is not None:
            if response.response_id:
                span.set_attribute("gen_ai.response.id", response.response_id)
            if response.finish_reason:
                span.set_attribute("gen_ai.response.finish_reasons", [response.finish_reason])
            span.set_attributes(_usage_attributes(response.usage))
            if self.tracing.record_content:
                span.set_attribute(
                    "gen_ai.output.messages",
                    _output_json(response.messages, response.finish_reason),
                )
        self.tracing._duration(started, metric_attributes)
        span.end()


class ChatTracing:
    """The ``chat`` span and token-usage metric of a :class:`Tracing` (chat scope)."""

    def __init__(self, tracing: Tracing) -> None:
        self.tracing = tracing

    async def process(self, context: ChatContext, call_next: Callable[[], Awaitable[None]]) -> None:
        tracing = self.tracing
        options = context.options
        model = _model_of(context.client, options)
        attributes: Attributes = {OPERATION: "chat"}
        provider = getattr(context.client, "provider", None)
        if isinstance(provider, str):
            attributes[PROVIDER] = provider
        if model:
            attributes[REQUEST_MODEL] = model
        metric_attributes = dict(attributes)
        for key, attribute in _REQUEST_OPTIONS.items():
            value = options.get(key)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                attributes[attribute] = value
        span = tracing.tracer.start_span(
            f"chat {model}" if model else "chat", kind=trace.SpanKind.CLIENT, attributes=attributes
        )
        if tracing.record_content:
            instructions = options.get("instructions")
            _record_input(
                span, instructions if isinstance(instructions, str) else None, context.messages
            )
        end = functools.partial(self._end, span, tracing.clock(), metric_attributes)
        parent = await _call_in_span(span, call_next, end)
        result = context.result
        if isinstance(result, ResponseStream):
            context.result = _traced_stream(result, ChatResponse.from_updates, parent, end)
        else:
            end(result, None)

    def _end(
        self,
        span: trace.Span,
        started: float,
        metric_attributes: Attributes,
        response: ChatResponse[Any] | None,
        error: BaseException | None,
    ) -> None:
        tracing = self.tracing
        if error is not None and not isinstance(error, MiddlewareTermination):
            metric_attributes = {**metric_attributes, ERROR_TYPE: _end_with_error(span, error)}
        if response is not None:
            if response.response_id:
                span.set_attribute("gen_ai.response.id", response.response_id)
            if response.model:
                span.set_attribute(RESPONSE_MODEL, response.model)
                metric_attributes = {**metric_attributes, RESPONSE_MODEL: response.model}
            if response.finish_reason:
                span.set_attribute("gen_ai.response.finish_reasons", [response.finish_reason])
            span.set_attributes(_usage_attributes(response.usage))
            if tracing.record_content:
                span.set_attribute(
                    "gen_ai.output.messages",
                    _output_json(response.messages, response.finish_reason),
                )
            usage = response.usage
            if usage is not None:
                for kind, count in (("input", usage.input_tokens), ("output", usage.output_tokens)):
                    if count is not None:
                        tracing.token_usage.record(
                            count, {**metric_attributes, "gen_ai.token.type": kind}
                        )
        tracing._duration(started, metric_attributes)
        span.end()


class FunctionTracing:
    """The ``execute_tool`` span of a :class:`Tracing` (function scope)."""

    def __init__(self, tracing: Tracing) -> None:
        self.tracing = tracing

    async def process(
        self, context: FunctionInvocationContext, call_next: Callable[[], Awaitable[None]]
    ) -> None:
        tracing = self.tracing
        function = context.function
        attributes: Attributes = {
            OPERATION: "execute_tool",
            "gen_ai.tool.name": function.name,
            "gen_ai.tool.call.id": context.call_id,
            "gen_ai.tool.type": "function",
        }
        if function.description:
            attributes["gen_ai.tool.description"] = function.description
        if tracing.record_content:
            attributes["gen_ai.tool.call.arguments"] = _json(context.arguments)
        metric_attributes: Attributes = {OPERATION: "execute_tool"}
        started = tracing.clock()
        with tracing.tracer.start_as_current_span(
            f"execute_tool {function.name}",
            kind=trace.SpanKind.INTERNAL,
            attributes=attributes,
            record_exception=False,
            set_status_on_exception=False,
        ) as span:
            try:
                await call_next()
            except MiddlewareTermination:
                tracing._duration(started, metric_attributes)
                raise
            except BaseException as exc:
                error = _end_with_error(span, exc)
                tracing._duration(started, {**metric_attributes, ERROR_TYPE: error})
                raise
            if tracing.record_content:
                span.set_attribute("gen_ai.tool.call.result", _json(_plain(context.result)))
            tracing._duration(started, metric_attributes)


def _plain(value: Any) -> Any:
    cls: type[Any] = type(value)  # pyright: ignore[reportUnknownVariableType]  # any tool result
    if attrs.has(cls):
        return attrs.asdict(value)
    return value
