"""The tool-calling loop: model call, run the tools it asked for, call again.

:class:`ToolLoop` wraps any chat client and is itself a chat client, so it works
with or without an :class:`~agentcore.Agent`. The loop's steps (:class:`LoopRun`)
serve both modes; two short drivers call them: :func:`run_tool_loop`, an async
generator, yields every update of a streaming run (model output, then the tool
results), and :func:`run_quietly`, a coroutine, runs it without streaming (the
response is assembled from what the loop produced). The history handed to the model is always
valid: every function call has its result before the next request.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, cast, overload

from agentcore._loop.config import (
    DEFAULT_CONFIGURATION,
    NO_NAMES,
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
from agentcore._types.options import merge_options
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
        _check_messages(messages)
        opts = merge_options(options)  # refuses a non-mapping here, where it was given
        if opts.get("tools"):
            opts["tools"] = normalize_tools(opts["tools"])
        transcript, pending, decisions = paused_in_messages(messages)
        state = LoopRun(
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


def _check_messages(messages: object) -> None:
    """Refuse what is not a sequence of messages, here rather than deep in the loop."""
    kind = type(messages)
    if (kind is not list and kind is not tuple) and (
        isinstance(messages, (str, bytes, Message)) or not isinstance(messages, Sequence)
    ):
        raise TypeError(
            "ToolLoop.get_response takes a list of Message, got "
            f"{type(messages).__name__} {messages!r:.60}; wrap it: [Message('user', ...)]"
        )
    items = cast("Sequence[object]", messages)
    for position, message in enumerate(items):
        if not isinstance(message, Message):
            raise TypeError(
                f"ToolLoop.get_response takes a list of Message; item {position} is "
                f"{type(message).__name__} {message!r:.60}"
            )


async def run_quietly(state: LoopRun) -> None:
    """Run the loop without streaming; what it produced stays in ``state``.

    A coroutine, not the streaming generator read to its end: an async generator
    costs a non-streaming run about 5,000 instructions more (the event loop's
    generator hooks, the final ``StopAsyncIteration``), and there is nothing to yield.
    """
    if state.pending is not None and not await state.resume(state.pending):
        return
    repair_history(state.transcript)
    observers = state.observers
    plain_calls = not observers and not state.pipelines.chat
    while True:
        options = state.next_call_options()
        if plain_calls:
            # No chat middleware, no observers: await the client directly.
            response = await state.client.get_response(state.transcript, options=options)
        else:
            response = await call_model(state, options)
        calls = state.take_response(response)
        if observers:
            await observers.model_call_ended(state.run.run_id, state.responses[-1])
        if not calls or not await state.run_calls(calls):
            return


async def run_to_end(state: LoopRun) -> ChatResponse[None]:
    """Run the loop without streaming and return the whole response."""
    await run_quietly(state)
    return state.response()


def open_stream(state: LoopRun) -> ResponseStream[ChatResponseUpdate, ChatResponse[Any]]:
    """Run the loop as a stream of updates; the final value is their fold.

    Read as the loop produced them, the updates fold into the loop's own response,
    so that is the final value (no second fold); transforms stacked on the stream
    get the fold of what they produced.
    """
    return ResponseStream._of(  # pyright: ignore[reportPrivateUsage]  # the stream's sibling module
        run_tool_loop(state), finalizer=ChatResponse.from_updates, known_final=state.response
    )


async def run_tool_loop(state: LoopRun) -> AsyncGenerator[ChatResponseUpdate | Delegate, None]:
    """The loop as a stream: every update, model output and tool results.

    A model call's stream is delegated (``Delegate``): the stream reading the loop
    delivers the model's updates itself, with no loop step per update. Everything
    but reading the model and yielding is :class:`LoopRun`, shared with
    :func:`run_quietly`.
    """
    if state.pending is not None:
        going = await state.resume(state.pending)
        for update in state.take_updates():
            yield update
        if not going:
            return
    repair_history(state.transcript)
    observers = state.observers
    while True:
        options = state.next_call_options()
        stream = await open_model_stream(state, options)
        async with stream:
            if state.final_call:
                kept: list[ChatResponseUpdate] = []
                async for update in final_answer_updates(stream, kept):
                    yield update
                response = ChatResponse.from_updates(kept)
            else:
                yield Delegate(stream)
                response = await stream.get_final_response()
        calls = state.take_response(response)
        if observers:
            await observers.model_call_ended(state.run.run_id, state.responses[-1])
        if not calls:
            return
        going = await state.run_calls(calls)
        for update in state.take_updates():
            yield update
        if not going:
            return


class LoopRun(LoopState):
    """One execution of the loop: its self, with the steps as methods (resume a
    paused batch, the options of the next model call, and what follows a model's
    response: record it, pause for approval, run the tools, decide whether to call
    again). One object per run, so a run in flight holds one less.

    The two drivers (:func:`run_quietly`, :func:`run_tool_loop`) differ only in how
    they call the model and in yielding the updates the steps leave (streaming only).
    """

    __slots__ = ()

    def take_updates(self) -> Sequence[ChatResponseUpdate]:
        """The updates the last step left for the stream (none unless streaming)."""
        updates = self.updates
        if updates is None:
            return ()
        self.updates = None
        return updates

    def _emit(self, update: ChatResponseUpdate) -> None:
        """Leave ``update`` for a streaming caller."""
        if self.updates is None:
            self.updates = [update]
        else:
            self.updates.append(update)

    async def resume(self, pending: PausedRun) -> bool:
        """Resume the paused batch the state holds; whether the loop goes on to call
        the model."""
        resumed = await resume(self, pending)
        if resumed is None:
            if self.stream and self.paused is not None:
                self._emit(
                    ChatResponseUpdate(contents=tuple(self.paused.requests), role="assistant")
                )
            return False
        calls, outcomes, left_to_caller = resumed
        done, errored = self._finish_batch(calls, outcomes, resumed_from=pending.calls)
        if done or left_to_caller:
            return False
        self.error_batches = 1 if errored else 0
        return True

    def next_call_options(self) -> dict[str, Any]:
        """The options of the next model call; the last call (a limit reached, see
        ``final_call``) asks for an answer, no tool call."""
        config = self.config
        self.final_call = final_call = (
            self.iterations >= config.max_iterations
            or self.error_batches >= config.max_consecutive_errors_per_request
        )
        if final_call:
            return {**self.options, "tool_choice": "none"}
        return self.options

    def take_response(self, response: ChatResponse[Any]) -> list[FunctionCallContent] | None:
        """Record the model's response; the calls it asked this loop to run, or
        ``None`` when the loop ends here."""
        final_call = self.final_call
        if response.finish_reason == "error":
            raise_reported_error(response)  # a failed call, never an answer
        if final_call and not self.stream:
            response = final_answer(response)  # a stream drops calls as they come
        self.iterations += 1
        self.responses.append(response)
        self.transcript.extend(response.messages)
        self.produced.extend(response.messages)
        calls = _function_calls(response)
        if (
            not calls
            or final_call
            or self.terminated
            or not self.config.enabled
            or self.options.get("tool_choice") == "none"
        ):
            return None
        return calls

    async def run_calls(self, calls: list[FunctionCallContent]) -> bool:
        """Pause for approval or run the calls; whether the loop calls the model again."""
        config = self.config
        may_ask = bool(self.always_ask) or config.approval_policy is not None
        if may_ask and self._pause_for_approval(calls):
            return False
        declared = declared_only_names(config) if config.additional_tools else NO_NAMES
        declared_only = bool(declared) and any(c.name in declared for c in calls)
        if declared_only:
            # Calls to tools declared but not run here go back to the caller, pending.
            calls = [c for c in calls if c.name not in declared]
            if not calls:
                return False
        outcomes = await run_batch(self, calls)
        done, errored = self._finish_batch(calls, outcomes, resumed_from=None)
        tool_choice = self.options.get("tool_choice")
        if done or declared_only or tool_choice == "required" or isinstance(tool_choice, Mapping):
            return False  # a required tool call is made once
        self.error_batches = self.error_batches + 1 if errored else 0
        return True

    def _pause_for_approval(self, calls: list[FunctionCallContent]) -> bool:
        """Pause the loop when a call needs approval (some tool always asks, or an
        approval policy is set); whether it did."""
        policy = self.config.approval_policy
        always_ask = self.always_ask
        tools = self.function_tools
        waiting = [
            c
            for c in calls
            if c.name in always_ask
            or (policy is not None and c.name in tools and policy(c, tools[c.name]))
        ]
        if not waiting:
            return False
        # Raised now, not on resume: a pause holding such a call could never end.
        refuse_unknown_calls(self, calls)
        run_id = self.run.run_id
        approvals = [
            FunctionApprovalRequestContent(c, request_id(run_id, c.call_id, "approval"))
            for c in waiting
        ]
        self.paused = PausedRun(calls=list(calls), requests=list[PendingRequest](approvals))
        attach_requests(self, approvals)
        if self.stream:
            self._emit(ChatResponseUpdate(contents=tuple(approvals), role="assistant"))
        return True

    def _finish_batch(
        self,
        calls: list[FunctionCallContent],
        outcomes: list[Outcome],
        *,
        resumed_from: list[FunctionCallContent] | None,
    ) -> tuple[bool, bool]:
        """What follows a batch of tool calls, run fresh or on resume (``resumed_from``:
        the calls of the paused turn): pause for input, record the results, answer
        directly, note a termination.

        Returns whether the loop ends and whether a call failed; a streaming loop's
        updates are left in ``updates``.
        """
        stream = self.stream
        prompted = errored = terminated = False
        for outcome in outcomes:  # one pass: a batch is usually one to a few calls
            prompted = prompted or outcome.prompt is not None
            errored = errored or outcome.errored
            terminated = terminated or outcome.terminated
        if prompted:
            turn = calls if resumed_from is None else resumed_from
            requests = pause_for_input(
                self, turn, calls, outcomes, resumed=resumed_from is not None
            )
            if stream:
                self._emit(ChatResponseUpdate(contents=tuple(requests), role="assistant"))
            return True, errored
        tool_message = Message("tool", tuple([o.content for o in outcomes]))
        if resumed_from is None:
            self.transcript.append(tool_message)
        else:
            # The results belong right after the paused turn's calls, before this run's
            # input.
            place_results(self, resumed_from, tool_message)
            self.resumed = tool_message
        self.produced.append(tool_message)
        if stream:
            extra = _take_extra_usage(self)
            tail = (UsageContent(extra),) if extra is not None else ()
            self._emit(ChatResponseUpdate(contents=(*tool_message.contents, *tail), role="tool"))
        direct = (
            _return_directly_answer(self, calls, outcomes)
            if self.return_directly or self.direct_tools
            else None
        )
        if direct is not None:
            answer = Message("assistant", (TextContent(direct),))
            self.transcript.append(answer)
            self.produced.append(answer)
            if stream:
                self._emit(ChatResponseUpdate(contents=answer.contents, role="assistant"))
            return True, errored
        self.terminated = terminated
        return terminated, errored


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
