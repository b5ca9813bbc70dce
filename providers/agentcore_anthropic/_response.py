"""Messages API responses -> agentcore contents, usage and finish reasons.

Shared by the non-streamed path (a whole ``message`` object) and the streamed
path (blocks completed event by event), so both give the same contents.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, cast

from agentcore import (
    Annotation,
    ChatResponse,
    Content,
    FinishReason,
    FunctionCallContent,
    HostedToolCallContent,
    HostedToolResultContent,
    Message,
    ReasoningContent,
    TextContent,
    Usage,
    merge_plain_text,
)
from agentcore_anthropic._options import PROVIDER, REDACTED_THINKING_ID, THINKING_ID

__all__ = [
    "FINISH_REASONS",
    "annotation",
    "arguments_text",
    "block_contents",
    "finish_reason",
    "hosted_call",
    "obj",
    "parse_message",
    "preserved",
    "response_properties",
    "text_content",
    "usage_from",
]

Json = Mapping[str, Any]


def obj(value: Any) -> Json:
    """``value`` when it is a JSON object, else an empty one (for optional wire fields)."""
    return cast("Json", value) if isinstance(value, Mapping) else {}


def text_content(text: str, annotations: Sequence[Annotation]) -> TextContent:
    """A :class:`TextContent` with citations."""
    # cast: mypy's attrs plugin cannot type the field's ``converter=tuple``.
    return TextContent(text, annotations=cast("Any", tuple(annotations)))


FINISH_REASONS: dict[str, FinishReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    # A server-tool loop the service paused: the turn is complete as far as it
    # goes; send the response back as-is to let the model continue.
    "pause_turn": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
}

_HOSTED_CALLS = frozenset({"server_tool_use", "mcp_tool_use"})


def finish_reason(stop_reason: str | None) -> FinishReason | None:
    """Anthropic's ``stop_reason`` as an agentcore finish reason (unknown -> ``None``)."""
    return FINISH_REASONS.get(stop_reason) if stop_reason is not None else None


def usage_from(raw: Json | None) -> Usage | None:
    """The ``usage`` object as :class:`agentcore.Usage`.

    ``total_tokens`` is input + cache read + cache write + output, what the
    request consumed; ``server_tool_calls`` adds up every ``*_requests`` counter.
    """
    if not raw:
        return None
    input_tokens = raw.get("input_tokens")
    output_tokens = raw.get("output_tokens")
    cache_read = raw.get("cache_read_input_tokens")
    cache_write = raw.get("cache_creation_input_tokens")
    details = obj(raw.get("output_tokens_details"))
    server = obj(raw.get("server_tool_use"))
    server_calls = [v for k, v in server.items() if k.endswith("_requests") and isinstance(v, int)]
    return Usage(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        total_tokens=sum(n or 0 for n in (input_tokens, cache_read, cache_write, output_tokens)),
        cache_read_tokens=cache_read,
        cache_write_tokens=cache_write,
        reasoning_tokens=details.get("thinking_tokens"),
        server_tool_calls=sum(server_calls) if server_calls else None,
    )


def annotation(citation: Json) -> Annotation:
    """A citation of a text block as an :class:`agentcore.Annotation`."""
    return Annotation(
        kind="citation",
        url=citation.get("url"),
        title=citation.get("title") or citation.get("document_title"),
        file_id=citation.get("file_id"),
        quote=citation.get("cited_text"),
    )


def arguments_text(tool_input: Any) -> str:
    """A tool call's ``input`` as the JSON string agentcore's calls carry."""
    return json.dumps(tool_input if tool_input is not None else {}, ensure_ascii=False)


def hosted_call(block: Json) -> HostedToolCallContent:
    """A ``server_tool_use`` / ``mcp_tool_use`` block, kept whole in ``raw``."""
    tool_type = "mcp" if block["type"] == "mcp_tool_use" else str(block.get("name", ""))
    tool_input = block.get("input")
    return HostedToolCallContent(
        call_id=str(block.get("id", "")),
        tool_type=tool_type,
        arguments=obj(tool_input) if isinstance(tool_input, Mapping) else None,
        provider=PROVIDER,
        raw=block,
    )


def block_contents(block: Json, index: int) -> list[Content]:
    """The contents of one complete content block (``index`` is its position)."""
    kind = block.get("type")
    if kind == "text":
        citations = block.get("citations") or ()
        text = str(block.get("text", ""))
        if not text and not citations:
            return []
        return [text_content(text, [annotation(c) for c in citations])]
    if kind == "thinking":
        return [
            ReasoningContent(
                text=str(block.get("thinking", "")),
                provider=PROVIDER,
                id=f"{THINKING_ID}_{index}",
                protected_data=block.get("signature"),
            )
        ]
    if kind == "redacted_thinking":
        return [
            ReasoningContent(
                text="",
                provider=PROVIDER,
                id=f"{REDACTED_THINKING_ID}_{index}",
                protected_data=block.get("data"),
            )
        ]
    if kind == "tool_use":
        return [
            FunctionCallContent(
                call_id=str(block["id"]),
                name=str(block["name"]),
                arguments=arguments_text(block.get("input")),
                index=index,
            )
        ]
    if kind in _HOSTED_CALLS:
        return [hosted_call(block)]
    if isinstance(kind, str) and kind.endswith("_tool_result") and "tool_use_id" in block:
        tool_type = "mcp" if kind == "mcp_tool_result" else kind[: -len("_tool_result")]
        return [
            HostedToolResultContent(
                call_id=str(block["tool_use_id"]),
                tool_type=tool_type,
                result=block.get("content"),
                provider=PROVIDER,
                raw=block,
            )
        ]
    if kind == "text" or not isinstance(kind, str):
        return []  # empty text; a block without a type is no block
    return [preserved(block)]


def preserved(block: Json) -> HostedToolResultContent:
    """A block the adapter does not model (compaction, container upload, a type newer
    than this adapter), kept whole in ``raw`` so that it goes back on the next turn.

    ``tool_type`` is the block's ``type``; ``call_id`` its ``id`` (or ``tool_use_id``)
    when it has one.
    """
    return HostedToolResultContent(
        call_id=str(block.get("id") or block.get("tool_use_id") or ""),
        tool_type=str(block.get("type")),
        provider=PROVIDER,
        raw=block,
    )


def response_properties(
    rate_limit: Mapping[str, str] | None, stop_reason: str | None, container: Json | None
) -> dict[str, Any] | None:
    """``additional_properties`` of a response: rate limits, raw stop reason, container."""
    properties: dict[str, Any] = {}
    if rate_limit:
        properties["rate_limit"] = dict(rate_limit)
    if stop_reason is not None:
        properties["stop_reason"] = stop_reason
    if container and container.get("id"):
        properties["container_id"] = container["id"]
    return properties or None


def parse_message(data: Json, rate_limit: Mapping[str, str] | None) -> ChatResponse[None]:
    """A whole (non-streamed) ``message`` object as a :class:`ChatResponse`."""
    contents: list[Content] = []
    for index, block in enumerate(data.get("content") or ()):
        contents.extend(block_contents(block, index))
    message_id = data.get("id")
    messages = (
        (Message("assistant", tuple(merge_plain_text(contents)), message_id=message_id),)
        if contents
        else ()
    )
    stop_reason = data.get("stop_reason")
    return ChatResponse(
        messages=messages,
        response_id=message_id,
        model=data.get("model"),
        finish_reason=finish_reason(stop_reason),
        usage=usage_from(data.get("usage")),
        additional_properties=response_properties(rate_limit, stop_reason, data.get("container")),
    )
