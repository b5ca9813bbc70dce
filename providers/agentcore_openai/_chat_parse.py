"""Chat Completions answers -> agentcore responses, whole or streamed.

Both paths build the same contents in the same order (text, then function
calls), so folding the streamed updates equals the non-streamed response.
Refusals arrive as text. Only the choice with ``index`` 0 is read (a request
never asks for more; a server that sends more does not mix them into one
answer). An answer without that choice (no ``choices``, an empty list, only
other indexes) is a :class:`~agentcore.errors.MalformedResponseError`, never an
empty answer. Fields compatible servers leave out (``created``, ``model``, usage
details) are left unset.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from openai.types.chat import ChatCompletion, ChatCompletionChunk
from openai.types.chat.chat_completion_chunk import ChoiceDeltaToolCall
from openai.types.chat.chat_completion_message import ChatCompletionMessage
from openai.types.completion_usage import CompletionUsage
from pydantic import BaseModel

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
from agentcore_openai._sse import malformed

__all__ = ["ChunkReader", "chat_usage", "parse_completion"]

_FINISH: dict[str, FinishReason] = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "content_filter": "content_filter",
}


def chat_usage(usage: CompletionUsage) -> Usage:
    """Chat Completions usage figures as :class:`~agentcore.Usage` (missing ones unset)."""
    prompt = getattr(usage, "prompt_tokens_details", None)
    completion = getattr(usage, "completion_tokens_details", None)
    return Usage(
        input_tokens=getattr(usage, "prompt_tokens", None),
        output_tokens=getattr(usage, "completion_tokens", None),
        total_tokens=getattr(usage, "total_tokens", None),
        cache_read_tokens=getattr(prompt, "cached_tokens", None),
        cache_write_tokens=getattr(prompt, "cache_write_tokens", None),
        reasoning_tokens=getattr(completion, "reasoning_tokens", None),
    )


def _text(value: object) -> str:
    """A text field's value; ``TypeError`` (reported as malformed) when it is no string."""
    if not isinstance(value, str):
        raise TypeError(f"a text field holds a {type(value).__name__}, not a string")
    return value


def _first_choice(choices: object) -> Any:
    """The choice with ``index`` 0 (a choice without an index counts as 0), or ``None``.

    ``TypeError`` when ``choices`` is not a list of objects (the caller reports it).
    """
    if choices is None:
        return None
    if not isinstance(choices, list):
        raise TypeError(f"'choices' is a {type(choices).__name__}, not a list")
    for choice in cast("list[object]", choices):
        if not isinstance(choice, BaseModel):
            raise TypeError(f"a choice is a {type(choice).__name__}, not an object")
        if getattr(choice, "index", 0) in (0, None):
            return choice
    return None


def _indexes(choices: object) -> set[str]:
    """The indexes of ``choices``, once :func:`_first_choice` found none of them is 0."""
    return {str(getattr(choice, "index", None)) for choice in cast("list[object]", choices or ())}


def _no_first_choice(choices: object) -> str:
    """What is wrong with a whole answer that has no choice with ``index`` 0."""
    if choices is None:
        return "it has no 'choices' (the list of answers), so it holds no answer"
    if not _indexes(choices):
        return "its 'choices' is empty, so it holds no answer"
    indexes = ", ".join(sorted(_indexes(choices)))
    return f"it has no choice with index 0, only index {indexes}{_ONE_ANSWER}"


_ONE_ANSWER = " (a request asks for one answer, which is choice 0)"


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
        contents.append(TextContent(_text(message.content), annotations=_annotations(message)))
    if message.refusal:
        contents.append(TextContent(_text(message.refusal)))
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
    """A whole ``ChatCompletion`` as a :class:`~agentcore.ChatResponse`.

    :class:`~agentcore.errors.MalformedResponseError` when it has no choice with
    ``index`` 0.
    """
    choices = getattr(completion, "choices", None)
    choice = _first_choice(choices)
    if choice is None:
        raise malformed("chat completion", _no_first_choice(choices))
    contents = _message_contents(choice.message)
    finish_reason = _FINISH.get(getattr(choice, "finish_reason", None) or "")
    usage = getattr(completion, "usage", None)
    return ChatResponse(
        messages=(Message("assistant", contents),) if contents else (),
        response_id=getattr(completion, "id", None),
        model=getattr(completion, "model", None),
        finish_reason=finish_reason,
        usage=chat_usage(usage) if usage is not None else None,
        created_at=iso_timestamp(getattr(completion, "created", None)),
        additional_properties={"rate_limit": rate_limit} if rate_limit else None,
    )


class ChunkReader:
    """Turns the chunks of one stream into updates; streamed calls keep their ids.

    A call's later chunks carry only its ``index``; the reader remembers which
    ``call_id`` the index got from the call's first chunk. A chunk that brings a new
    id at an index already in use starts a new call (some servers number every call
    0); the calls keep their own ids and the order they came in. :attr:`finished`
    once the choice has its finish reason; :meth:`check_choices` at the end.
    """

    def __init__(self, rate_limit: dict[str, Any] | None) -> None:
        self.finished = False
        self._read_choice = False
        self._other_indexes: set[str] = set()  # of choices not read
        self._call_ids: dict[int, str] = {}
        self._pending_properties = {"rate_limit": rate_limit} if rate_limit else None
        self._response_id: str | None = None
        self._model: str | None = None
        self._created_at: str | None = None

    def read(self, chunk: ChatCompletionChunk) -> ChatResponseUpdate | None:
        """The update for one chunk, or ``None`` when it carries nothing."""
        self._response_id = getattr(chunk, "id", None) or self._response_id
        self._model = getattr(chunk, "model", None) or self._model
        if self._created_at is None:
            self._created_at = iso_timestamp(getattr(chunk, "created", None))
        contents: list[Content] = []
        finish_reason: FinishReason | None = None
        choice = _first_choice(chunk.choices)
        if choice is None:
            if chunk.choices:
                self._other_indexes |= _indexes(chunk.choices)
        else:
            self._read_choice = True
            delta = choice.delta
            if delta.content:
                contents.append(TextContent(_text(delta.content)))
            if delta.refusal:
                contents.append(TextContent(_text(delta.refusal)))
            for call in delta.tool_calls or ():
                contents.append(self._call_piece(call))
            if choice.finish_reason is not None:
                self.finished = True
                finish_reason = _FINISH.get(choice.finish_reason)
        usage = getattr(chunk, "usage", None)
        if usage is not None:
            contents.append(UsageContent(chat_usage(usage)))
        if not contents and finish_reason is None and self._pending_properties is None:
            return None
        return self._update(contents, finish_reason)

    def check_choices(self, *, ended: bool) -> None:
        """At the end of a stream that reported no error: a
        :class:`~agentcore.errors.MalformedResponseError` when no chunk had a choice with
        ``index`` 0 but some had others, or when the stream ``ended`` (``[DONE]``)
        without any choice. A stream cut short before its first choice is left to the
        caller (an incomplete answer)."""
        if self._read_choice:
            return
        if self._other_indexes:
            indexes = ", ".join(sorted(self._other_indexes))
            problem = f"no chunk had a choice with index 0, only index {indexes}{_ONE_ANSWER}"
            raise malformed("stream", problem)
        if ended:
            raise malformed("stream", "it ended with [DONE] but no chunk had a choice (an answer)")

    def _call_piece(self, call: ChoiceDeltaToolCall) -> FunctionCallContent:
        index = call.index
        call_id = self._call_ids.get(index)
        if call_id is None or (call.id and call.id != call_id):
            call_id = call.id or f"call_{index}"
            self._call_ids[index] = call_id
        function = call.function
        return FunctionCallContent(
            call_id=call_id,
            name=(function.name or "") if function is not None else "",
            arguments=(function.arguments or "") if function is not None else "",
            index=index,
        )

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
