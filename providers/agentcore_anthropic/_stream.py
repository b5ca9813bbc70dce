"""Messages API server-sent events -> :class:`agentcore.ChatResponseUpdate` values.

Text, thinking and function-call arguments are passed on as they arrive.
Blocks that only make sense whole (hosted tool calls, whose input streams as
JSON pieces, and text that carries citations) are passed on when they stop, so
the fold of the updates equals the non-streamed response. Blocks the adapter does
not model are kept whole (their deltas joined onto them) and passed on when they
stop. A stream that ends before ``message_stop`` is a
:class:`~agentcore.errors.TransientError`, never a complete answer; when events
without an ``event:`` line were skipped on the way (the SDK skips them too), it
is a :class:`~agentcore.errors.MalformedResponseError` saying so instead: the
server or a proxy drops the lines, and asking again would get the same answer.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Callable, Mapping
from typing import Any

import httpx2

from agentcore import (
    Annotation,
    ChatResponseUpdate,
    Content,
    ErrorContent,
    FinishReason,
    FunctionCallContent,
    ReasoningContent,
    TextContent,
    UsageContent,
)
from agentcore.adapters import DEFAULT_MAX_EVENT_SIZE
from agentcore.errors import TransientError
from agentcore.sse import SseEvent, close_body, server_sent_events
from agentcore_anthropic._errors import READ_ERRORS, malformed
from agentcore_anthropic._options import PROVIDER, THINKING_ID
from agentcore_anthropic._response import (
    annotation,
    arguments_text,
    block_contents,
    finish_reason,
    hosted_call,
    obj,
    preserved,
    response_properties,
    text_content,
    usage_from,
)

__all__ = ["StreamParser", "iterate_response"]

Json = Mapping[str, Any]


class _OpenBlock:
    """A content block between its ``content_block_start`` and ``content_block_stop``."""

    __slots__ = ("block", "citations", "cited", "index", "json_parts", "text")

    def __init__(self, block: dict[str, Any], index: int) -> None:
        self.block = block
        self.index = index
        self.json_parts: list[str] = []
        self.text: list[str] = []
        self.citations: list[Annotation] = []
        self.cited = False


class StreamParser:
    """Turns decoded events into updates; one parser per response."""

    def __init__(self, rate_limit: Mapping[str, str] | None = None) -> None:
        self.rate_limit = rate_limit
        self.done = False
        self._started = False
        self._id: str | None = None
        self._model: str | None = None
        self._usage: dict[str, Any] = {}
        self._stop_reason: str | None = None
        self._container: Json | None = None
        self._open: dict[int, _OpenBlock] = {}
        self._unnamed: dict[str, int] = {}  # events skipped for want of a name, by type

    def _update(
        self,
        contents: list[Content],
        *,
        finish: FinishReason | None = None,
        properties: dict[str, Any] | None = None,
    ) -> ChatResponseUpdate:
        return ChatResponseUpdate(
            contents=tuple(contents),
            role="assistant",
            response_id=self._id,
            message_id=self._id,
            model=self._model,
            finish_reason=finish,
            additional_properties=properties,
        )

    def feed(self, event: str, data: Json) -> list[ChatResponseUpdate]:
        """The updates one event produces (often one, sometimes none)."""
        handler = _HANDLERS.get(event)
        if handler is None or self.done:
            return []
        contents = handler(self, data)
        if contents is None:
            return []
        if isinstance(contents, ChatResponseUpdate):
            return [contents]
        return [self._update(contents)] if contents else []

    def skip_unnamed(self, data: str) -> None:
        """Note an event sent without an ``event:`` line (skipped, as the SDK does)."""
        try:
            payload = json.loads(data)
        except ValueError:
            return
        kind = payload.get("type") if isinstance(payload, dict) else None  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]  # wire JSON
        if isinstance(kind, str) and kind in _HANDLERS:
            self._unnamed[kind] = self._unnamed.get(kind, 0) + 1

    def close(self) -> None:
        """Check the stream ended properly: one that ended before ``message_stop`` (or an
        ``error`` event) lost part of its answer, a :class:`TransientError`; a
        :class:`MalformedResponseError` when events were skipped for want of a name."""
        if self.done:
            return
        if self._unnamed:
            kinds = ", ".join(self._unnamed)
            raise malformed(
                "stream",
                f"{sum(self._unnamed.values())} events came without an 'event:' line ({kinds}) and "
                "were skipped, as the Anthropic SDK skips them; the Messages API names every "
                "event, so the server or a proxy in between drops the lines",
            )
        raise TransientError(
            "the Anthropic stream ended without message_stop: the answer is incomplete",
            provider=PROVIDER,
        )

    def _final(self) -> ChatResponseUpdate:
        self.done = True
        usage = usage_from(self._usage)
        return self._update(
            [UsageContent(usage)] if usage is not None else [],
            finish=finish_reason(self._stop_reason),
            properties=response_properties(None, self._stop_reason, self._container),
        )

    # -- event handlers ---------------------------------------------------------------

    def _message_start(self, data: Json) -> ChatResponseUpdate:
        message = data["message"]
        self._started = True
        self._id = message.get("id")
        self._model = message.get("model")
        self._usage = dict(message.get("usage") or {})
        contents: list[Content] = []
        for index, block in enumerate(message.get("content") or ()):
            contents.extend(block_contents(block, index))
        properties = {"rate_limit": dict(self.rate_limit)} if self.rate_limit else None
        return self._update(contents, properties=properties)

    def _block_start(self, data: Json) -> list[Content]:
        index = int(data["index"])
        block = dict(data["content_block"])
        kind = block.get("type")
        if kind == "redacted_thinking" or (isinstance(kind, str) and kind.endswith("_result")):
            return block_contents(block, index)  # results and redacted thinking arrive whole
        state = self._open[index] = _OpenBlock(block, index)
        if kind == "text":
            if block.get("citations"):
                state.cited = True
                state.citations.extend(annotation(c) for c in block["citations"])
            return self._text(state, str(block.get("text") or ""))
        if kind == "thinking":
            pieces: list[Content] = []
            if block.get("thinking"):
                pieces.append(self._reasoning(index, str(block["thinking"])))
            if block.get("signature"):
                pieces.append(self._reasoning(index, "", str(block["signature"])))
            return pieces
        if kind == "tool_use":
            return [FunctionCallContent(str(block["id"]), str(block["name"]), "", index=index)]
        return []

    def _text(self, state: _OpenBlock, text: str) -> list[Content]:
        if state.cited:
            state.text.append(text)
            return []
        return [TextContent(text)] if text else []

    def _reasoning(self, index: int, text: str, signature: str | None = None) -> ReasoningContent:
        return ReasoningContent(
            text=text, provider=PROVIDER, id=f"{THINKING_ID}_{index}", protected_data=signature
        )

    def _block_delta(self, data: Json) -> list[Content]:
        state = self._open.get(int(data["index"]))
        if state is None:
            return []
        delta = data["delta"]
        kind = delta.get("type")
        if state.block.get("type") not in _MODELLED:
            return self._unmodelled_delta(state, delta)
        if kind == "text_delta":
            return self._text(state, str(delta.get("text", "")))
        if kind == "citations_delta":
            state.cited = True
            state.citations.append(annotation(delta["citation"]))
            return []
        if kind == "thinking_delta":
            thinking = str(delta.get("thinking", ""))
            return [self._reasoning(state.index, thinking)] if thinking else []
        if kind == "signature_delta":
            return [self._reasoning(state.index, "", str(delta.get("signature", "")))]
        if kind == "input_json_delta":
            piece = str(delta.get("partial_json", ""))
            if not piece:
                return []
            state.json_parts.append(piece)
            if state.block.get("type") == "tool_use":
                call_id = str(state.block["id"])
                return [FunctionCallContent(call_id, "", piece, index=state.index)]
        return []

    def _unmodelled_delta(self, state: _OpenBlock, delta: Json) -> list[Content]:
        """A delta of a block the adapter does not model (``compaction_delta``, ...): JSON
        input pieces are gathered, other text fields joined onto the block's fields of the
        same name; the block is passed on whole when it stops."""
        if delta.get("type") == "input_json_delta":
            state.json_parts.append(str(delta.get("partial_json", "")))
            return []
        for key, value in delta.items():
            if key != "type" and isinstance(value, str):
                state.block[key] = str(state.block.get(key) or "") + value
        return []

    def _block_stop(self, data: Json) -> list[Content]:
        state = self._open.pop(int(data["index"]), None)
        if state is None:
            return []
        block = state.block
        kind = block.get("type")
        if kind == "text" and state.cited:
            return [text_content("".join(state.text), state.citations)]
        if kind == "tool_use" and not state.json_parts:
            arguments = arguments_text(block.get("input"))
            return [FunctionCallContent(str(block["id"]), "", arguments, index=state.index)]
        if kind in ("server_tool_use", "mcp_tool_use"):
            if state.json_parts:
                try:
                    block["input"] = json.loads("".join(state.json_parts))
                except ValueError:
                    # Input cut off (by max_tokens): a partial call, kept with no arguments.
                    block["input"] = {}
            return [hosted_call(block)]
        if kind not in _MODELLED:
            if state.json_parts:
                try:
                    block["input"] = json.loads("".join(state.json_parts))
                except ValueError:
                    block["input"] = {}
            return [preserved(block)]
        return []

    def _message_delta(self, data: Json) -> None:
        delta = obj(data.get("delta"))
        if delta.get("stop_reason") is not None:
            self._stop_reason = delta["stop_reason"]
        if delta.get("container") is not None:
            self._container = delta["container"]
        usage = obj(data.get("usage"))
        self._usage.update({k: v for k, v in usage.items() if v is not None})

    def _message_stop(self, _data: Json) -> ChatResponseUpdate:
        return self._final()

    def _error(self, data: Json) -> ChatResponseUpdate:
        self.done = True
        error = obj(data.get("error"))
        return self._update(
            [
                ErrorContent(
                    message=str(error.get("message") or "the stream reported an error"),
                    code=error.get("type"),
                )
            ],
            finish="error",
        )


_MODELLED = frozenset({"text", "thinking", "tool_use", "server_tool_use", "mcp_tool_use"})
"""Block types read piece by piece; others are kept whole (see :func:`preserved`)."""

_Handler = Callable[[StreamParser, Json], "list[Content] | ChatResponseUpdate | None"]
_HANDLERS: dict[str, _Handler] = {
    "message_start": StreamParser._message_start,
    "content_block_start": StreamParser._block_start,
    "content_block_delta": StreamParser._block_delta,
    "content_block_stop": StreamParser._block_stop,
    "message_delta": StreamParser._message_delta,
    "message_stop": StreamParser._message_stop,
    "error": StreamParser._error,
}


async def iterate_response(
    response: httpx2.Response,
    parser: StreamParser,
    *,
    max_event_size: int = DEFAULT_MAX_EVENT_SIZE,
) -> AsyncGenerator[ChatResponseUpdate, None]:
    """Read ``response``'s events and feed them to ``parser``.

    Like the SDK, events without an ``event:`` line and ``ping`` events are
    skipped. After ``message_stop`` (or an ``error`` event) the rest of the body
    is read and dropped: a body read to its end leaves no transport generator
    suspended. Closing the generator early closes the response (and the
    connection) at once. An event that is not JSON, lacks a field or has one of
    the wrong type is a :class:`~agentcore.errors.MalformedResponseError` naming it.
    """
    chunks = response.aiter_bytes()
    try:
        async for sse in server_sent_events(chunks, max_event_size=max_event_size):
            for update in _feed(parser, sse):
                yield update
        parser.close()
    finally:
        await close_body(response.aclose, chunks)  # the connection, then the generators


def _feed(parser: StreamParser, sse: SseEvent) -> list[ChatResponseUpdate]:
    if parser.done or sse.event == "ping" or not sse.data:
        return []
    if sse.event is None:
        parser.skip_unnamed(sse.data)
        return []
    excerpt = sse.data if len(sse.data) <= 200 else sse.data[:200] + "..."
    try:
        data = json.loads(sse.data)
    except ValueError as exc:
        raise malformed(f"{sse.event} event", f"not JSON ({exc}): {excerpt!r}") from exc
    if not isinstance(data, dict):
        raise malformed(f"{sse.event} event", f"a JSON {type(data).__name__}: {excerpt!r}")
    try:
        return parser.feed(sse.event, data)  # pyright: ignore[reportUnknownArgumentType]  # wire JSON
    except READ_ERRORS as exc:
        raise malformed(f"{sse.event} event", f"{exc!r} in {excerpt!r}") from exc
