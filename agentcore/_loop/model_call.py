"""One model call of the loop, through the chat middleware, in either mode."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agentcore._loop.reported_errors import raise_reported_error
from agentcore._loop.tool_calls import tool_result_text
from agentcore._streams.stream import ResponseStream
from agentcore._types.contents import TextContent
from agentcore._types.messages import Message
from agentcore._types.responses import ChatResponse, ChatResponseUpdate
from agentcore.middleware._contexts import ChatContext
from agentcore.middleware._pipeline import MiddlewareTermination, run_pipeline

if TYPE_CHECKING:
    from agentcore._loop.state import LoopState


def _to_chat_response(value: Any) -> ChatResponse[Any]:
    if isinstance(value, ChatResponse):
        return value  # pyright: ignore[reportUnknownVariableType]  # isinstance on a generic
    if isinstance(value, Message):
        return ChatResponse(messages=(value,), finish_reason="stop")
    if value is None:
        return ChatResponse()
    return ChatResponse(
        messages=(Message("assistant", (TextContent(tool_result_text(value)),)),),
        finish_reason="stop",
    )


def _on_chat_termination(context: ChatContext, termination: MiddlewareTermination) -> None:
    context.terminated = True
    if termination.has_result:
        response = _to_chat_response(termination.result)
        context.result = ResponseStream.from_response(response) if context.stream else response


async def call_model(state: LoopState, options: dict[str, Any]) -> ChatResponse[Any]:
    handlers = state.pipelines.chat
    if state.observers:
        await state.observers.model_call_started(state.run.run_id, state.transcript, options)
    if not handlers:
        return await state.client.get_response(state.transcript, options=options)
    # Positional, in field order (client, messages, options, stream, run, transcript):
    # built for every model call.
    context = ChatContext(
        state.client, list(state.transcript), dict(options), False, state.run, state.transcript
    )
    await run_pipeline(handlers, context, _final_chat_call, _on_chat_termination)
    if context.terminated:
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
        # An error event inside the stream is raised by the loop once the stream ends;
        # retry middleware checks the first update itself (no cost per update here).
        context.result = context.client.get_response(
            context.messages, options=context.options, stream=True
        )
    else:
        # Raised inside the chat middleware, so that retry middleware sees it.
        response = await context.client.get_response(context.messages, options=context.options)
        raise_reported_error(response)
        context.result = response


async def open_model_stream(
    state: LoopState, options: dict[str, Any]
) -> ResponseStream[ChatResponseUpdate, ChatResponse[Any]]:
    handlers = state.pipelines.chat
    if state.observers:
        await state.observers.model_call_started(state.run.run_id, state.transcript, options)
    if not handlers:
        return state.client.get_response(state.transcript, options=options, stream=True)
    # Positional, in field order (client, messages, options, stream, run, transcript):
    # built for every model call.
    context = ChatContext(
        state.client, list(state.transcript), dict(options), True, state.run, state.transcript
    )
    await run_pipeline(handlers, context, _final_chat_call, _on_chat_termination)
    if context.terminated:
        state.terminated = True
    result = context.result
    if result is None:
        return ResponseStream.from_response(ChatResponse())
    if isinstance(result, ChatResponse):
        return ResponseStream.from_response(result)  # pyright: ignore[reportUnknownArgumentType]  # isinstance on a generic
    return result
