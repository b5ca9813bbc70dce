"""Chat Completions answers -> agentcore responses, whole or streamed.

Both paths build the same contents in the same order (text, then function
calls), so folding the streamed updates equals the non-streamed response.
Refusals arrive as text. Only the first choice is read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from openai.types.chat import ChatCompletion, ChatCompletionChunk
from openai.types.chat.chat_completion_message import ChatCompletionMessage
from openai.types.completion_usage import CompletionUsage

from agentcore import (
    Annotation,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    ErrorContent,
    FinishReason,
    FunctionCallContent,
    Message,
    TextContent,
    Usage,
    UsageContent,
)
from agentcore_openai._content_parts import iso_timestamp

__all__ = ["ChunkReader", "chat_usage", "parse_completion"]

_FINISH: dict[str, FinishReason] = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "content_filter": "content_filter",
}


def chat_usage(usage: CompletionUsage) -> Usage:
    """Chat Completions usage figures as :class:`~agentcore.Usage`."""
    prompt = usage.prompt_tokens_details
    completion = usage.completion_tokens_details
    return Usage(
        input_tokens=usage.prompt_tokens,
        output_tokens=usage.completion_tokens,
        total_tokens=usage.total_tokens,
        cache_read_tokens=prompt.cached_tokens if prompt is not None else None,
        cache_write_tokens=prompt.cache_write_tokens if prompt is not None else None,
        reasoning_tokens=completion.reasoning_tokens if completion is not None else None,
    )


def _annotations(message: ChatCompletionMessage) -> tuple[Annotation, ...]:
    return tuple(
        Annotation(
            kind="citation",
            url=item.url_citation.url,
            title=item.url_citation.title,
            start=item.url_citation.start_index,
            end=item.url_citation.end_index,
        )
        for item in message.annotations or ()
    )


def _message_contents(message: ChatCompletionMessage) -> list[Content]:
    contents: list[Content] = []
    if message.content:
        contents.append(TextContent(message.content, annotations=_annotations(message)))
    if message.refusal:
        contents.append(TextContent(message.refusal))
    for index, call in enumerate(message.tool_calls or ()):
        if call.type == "function":
            contents.append(
                FunctionCallContent(
                    call_id=call.id,
                    name=call.function.name,
                    arguments=call.function.arguments,
                    index=index,
                )
            )
    return contents


def parse_completion(
    completion: ChatCompletion, rate_limit: dict[str, Any] | None
) -> ChatResponse[None]:
    """A whole ``ChatCompletion`` as a :class:`~agentcore.ChatResponse`."""
    contents: list[Content] = []
    finish_reason: FinishReason | None = None
    if completion.choices:
        choice = completion.choices[0]
        contents = _message_contents(choice.message)
        finish_reason = _FINISH.get(choice.finish_reason)
    return ChatResponse(
        messages=(Message("assistant", contents),) if contents else (),
        response_id=completion.id,
        model=completion.model,
        finish_reason=finish_reason,
        usage=chat_usage(completion.usage) if completion.usage is not None else None,
        created_at=iso_timestamp(completion.created),
        additional_properties={"rate_limit": rate_limit} if rate_limit else None,
    )


class ChunkReader:
    """Turns the chunks of one stream into updates; streamed calls keep their ids.

    A call's later chunks carry only its ``index``; the reader remembers which
    ``call_id`` the index got from the call's first chunk.
    """

    def __init__(self, rate_limit: dict[str, Any] | None) -> None:
        self._call_ids: dict[int, str] = {}
        self._pending_properties = {"rate_limit": rate_limit} if rate_limit else None
        self._response_id: str | None = None
        self._model: str | None = None
        self._created_at: str | None = None

    def read(self, chunk: ChatCompletionChunk) -> ChatResponseUpdate | None:
        """The update for one chunk, or ``None`` when it carries nothing."""
        self._response_id = chunk.id
        self._model = chunk.model
        if self._created_at is None:
            self._created_at = iso_timestamp(chunk.created)
        contents: list[Content] = []
        finish_reason: FinishReason | None = None
        if chunk.choices:
            choice = chunk.choices[0]
            delta = choice.delta
            if delta.content:
                contents.append(TextContent(delta.content))
            if delta.refusal:
                contents.append(TextContent(delta.refusal))
            for call in delta.tool_calls or ():
                call_id = self._call_ids.get(call.index)
                if call_id is None:
                    call_id = call.id or f"call_{call.index}"
                    self._call_ids[call.index] = call_id
                function = call.function
                contents.append(
                    FunctionCallContent(
                        call_id=call_id,
                        name=(function.name or "") if function is not None else "",
                        arguments=(function.arguments or "") if function is not None else "",
                        index=call.index,
                    )
                )
            if choice.finish_reason is not None:
                finish_reason = _FINISH.get(choice.finish_reason)
        if chunk.usage is not None:
            contents.append(UsageContent(chat_usage(chunk.usage)))
        if not contents and finish_reason is None and self._pending_properties is None:
            return None
        return self._update(contents, finish_reason)

    def error(self, error: Mapping[str, Any]) -> ChatResponseUpdate:
        """The update for an ``{"error": {...}}`` the service sent inside the stream."""
        message = error.get("message")
        code = error.get("code")
        content = ErrorContent(
            message if isinstance(message, str) and message else "error in the stream",
            code=str(code) if code is not None else None,
        )
        return self._update([content], "error")

    def _update(
        self, contents: list[Content], finish_reason: FinishReason | None
    ) -> ChatResponseUpdate:
        properties, self._pending_properties = self._pending_properties, None
        return ChatResponseUpdate(
            contents=tuple(contents),
            role="assistant" if contents else None,
            response_id=self._response_id,
            model=self._model,
            finish_reason=finish_reason,
            created_at=self._created_at,
            additional_properties=properties,
        )
