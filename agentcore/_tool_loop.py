"""The tool-calling loop: model call, run the tools it asked for, call again.

:class:`ToolLoop` wraps any chat client and is itself a chat client, so it works
with or without an :class:`~agentcore.Agent`. One async generator drives both
modes: in a streaming run it yields every update (model output, then the tool
results) between model turns; otherwise it yields nothing and the response is
assembled from what the loop produced. The history handed to the model is always
valid: every function call has its result before the next request.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Awaitable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, cast, overload

import anyio
import attrs

from agentcore._contents import (
    FunctionApprovalRequestContent,
    FunctionApprovalResponseContent,
    FunctionCallContent,
    FunctionResultContent,
    TextContent,
    UsageContent,
)
from agentcore._contexts import ChatContext, FunctionInvocationContext
from agentcore._messages import Message
from agentcore._responses import ChatResponse, ChatResponseUpdate
from agentcore._run import RunContext
from agentcore._stream import ResponseStream
from agentcore._usage import Usage
from agentcore.errors import UnknownToolError
from agentcore.middleware import MiddlewareTermination, Pipelines, run_pipeline
from agentcore.observers import (
    ModelCallEnded,
    ModelCallStarted,
    ObserverSet,
    ToolCallEnded,
    ToolCallStarted,
)

if TYPE_CHECKING:
    from agentcore.protocols import SupportsGetResponse
    from agentcore.tools import FunctionTool

__all__ = ["FunctionInvocationConfiguration", "ToolLoop"]

_NO_OBSERVERS = ObserverSet()


def _at_least(minimum: int) -> Any:
    def check(_instance: object, attribute: attrs.Attribute[int], value: object) -> None:
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"{attribute.name} must be an int, got {value!r}")
        if value < minimum:
            raise ValueError(f"{attribute.name} must be at least {minimum}, got {value}")

    return check


def _optional_positive(
    _instance: object, attribute: attrs.Attribute[int | None], value: object
) -> None:
    if value is None:
        return
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{attribute.name} must be None (unlimited) or an int, got {value!r}")
    if value < 1:
        raise ValueError(f"{attribute.name} must be None (unlimited) or at least 1, got {value}")


def _flag(_instance: object, attribute: attrs.Attribute[bool], value: object) -> None:
    if not isinstance(value, bool):
        raise TypeError(f"{attribute.name} must be True or False, got {value!r}")


def _tool_name(item: object) -> str | None:
    if isinstance(item, Mapping):
        name: object = cast("Mapping[str, object]", item).get("name")
    else:
        name = getattr(item, "name", None)
    return name if isinstance(name, str) else None


def _declared_tools(value: Any) -> tuple[Any, ...]:
    if isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__iter__"):
        raise TypeError(
            f"additional_tools must be a list of tools (FunctionTool or a provider tool dict "
            f"with a 'name'), got {value!r}"
        )
    tools = tuple(value)
    for item in tools:
        if _tool_name(item) is None:
            raise TypeError(
                f"additional_tools holds {item!r}, which has no name; the loop recognises "
                f"calls to these tools by name"
            )
    return tools


@attrs.frozen(kw_only=True)
class FunctionInvocationConfiguration:
    """How the tool loop behaves. Set per agent; override per run.

    ``additional_tools`` are declared to the model but not run here: a call to
    one ends the run with the call pending for the caller. ``max_concurrency``
    bounds parallel tool calls of one turn (``None``: unlimited). A wrongly typed
    setting raises ``TypeError`` and an out-of-range one ``ValueError``, at once.
    """

    enabled: bool = attrs.field(default=True, validator=_flag)
    max_iterations: int = attrs.field(default=40, validator=_at_least(1))
    max_consecutive_errors_per_request: int = attrs.field(default=3, validator=_at_least(1))
    terminate_on_unknown_calls: bool = attrs.field(default=False, validator=_flag)
    additional_tools: tuple[Any, ...] = attrs.field(default=(), converter=_declared_tools)
    include_detailed_errors: bool = attrs.field(default=False, validator=_flag)
    max_concurrency: int | None = attrs.field(default=None, validator=_optional_positive)


DEFAULT_CONFIGURATION = FunctionInvocationConfiguration()


@attrs.define(eq=False)
class PendingApprovals:
    """A batch of calls waiting for the caller's decision (kept in the session)."""

    calls: list[FunctionCallContent]
    requests: list[FunctionApprovalRequestContent]


class LoopState:
    """Everything one execution of the loop reads and produces."""

    __slots__ = (
        "client",
        "config",
        "decisions",
        "extra_streamed",
        "function_tools",
        "invocations",
        "observers",
        "options",
        "paused",
        "pending",
        "pipelines",
        "produced",
        "responses",
        "resumed",
        "return_directly",
        "run",
        "stream",
        "terminated",
        "transcript",
    )

    def __init__(
        self,
        *,
        client: SupportsGetResponse[Any],
        messages: Sequence[Message],
        options: Mapping[str, Any] | None,
        stream: bool,
        run: RunContext,
        pipelines: Pipelines,
        config: FunctionInvocationConfiguration,
        return_directly: frozenset[str] | set[str] = frozenset(),
        observers: ObserverSet = _NO_OBSERVERS,
        pending: PendingApprovals | None = None,
        decisions: Sequence[FunctionApprovalResponseContent] = (),
    ) -> None:
        self.client = client
        self.transcript: list[Message] = list(messages)
        self.produced: list[Message] = []
        self.responses: list[ChatResponse[Any]] = []
        self.extra_streamed = 0
        self.stream = stream
        self.run = run
        self.pipelines = pipelines
        self.config = config
        self.return_directly = return_directly
        self.observers = observers
        self.pending = pending
        self.decisions = decisions
        self.paused: PendingApprovals | None = None
        # The results of a resumed batch: they belong right after the calls, before
        # this run's input (which may hold a new user message).
        self.resumed: Message | None = None
        self.terminated = False
        self.invocations: dict[str, int] = {}
        self.function_tools: dict[str, FunctionTool[..., Any]] = {}
        self.options = self._split_tools(dict(options or {}))

    def _split_tools(self, options: dict[str, Any]) -> dict[str, Any]:
        tools = options.get("tools")
        declared: list[Any] = list(tools) if tools else []
        for item in declared:
            name = getattr(item, "name", None)
            if name is not None and hasattr(item, "parse_arguments"):
                self.function_tools[name] = item
        if self.config.additional_tools:
            declared.extend(self.config.additional_tools)
        if options.get("tool_choice") == "none":
            options.pop("tools", None)
        elif declared:
            options["tools"] = declared
        return options

    def response(self) -> ChatResponse[None]:
        """The whole loop as one response (what the streamed updates fold into)."""
        responses = self.responses
        finish_reason = None
        response_id = conversation_id = model = created_at = None
        extra: dict[str, Any] | None = None
        for each in responses:
            response_id = each.response_id or response_id
            conversation_id = each.conversation_id or conversation_id
            model = each.model or model
            finish_reason = each.finish_reason or finish_reason
            created_at = created_at or each.created_at
            if each.additional_properties:
                extra = {**(extra or {}), **each.additional_properties}
        return ChatResponse(
            messages=tuple(self.produced),
            response_id=response_id,
            conversation_id=conversation_id,
            model=model,
            finish_reason=finish_reason,
            usage=Usage.sum([*(r.usage for r in responses), *self.run.extra_usage]),
            created_at=created_at,
            additional_properties=extra,
        )


def _result_value(value: Any) -> Any:
    """A tool's return value in a form that survives JSON (what the model will see)."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if attrs.has(type(cast("object", value))):
        return attrs.asdict(value)
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json")
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        import dataclasses

        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return dataclasses.asdict(value)
        return str(value)
    return value


def _answer_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, default=str)


def _function_calls(response: ChatResponse[Any]) -> list[FunctionCallContent]:
    return [
        c
        for m in response.messages
        if m.role == "assistant"
        for c in m.contents
        if isinstance(c, FunctionCallContent)
    ]


def _missing_result(call_id: str) -> FunctionResultContent:
    return FunctionResultContent(
        call_id, result="No result was provided for this call.", error="missing result"
    )


def _needs_repair(transcript: list[Message]) -> bool:
    """Whether some results are missing, out of place or repeated."""
    block: set[str] | None = None  # the calls of the turn the tool messages follow
    waiting: set[str] = set()
    for message in transcript:
        if message.role == "tool":
            if block is None:
                return True
            for content in message.contents:
                if isinstance(content, FunctionResultContent):
                    if content.call_id not in waiting:
                        return True
                    waiting.discard(content.call_id)
            continue
        if waiting:
            return True
        block = None
        if message.role == "assistant":
            called = {c.call_id for c in message.contents if isinstance(c, FunctionCallContent)}
            if called:
                block, waiting = called, set(called)
    return bool(waiting)


def _repair_history(transcript: list[Message]) -> None:
    """Put every call's result in the tool messages right after its assistant turn.

    A result that arrived later (a caller's answer after a new user message) moves
    up; a call without one gets an error result; a second result for a call is
    dropped. Providers reject any other shape.
    """
    if not _needs_repair(transcript):
        return
    found: dict[str, FunctionResultContent] = {}
    for message in transcript:
        if message.role == "tool":
            for content in message.contents:
                if isinstance(content, FunctionResultContent):
                    found.setdefault(content.call_id, content)
    placed: set[str] = set()
    repaired: list[Message] = []

    def keep(message: Message) -> None:
        contents = tuple(
            c
            for c in message.contents
            if not (isinstance(c, FunctionResultContent) and c.call_id in placed)
        )
        placed.update(c.call_id for c in contents if isinstance(c, FunctionResultContent))
        if len(contents) == len(message.contents):
            repaired.append(message)
        elif contents:
            repaired.append(attrs.evolve(message, contents=contents))

    position, count = 0, len(transcript)
    while position < count:
        message = transcript[position]
        position += 1
        if message.role == "tool":
            keep(message)
            continue
        repaired.append(message)
        if message.role != "assistant":
            continue
        called = [c.call_id for c in message.contents if isinstance(c, FunctionCallContent)]
        if not called:
            continue
        while position < count and transcript[position].role == "tool":
            keep(transcript[position])
            position += 1
        missing = [cid for cid in called if cid not in placed]
        if missing:
            repaired.append(
                Message("tool", tuple(found.get(cid) or _missing_result(cid) for cid in missing))
            )
            placed.update(missing)
    transcript[:] = repaired


def _place_results(
    state: LoopState, calls: Sequence[FunctionCallContent], message: Message
) -> None:
    """Add the results of a resumed batch right after the turn that made the calls."""
    transcript = state.transcript
    ids = {c.call_id for c in calls}
    for position in range(len(transcript) - 1, -1, -1):
        turn = transcript[position]
        if turn.role == "assistant" and any(
            isinstance(c, FunctionCallContent) and c.call_id in ids for c in turn.contents
        ):
            position += 1
            while position < len(transcript) and transcript[position].role == "tool":
                position += 1
            transcript.insert(position, message)
            return
    if not state.options.get("conversation_id"):
        # No stored history holds the calls (and no service keeps it): restate them.
        transcript.append(Message("assistant", tuple(calls)))
    transcript.append(message)


def _to_chat_response(value: Any) -> ChatResponse[Any]:
    if isinstance(value, ChatResponse):
        return value  # pyright: ignore[reportUnknownVariableType]
    if isinstance(value, Message):
        return ChatResponse(messages=(value,), finish_reason="stop")
    if value is None:
        return ChatResponse()
    return ChatResponse(
        messages=(Message("assistant", (TextContent(_answer_text(value)),)),),
        finish_reason="stop",
    )


async def _replay(response: ChatResponse[Any]) -> AsyncGenerator[ChatResponseUpdate, None]:
    for message in response.messages:
        yield ChatResponseUpdate(
            contents=message.contents,
            role=message.role,
            author_name=message.author_name,
            message_id=message.message_id,
            response_id=response.response_id,
            model=response.model,
            conversation_id=response.conversation_id,
        )
    tail = (UsageContent(response.usage),) if response.usage is not None else ()
    yield ChatResponseUpdate(
        contents=tail,
        finish_reason=response.finish_reason,
        response_id=response.response_id,
        created_at=response.created_at,
        additional_properties=response.additional_properties,
    )


def stream_of(response: ChatResponse[Any]) -> ResponseStream[ChatResponseUpdate, ChatResponse[Any]]:
    """A stream that replays a finished response (what a short-circuit streams)."""
    return ResponseStream(_replay(response), finalizer=lambda _updates: response)


def _on_chat_termination(context: ChatContext, termination: MiddlewareTermination) -> None:
    context.metadata["terminated"] = True
    if termination.has_result:
        response = _to_chat_response(termination.result)
        context.result = stream_of(response) if context.stream else response


def _on_function_termination(
    context: FunctionInvocationContext, termination: MiddlewareTermination
) -> None:
    context.metadata["terminated"] = True
    if termination.has_result:
        context.result = termination.result


class _Outcome:
    __slots__ = ("content", "errored", "terminated")

    def __init__(self, content: FunctionResultContent, errored: bool, terminated: bool) -> None:
        self.content = content
        self.errored = errored
        self.terminated = terminated


class ToolLoop:
    """A chat client that runs the model's tool calls and calls the model again.

    Wraps any :class:`~agentcore.protocols.SupportsGetResponse` and satisfies it
    too. ``middleware`` may hold chat and function middleware (agent middleware
    belongs to an :class:`~agentcore.Agent`).
    """

    def __init__(
        self,
        client: SupportsGetResponse[Any],
        *,
        config: FunctionInvocationConfiguration | None = None,
        middleware: Sequence[object] = (),
    ) -> None:
        if not callable(getattr(client, "get_response", None)):
            raise TypeError(
                f"ToolLoop needs a chat client with a get_response method, got {client!r}"
            )
        pipelines = Pipelines.build(middleware)
        if pipelines.agent:
            raise TypeError(
                "agent middleware cannot run inside a ToolLoop; give it to an Agent instead"
            )
        self.client = client
        self.config = config or DEFAULT_CONFIGURATION
        self.pipelines = pipelines

    @overload
    def get_response(
        self,
        messages: Sequence[Message],
        *,
        options: Mapping[str, Any] | None = None,
        stream: Literal[False] = False,
    ) -> Awaitable[ChatResponse[Any]]: ...

    @overload
    def get_response(
        self,
        messages: Sequence[Message],
        *,
        options: Mapping[str, Any] | None = None,
        stream: Literal[True],
    ) -> ResponseStream[ChatResponseUpdate, ChatResponse[Any]]: ...

    def get_response(
        self,
        messages: Sequence[Message],
        *,
        options: Mapping[str, Any] | None = None,
        stream: bool = False,
    ) -> Awaitable[ChatResponse[Any]] | ResponseStream[ChatResponseUpdate, ChatResponse[Any]]:
        from agentcore.tools import normalize_tools

        opts = dict(options or {})
        if opts.get("tools"):
            opts["tools"] = normalize_tools(opts["tools"])
        state = LoopState(
            client=self.client,
            messages=messages,
            options=opts,
            stream=stream,
            run=RunContext(),
            pipelines=self.pipelines,
            config=self.config,
        )
        if stream:
            return open_stream(state)
        return run_to_end(state)


async def run_to_end(state: LoopState) -> ChatResponse[None]:
    """Run the loop without streaming and return the whole response."""
    async for _ in drive(state):
        pass  # pragma: no cover  # a non-streaming run yields nothing
    return state.response()


def open_stream(state: LoopState) -> ResponseStream[ChatResponseUpdate, ChatResponse[Any]]:
    """Run the loop as a stream of updates; the final value is their fold."""
    return ResponseStream(drive(state), finalizer=ChatResponse.from_updates)


async def drive(state: LoopState) -> AsyncGenerator[ChatResponseUpdate, None]:
    """The loop itself; yields updates only in a streaming run."""
    config = state.config
    options = state.options
    tool_choice = options.get("tool_choice")
    required = tool_choice == "required" or isinstance(tool_choice, Mapping)

    if state.pending is not None:
        resumed = await _resume(state, state.pending, state.decisions)
        if resumed is None:
            if state.stream and state.paused is not None:
                yield ChatResponseUpdate(contents=tuple(state.paused.requests), role="assistant")
            return
        calls, outcomes, left_to_caller = resumed
        tool_message = Message("tool", tuple(o.content for o in outcomes))
        _place_results(state, state.pending.calls, tool_message)
        state.resumed = tool_message
        state.produced.append(tool_message)
        if state.stream:
            extra = _take_extra_usage(state)
            tail = (UsageContent(extra),) if extra is not None else ()
            yield ChatResponseUpdate(contents=(*tool_message.contents, *tail), role="tool")
        direct = _return_directly_answer(state, calls, outcomes)
        if direct is not None:
            answer = Message("assistant", (TextContent(direct),))
            state.produced.append(answer)
            if state.stream:
                yield ChatResponseUpdate(contents=answer.contents, role="assistant")
            return
        state.terminated = any(o.terminated for o in outcomes)
        if state.terminated or left_to_caller:
            return
    _repair_history(state.transcript)

    iterations = 0
    error_batches = 0
    while True:
        final_call = (
            iterations >= config.max_iterations
            or error_batches >= config.max_consecutive_errors_per_request
        )
        call_options = options
        if final_call:
            call_options = {**options, "tool_choice": "none"}
        if state.stream:
            stream = await _open_model_stream(state, call_options)
            async with stream:
                async for update in stream:
                    yield update
                response = await stream.get_final_response()
        else:
            response = await _call_model(state, call_options)
        iterations += 1
        state.responses.append(response)
        state.transcript.extend(response.messages)
        state.produced.extend(response.messages)
        if state.observers:
            await state.observers.notify(
                "on_model_call_end", ModelCallEnded(state.run.run_id, response)
            )
        calls = _function_calls(response)
        if (
            not calls
            or final_call
            or state.terminated
            or not config.enabled
            or call_options.get("tool_choice") == "none"
        ):
            return

        waiting = [
            c
            for c in calls
            if (tool := state.function_tools.get(c.name)) is not None
            and tool.approval_mode == "always_require"
        ]
        if waiting:
            requests = [FunctionApprovalRequestContent(function_call=c) for c in waiting]
            state.paused = PendingApprovals(calls=list(calls), requests=requests)
            _attach_requests(state, requests)
            if state.stream:
                yield ChatResponseUpdate(contents=tuple(requests), role="assistant")
            return

        declared = _declared_only_names(state)
        declared_only = bool(declared) and any(c.name in declared for c in calls)
        if declared_only:
            # Calls to tools declared but not run here go back to the caller, pending.
            calls = [c for c in calls if c.name not in declared]
            if not calls:
                return

        outcomes = await _run_batch(state, calls)
        tool_message = Message("tool", tuple(o.content for o in outcomes))
        state.transcript.append(tool_message)
        state.produced.append(tool_message)
        if state.stream:
            extra = _take_extra_usage(state)
            tail = (UsageContent(extra),) if extra is not None else ()
            yield ChatResponseUpdate(contents=(*tool_message.contents, *tail), role="tool")

        direct = _return_directly_answer(state, calls, outcomes)
        if direct is not None:
            answer = Message("assistant", (TextContent(direct),))
            state.transcript.append(answer)
            state.produced.append(answer)
            if state.stream:
                yield ChatResponseUpdate(contents=answer.contents, role="assistant")
            return
        if any(o.terminated for o in outcomes) or required or declared_only:
            state.terminated = any(o.terminated for o in outcomes)
            return
        error_batches = error_batches + 1 if any(o.errored for o in outcomes) else 0


def _take_extra_usage(state: LoopState) -> Usage | None:
    """Usage spent by tools (agents used as tools) and not streamed yet.

    It stays in ``run.extra_usage`` so ``response()`` counts it in both modes.
    """
    extra = state.run.extra_usage
    start, state.extra_streamed = state.extra_streamed, len(extra)
    return Usage.sum(extra[start:])


def _declared_only_names(state: LoopState) -> set[str]:
    """Names of tools declared to the model but not run here (``additional_tools``)."""
    if not state.config.additional_tools:
        return set()
    return {name for item in state.config.additional_tools if (name := _tool_name(item))}


def _attach_requests(state: LoopState, requests: list[FunctionApprovalRequestContent]) -> None:
    # The requests join the assistant message that made the calls, as the fold of a
    # streamed run puts them there too.
    last = state.produced[-1]
    state.produced[-1] = attrs.evolve(last, contents=(*last.contents, *requests))


def _return_directly_answer(
    state: LoopState, calls: list[FunctionCallContent], outcomes: list[_Outcome]
) -> str | None:
    for call, outcome in zip(calls, outcomes, strict=True):
        tool = state.function_tools.get(call.name)
        if tool is None or outcome.errored:
            continue
        if tool.return_directly or call.name in state.return_directly:
            return _answer_text(outcome.content.result)
    return None


async def _resume(
    state: LoopState,
    pending: PendingApprovals,
    decisions: Sequence[FunctionApprovalResponseContent],
) -> tuple[list[FunctionCallContent], list[_Outcome], bool] | None:
    """Run (or reject) the calls of a paused batch once every decision is in.

    Returns the calls answered, their outcomes in call order, and whether calls to
    ``additional_tools`` are left for the caller; ``None`` while still waiting.
    """
    by_id = {r.id: r for r in pending.requests}
    verdicts: dict[str, FunctionApprovalResponseContent] = {}
    for decision in decisions:
        request = by_id.get(decision.id)
        # A decision counts only if it answers a request this run is waiting for,
        # about the very call that request was made for.
        if request is not None and request.function_call == decision.function_call:
            verdicts[request.function_call.call_id] = decision
    if len(verdicts) < len(pending.requests):
        state.paused = PendingApprovals(
            calls=pending.calls,
            requests=[r for r in pending.requests if r.function_call.call_id not in verdicts],
        )
        state.produced.append(Message("assistant", tuple(state.paused.requests)))
        return None
    declared = _declared_only_names(state)
    answered = [c for c in pending.calls if c.name not in declared]
    to_run = [
        c for c in answered if not (c.call_id in verdicts and not verdicts[c.call_id].approved)
    ]
    ran = dict(zip((c.call_id for c in to_run), await _run_batch(state, to_run), strict=True))
    outcomes: list[_Outcome] = []
    for call in answered:
        outcome = ran.get(call.call_id)
        if outcome is None:
            reason = verdicts[call.call_id].reason
            note = "The user rejected this call." + (f" Reason: {reason}" if reason else "")
            outcome = _error(call, note, "rejected")
        outcomes.append(outcome)
    return answered, outcomes, len(answered) < len(pending.calls)


async def _call_model(state: LoopState, options: dict[str, Any]) -> ChatResponse[Any]:
    handlers = state.pipelines.chat
    if state.observers:
        await state.observers.notify(
            "on_model_call_start",
            ModelCallStarted(state.run.run_id, tuple(state.transcript), dict(options)),
        )
    if not handlers:
        return await state.client.get_response(state.transcript, options=options)
    context = ChatContext(
        client=state.client,
        messages=list(state.transcript),
        options=dict(options),
        stream=False,
        run=state.run,
        transcript=state.transcript,
    )
    await run_pipeline(handlers, context, _final_chat_call, _on_chat_termination)
    if context.metadata.get("terminated"):
        state.terminated = True
    result = context.result
    if isinstance(result, ResponseStream):
        raise TypeError(
            "a chat middleware set a stream as the result of a non-streaming call; "
            "check context.stream before replacing context.result"
        )
    return result if result is not None else ChatResponse()


async def _final_chat_call(context: ChatContext) -> None:
    if context.stream:
        context.result = context.client.get_response(
            context.messages, options=context.options, stream=True
        )
    else:
        context.result = await context.client.get_response(
            context.messages, options=context.options
        )


async def _open_model_stream(
    state: LoopState, options: dict[str, Any]
) -> ResponseStream[ChatResponseUpdate, ChatResponse[Any]]:
    handlers = state.pipelines.chat
    if state.observers:
        await state.observers.notify(
            "on_model_call_start",
            ModelCallStarted(state.run.run_id, tuple(state.transcript), dict(options)),
        )
    if not handlers:
        return state.client.get_response(state.transcript, options=options, stream=True)
    context = ChatContext(
        client=state.client,
        messages=list(state.transcript),
        options=dict(options),
        stream=True,
        run=state.run,
        transcript=state.transcript,
    )
    await run_pipeline(handlers, context, _final_chat_call, _on_chat_termination)
    if context.metadata.get("terminated"):
        state.terminated = True
    result = context.result
    if result is None:
        return stream_of(ChatResponse())
    if isinstance(result, ChatResponse):
        return stream_of(result)  # pyright: ignore[reportUnknownArgumentType]
    return result


async def _run_batch(state: LoopState, calls: list[FunctionCallContent]) -> list[_Outcome]:
    if state.config.terminate_on_unknown_calls:
        # Raised before any call of the batch starts, and not wrapped in an
        # exception group by the task group below.
        for call in calls:
            if call.name not in state.function_tools:
                raise UnknownToolError(call.name, list(state.function_tools))
    if len(calls) <= 1:
        return [await _invoke(state, calls[0])] if calls else []
    outcomes: list[_Outcome | None] = [None] * len(calls)
    limit = state.config.max_concurrency
    limiter = anyio.CapacityLimiter(limit) if limit is not None else None

    async def run_one(position: int, call: FunctionCallContent) -> None:
        if limiter is None:
            outcomes[position] = await _invoke(state, call)
        else:
            async with limiter:
                outcomes[position] = await _invoke(state, call)

    async with anyio.create_task_group() as group:
        for position, call in enumerate(calls):
            group.start_soon(run_one, position, call)
    return [o for o in outcomes if o is not None]


def _error(call: FunctionCallContent, message: str, kind: str) -> _Outcome:
    return _Outcome(FunctionResultContent(call.call_id, result=message, error=kind), True, False)


async def _invoke(state: LoopState, call: FunctionCallContent) -> _Outcome:
    """Run one call through the function middleware; failures become error results."""
    from agentcore.tools import ToolArgumentsError, ToolContext

    tool = state.function_tools.get(call.name)
    if tool is None:
        available = ", ".join(sorted(state.function_tools)) or "none"
        return _error(
            call,
            f"Error: there is no tool named {call.name!r}. Available tools: {available}.",
            "unknown tool",
        )
    count = state.invocations.get(call.name, 0) + 1
    state.invocations[call.name] = count
    if tool.max_invocations is not None and count > tool.max_invocations:
        return _error(
            call,
            f"Error: {call.name} may be called at most {tool.max_invocations} times in one run.",
            "max invocations",
        )
    try:
        arguments = tool.parse_arguments(call.arguments)
    except ToolArgumentsError as exc:
        return _error(call, f"Error: invalid arguments for {call.name}: {exc}", "invalid arguments")

    observers = state.observers
    run = state.run
    if observers:
        await observers.notify(
            "on_tool_call_start", ToolCallStarted(run.run_id, call.call_id, call.name, arguments)
        )
    context = FunctionInvocationContext(
        function=tool, arguments=arguments, call_id=call.call_id, run=run
    )

    async def final(ctx: FunctionInvocationContext) -> None:
        ctx.result = await ctx.function.invoke(
            ctx.arguments,
            context=ToolContext(call_id=ctx.call_id, tool_name=ctx.function.name, run=ctx.run),
        )

    try:
        await run_pipeline(state.pipelines.function, context, final, _on_function_termination)
    except TimeoutError as exc:
        outcome = _error(call, f"Error: {call.name} timed out. {exc}", "timeout")
    except Exception as exc:
        detail = f" {type(exc).__name__}: {exc}" if state.config.include_detailed_errors else ""
        outcome = _error(call, f"Error: {call.name} failed.{detail}", "exception")
    else:
        terminated = bool(context.metadata.get("terminated"))
        outcome = _Outcome(
            FunctionResultContent(call.call_id, result=_result_value(context.result)),
            False,
            terminated,
        )
    if observers:
        content = outcome.content
        await observers.notify(
            "on_tool_call_end",
            ToolCallEnded(run.run_id, call.call_id, call.name, content.result, content.error),
        )
    return outcome
