"""The tool-calling loop: model call, run the tools it asked for, call again.

:class:`ToolLoop` wraps any chat client and is itself a chat client, so it works
with or without an :class:`~agentcore.Agent`. One async generator drives both
modes: in a streaming run it yields every update (model output, then the tool
results) between model turns; otherwise it yields nothing and the response is
assembled from what the loop produced. The history handed to the model is always
valid: every function call has its result before the next request.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, overload

from agentcore._loop.config import (
    DEFAULT_CONFIGURATION,
    FunctionInvocationConfiguration,
    as_configuration,
    declared_only_names,
)
from agentcore._loop.fallback import final_answer, final_answer_updates
from agentcore._loop.history_repair import place_results, repair_history
from agentcore._loop.input import paused_in_messages
from agentcore._loop.model_call import call_model, open_model_stream
from agentcore._loop.pause import attach_requests, pause_for_input, resume
from agentcore._loop.reported_errors import raise_reported_error
from agentcore._loop.state import LoopState
from agentcore._loop.tool_calls import Outcome, refuse_unknown_calls, run_batch, tool_result_text
from agentcore._replay import request_id
from agentcore._run_context import RunContext
from agentcore._sessions.session import PausedRun, PendingRequest
from agentcore._streams.reader import Delegate
from agentcore._streams.stream import ResponseStream
from agentcore._types.contents import (
    FunctionApprovalRequestContent,
    FunctionCallContent,
    FunctionResultContent,
    TextContent,
    UsageContent,
)
from agentcore._types.messages import Message
from agentcore._types.responses import ChatResponse, ChatResponseUpdate
from agentcore._types.usage import Usage
from agentcore.middleware._pipeline import Pipelines, middleware_list
from agentcore.middleware._shapes import LoopMiddleware
from agentcore.tools import normalize_tools

if TYPE_CHECKING:
    from agentcore.protocols import SupportsGetResponse

__all__ = ["FunctionInvocationConfiguration", "ToolLoop"]


def _function_calls(response: ChatResponse[Any]) -> list[FunctionCallContent]:
    """The calls the model asked this loop to run: those the response does not
    answer itself (a client that runs tools, such as another ToolLoop, returns the
    calls with their results)."""
    messages = response.messages
    found = [
        c
        for m in messages
        if m.role == "assistant"
        for c in m.contents
        if isinstance(c, FunctionCallContent)
    ]
    if found and len(messages) > 1:
        answered = {
            c.call_id for m in messages for c in m.contents if isinstance(c, FunctionResultContent)
        }
        if answered:
            found = [c for c in found if c.call_id not in answered]
    return found


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
        middleware: Sequence[LoopMiddleware] = (),
    ) -> None:
        if not callable(getattr(client, "get_response", None)):
            raise TypeError(
                f"ToolLoop needs a chat client with a get_response method, got {client!r}"
            )
        pipelines = Pipelines.build(middleware_list(middleware, "middleware"))
        if pipelines.agent:
            raise TypeError(
                "agent middleware cannot run inside a ToolLoop; give it to an Agent instead"
            )
        self.client = client
        self.config: FunctionInvocationConfiguration = (
            DEFAULT_CONFIGURATION if config is None else as_configuration(config, "config")
        )
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
        opts = dict(options or {})
        if opts.get("tools"):
            opts["tools"] = normalize_tools(opts["tools"])
        transcript, pending, decisions = paused_in_messages(messages)
        state = LoopState(
            client=self.client,
            messages=transcript,
            options=opts,
            stream=stream,
            run=RunContext(),
            pipelines=self.pipelines,
            config=self.config,
            pending=pending,
            decisions=decisions,
            decline_pending=pending is not None and not decisions,
        )
        if stream:
            return open_stream(state)
        return run_to_end(state)


async def run_quietly(state: LoopState) -> None:
    """Run the loop without streaming; what it produced stays in ``state``."""
    async for _ in run_tool_loop(state):
        pass  # pragma: no cover  # a non-streaming run yields nothing


async def run_to_end(state: LoopState) -> ChatResponse[None]:
    """Run the loop without streaming and return the whole response."""
    await run_quietly(state)
    return state.response()


def open_stream(state: LoopState) -> ResponseStream[ChatResponseUpdate, ChatResponse[Any]]:
    """Run the loop as a stream of updates; the final value is their fold.

    Read as the loop produced them, the updates fold into the loop's own response,
    so that is the final value (no second fold); transforms stacked on the stream
    get the fold of what they produced.
    """
    return ResponseStream._of(  # pyright: ignore[reportPrivateUsage]  # the stream's sibling module
        run_tool_loop(state), finalizer=ChatResponse.from_updates, known_final=state.response
    )


async def run_tool_loop(state: LoopState) -> AsyncGenerator[ChatResponseUpdate | Delegate, None]:
    """The loop itself; yields updates only in a streaming run.

    A model call's stream is delegated (``Delegate``): the stream reading the loop
    delivers the model's updates itself, with no loop step per update.
    """
    config = state.config
    options = state.options
    tool_choice = options.get("tool_choice")
    required = tool_choice == "required" or isinstance(tool_choice, Mapping)
    error_batches = 0

    if state.pending is not None:
        resumed = await resume(state, state.pending)
        if resumed is None:
            if state.stream and state.paused is not None:
                yield ChatResponseUpdate(contents=tuple(state.paused.requests), role="assistant")
            return
        calls, outcomes, left_to_caller = resumed
        updates, done, errored = _finish_batch(
            state, calls, outcomes, resumed_from=state.pending.calls
        )
        for update in updates:
            yield update
        if done or left_to_caller:
            return
        error_batches = 1 if errored else 0
    repair_history(state.transcript)

    # Worked out once per loop, not per turn.
    policy = config.approval_policy
    tools = state.function_tools
    always_ask = state.always_ask
    declared = declared_only_names(config)
    observed = bool(state.observers)
    plain_calls = not observed and not state.pipelines.chat
    iterations = 0
    while True:
        final_call = (
            iterations >= config.max_iterations
            or error_batches >= config.max_consecutive_errors_per_request
        )
        call_options = options
        if final_call:
            call_options = {**options, "tool_choice": "none"}
        if state.stream:
            stream = await open_model_stream(state, call_options)
            async with stream:
                if final_call:
                    kept: list[ChatResponseUpdate] = []
                    async for update in final_answer_updates(stream, kept):
                        yield update
                    response = ChatResponse.from_updates(kept)
                else:
                    yield Delegate(stream)
                    response = await stream.get_final_response()
        elif plain_calls:
            # No chat middleware, no observers: await the client directly.
            response = await state.client.get_response(state.transcript, options=call_options)
        else:
            response = await call_model(state, call_options)
        if response.finish_reason == "error":
            raise_reported_error(response)  # a failed call, never an answer
        if final_call and not state.stream:
            response = final_answer(response)
        iterations += 1
        state.responses.append(response)
        state.transcript.extend(response.messages)
        state.produced.extend(response.messages)
        if observed:
            await state.observers.model_call_ended(state.run.run_id, response)
        calls = _function_calls(response)
        if (
            not calls
            or final_call
            or state.terminated
            or not config.enabled
            or call_options.get("tool_choice") == "none"
        ):
            return

        waiting = (
            [
                c
                for c in calls
                if c.name in always_ask
                or (policy is not None and c.name in tools and policy(c, tools[c.name]))
            ]
            if always_ask or policy is not None
            else None
        )
        if waiting:
            # Raised now, not on resume: a pause holding such a call could never end.
            refuse_unknown_calls(state, calls)
            run_id = state.run.run_id
            approvals = [
                FunctionApprovalRequestContent(c, request_id(run_id, c.call_id, "approval"))
                for c in waiting
            ]
            state.paused = PausedRun(calls=list(calls), requests=list[PendingRequest](approvals))
            attach_requests(state, approvals)
            if state.stream:
                yield ChatResponseUpdate(contents=tuple(approvals), role="assistant")
            return

        declared_only = bool(declared) and any(c.name in declared for c in calls)
        if declared_only:
            # Calls to tools declared but not run here go back to the caller, pending.
            calls = [c for c in calls if c.name not in declared]
            if not calls:
                return

        outcomes = await run_batch(state, calls)
        updates, done, errored = _finish_batch(state, calls, outcomes, resumed_from=None)
        for update in updates:
            yield update
        if done or required or declared_only:
            return
        error_batches = error_batches + 1 if errored else 0


def _finish_batch(
    state: LoopState,
    calls: list[FunctionCallContent],
    outcomes: list[Outcome],
    *,
    resumed_from: list[FunctionCallContent] | None,
) -> tuple[list[ChatResponseUpdate], bool, bool]:
    """What follows a batch of tool calls, run fresh or on resume (``resumed_from``: the
    calls of the paused turn): pause for input, record the results, answer directly,
    note a termination.

    Returns the updates to stream (none unless streaming), whether the loop ends and
    whether a call failed.
    """
    updates: list[ChatResponseUpdate] = []
    stream = state.stream
    prompted = errored = terminated = False
    for outcome in outcomes:  # one pass: a batch is usually one to a few calls
        prompted = prompted or outcome.prompt is not None
        errored = errored or outcome.errored
        terminated = terminated or outcome.terminated
    if prompted:
        turn = calls if resumed_from is None else resumed_from
        requests = pause_for_input(state, turn, calls, outcomes, resumed=resumed_from is not None)
        if stream:
            updates.append(ChatResponseUpdate(contents=tuple(requests), role="assistant"))
        return updates, True, errored
    tool_message = Message("tool", tuple([o.content for o in outcomes]))
    if resumed_from is None:
        state.transcript.append(tool_message)
    else:
        # The results belong right after the paused turn's calls, before this run's input.
        place_results(state, resumed_from, tool_message)
        state.resumed = tool_message
    state.produced.append(tool_message)
    if stream:
        extra = _take_extra_usage(state)
        tail = (UsageContent(extra),) if extra is not None else ()
        updates.append(ChatResponseUpdate(contents=(*tool_message.contents, *tail), role="tool"))
    direct = (
        _return_directly_answer(state, calls, outcomes)
        if state.return_directly or state.direct_tools
        else None
    )
    if direct is not None:
        answer = Message("assistant", (TextContent(direct),))
        state.transcript.append(answer)
        state.produced.append(answer)
        if stream:
            updates.append(ChatResponseUpdate(contents=answer.contents, role="assistant"))
        return updates, True, errored
    state.terminated = terminated
    return updates, terminated, errored


def _take_extra_usage(state: LoopState) -> Usage | None:
    """Usage spent by tools (agents used as tools) and not streamed yet.

    It stays in ``run.extra_usage`` so ``response()`` counts it in both modes.
    """
    extra = state.run.extra_usage
    start, state.extra_streamed = state.extra_streamed, len(extra)
    return Usage.sum(extra[start:])


def _return_directly_answer(
    state: LoopState, calls: list[FunctionCallContent], outcomes: list[Outcome]
) -> str | None:
    for call, outcome in zip(calls, outcomes, strict=True):
        tool = state.function_tools.get(call.name)
        if tool is None or outcome.errored:
            continue
        if tool.return_directly or call.name in state.return_directly:
            state.direct_tool = call.name
            return tool_result_text(outcome.content.result)
    return None
