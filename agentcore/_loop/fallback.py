"""The answer of a loop's last call, made when a limit was reached.

That call is made with ``tool_choice="none"``, but a model may call a tool anyway.
Such a call is never run, so it must not be returned or stored either (history
would hold a call without a result): it is dropped, and when the model gave no
text the loop answers with :data:`LIMIT_FALLBACK_TEXT`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import attrs

from agentcore._streams.stream import ResponseStream
from agentcore._types.contents import FunctionCallContent, TextContent
from agentcore._types.messages import Message
from agentcore._types.responses import ChatResponse, ChatResponseUpdate

__all__ = ["LIMIT_FALLBACK_TEXT", "final_answer", "final_answer_updates"]

LIMIT_FALLBACK_TEXT = (
    "I stopped before finishing: this request reached its limit of tool calls "
    "(max_iterations or max_consecutive_errors_per_request), so the last tool call "
    "was not run."
)
"""The answer of a run whose last call, made because a limit was hit, gave no text."""


def _has_call(contents: tuple[Any, ...]) -> bool:
    return any(isinstance(c, FunctionCallContent) for c in contents)


def final_answer(response: ChatResponse[Any]) -> ChatResponse[Any]:
    """``response`` without function calls, with the fallback text when it has no text."""
    if not any(_has_call(m.contents) for m in response.messages):
        return response
    messages: list[Message] = []
    for message in response.messages:
        kept = tuple(c for c in message.contents if not isinstance(c, FunctionCallContent))
        if kept:
            messages.append(attrs.evolve(message, contents=kept))
    if not any(m.role == "assistant" and m.text for m in messages):
        messages.append(Message("assistant", (TextContent(LIMIT_FALLBACK_TEXT),)))
    finish = "stop" if response.finish_reason == "tool_calls" else response.finish_reason
    return attrs.evolve(response, messages=tuple(messages), finish_reason=finish)


async def final_answer_updates(
    stream: ResponseStream[ChatResponseUpdate, ChatResponse[Any]], kept: list[ChatResponseUpdate]
) -> AsyncIterator[ChatResponseUpdate]:
    """The updates of the last call without function calls, then the fallback text
    when no text came. Each update yielded is also added to ``kept``, whose fold is
    the call's response."""
    texted = False
    async for update in stream:
        contents = update.contents
        if _has_call(contents):
            contents = tuple(c for c in contents if not isinstance(c, FunctionCallContent))
            update = attrs.evolve(update, contents=contents)
        if update.finish_reason == "tool_calls":
            update = attrs.evolve(update, finish_reason="stop")
        texted = texted or bool(update.text)
        kept.append(update)
        yield update
    if not texted:
        fallback = ChatResponseUpdate(
            contents=(TextContent(LIMIT_FALLBACK_TEXT),), role="assistant"
        )
        kept.append(fallback)
        yield fallback
