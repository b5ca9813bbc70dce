"""agentcore messages -> the Messages API's ``system`` and ``messages``.

Rules (also in docs/providers/anthropic.md):

- ``system`` messages are lifted out of the conversation into the top-level
  ``system`` prompt, after the run's instructions, in order, as one string (parts
  joined by blank lines);
- ``tool`` messages become ``user`` turns of ``tool_result`` blocks;
- adjacent turns of the same role are merged, since the API wants user and
  assistant turns to alternate, and a user turn's tool results go first;
- a user turn that is one plain text goes as a string, as every server takes it;
- reasoning and hosted-tool contents go back only when they came from this
  provider (blocks the adapter does not model among them); error and usage
  contents are metadata and are not sent.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence
from typing import Any, Literal
from urllib.parse import unquote_to_bytes, urlsplit

from agentcore import (
    Content,
    DataContent,
    FunctionCallContent,
    FunctionResultContent,
    HostedToolCallContent,
    HostedToolResultContent,
    Message,
    ReasoningContent,
    TextContent,
    UriContent,
)
from agentcore.adapters import tool_result_contents
from agentcore_anthropic._options import PROVIDER, REDACTED_THINKING_ID

__all__ = ["convert_messages"]

Block = dict[str, Any]
WireRole = Literal["user", "assistant"]

_IMAGE_TYPES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
_PDF = "application/pdf"
_ADAPTER = "AnthropicChatClient"


def convert_messages(
    messages: Sequence[Message], instructions: str | None
) -> tuple[str, list[dict[str, Any]]]:
    """The ``system`` prompt (``""`` for none) and the alternating ``messages``."""
    system: list[str] = [instructions] if instructions else []
    turns: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "system":
            text = _system_text(message)
            if text:
                system.append(text)
            continue
        role: WireRole = "assistant" if message.role == "assistant" else "user"
        blocks = [b for c in message.contents for b in _blocks(c, role)]
        if not blocks:
            continue
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})
    for turn in turns:
        if turn["role"] == "user":
            # The API wants a turn's tool results before anything else in it (stable).
            turn["content"].sort(key=_not_a_tool_result)
            content = turn["content"]
            if len(content) == 1 and content[0].keys() == {"type", "text"}:
                turn["content"] = content[0]["text"]  # plain text: a string, not blocks
    return "\n\n".join(system), turns


def _not_a_tool_result(block: Block) -> bool:
    return block.get("type") != "tool_result"


def _system_text(message: Message) -> str:
    parts: list[str] = []
    for content in message.contents:
        if not isinstance(content, TextContent):
            raise ValueError(
                f"{_ADAPTER} sends system messages as the system prompt, which holds text only; "
                f"got {type(content).__name__} in a system message"
            )
        parts.append(content.text)
    return "".join(parts)


def _blocks(content: Content, role: WireRole) -> list[Block]:
    if isinstance(content, TextContent):
        return [{"type": "text", "text": content.text}] if content.text else []
    if isinstance(content, FunctionCallContent):
        return [_tool_use(content)]
    if isinstance(content, FunctionResultContent):
        return [_tool_result(content)]
    if isinstance(content, ReasoningContent):
        return _reasoning(content)
    if isinstance(content, (HostedToolCallContent, HostedToolResultContent)):
        if content.provider == PROVIDER and content.raw is not None:
            return [dict(content.raw)]
        return []
    if content.type in ("error", "usage"):
        return []
    if isinstance(content, (DataContent, UriContent)):
        if role == "assistant":
            raise ValueError(
                f"{_ADAPTER} cannot send {type(content).__name__} in an assistant message: "
                "the Messages API takes images and documents from the user side only"
            )
        return [_media_block(content)]
    raise ValueError(
        f"{_ADAPTER} cannot send {type(content).__name__} to the Messages API; "
        "resolve approvals before the request reaches the client"
    )


def _tool_use(call: FunctionCallContent) -> Block:
    try:
        arguments = call.parse_arguments()
    except ValueError:
        # Arguments the model cut short cannot go back as JSON; the call's result
        # tells the model what went wrong, and an empty input keeps the turn valid.
        arguments = {}
    return {"type": "tool_use", "id": call.call_id, "name": call.name, "input": arguments}


def _tool_result(result: FunctionResultContent) -> Block:
    block: Block = {"type": "tool_result", "tool_use_id": result.call_id}
    value = result.result
    if value is None and result.error is not None:
        value = result.error
    block["content"] = _result_content(result, value)
    if result.error is not None:
        block["is_error"] = True
    return block


def _result_content(result: FunctionResultContent, value: Any) -> str | list[Block]:
    if isinstance(value, str):
        return value
    contents = tool_result_contents(result, _carries)
    if contents is not None:
        return [
            {"type": "text", "text": v.text} if isinstance(v, TextContent) else _media_block(v)
            for v in contents
        ]
    if value is None:
        return ""
    return json.dumps(value, default=str, ensure_ascii=False)


def _carries(content: DataContent | UriContent) -> bool:
    """Whether ``_media_block`` sends ``content`` (a tool result's media that it would
    refuse go to the model as text instead)."""
    if isinstance(content, UriContent):
        if not content.uri.startswith("data:"):
            media_type = (content.media_type or "").lower()
            pdf = media_type == _PDF or (
                not media_type and urlsplit(content.uri).path.lower().endswith(".pdf")
            )
            return pdf or not media_type or media_type.startswith("image/")
        try:
            content = _decode_data_uri(content.uri)
        except ValueError:
            return False
    media_type = content.media_type.split(";", 1)[0].strip().lower()
    if media_type in _IMAGE_TYPES or media_type == _PDF:
        return True
    if media_type != "text/plain":
        return False
    try:
        content.data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _reasoning(content: ReasoningContent) -> list[Block]:
    if content.provider != PROVIDER or content.protected_data is None:
        # Another provider's reasoning means nothing here, and a thinking block
        # without its signature is rejected by the API.
        return []
    if content.id is not None and content.id.startswith(REDACTED_THINKING_ID):
        return [{"type": "redacted_thinking", "data": content.protected_data}]
    return [{"type": "thinking", "thinking": content.text, "signature": content.protected_data}]


def _media_block(content: DataContent | UriContent) -> Block:
    if isinstance(content, UriContent):
        if content.uri.startswith("data:"):
            return _media_block(_decode_data_uri(content.uri))
        return _url_block(content)
    media_type = content.media_type.split(";", 1)[0].strip().lower()
    if media_type in _IMAGE_TYPES:
        source: Block = {"type": "base64", "media_type": media_type, "data": content.base64}
        return {"type": "image", "source": source}
    if media_type == _PDF:
        block: Block = {
            "type": "document",
            "source": {"type": "base64", "media_type": _PDF, "data": content.base64},
        }
    elif media_type == "text/plain":
        block = {
            "type": "document",
            "source": {
                "type": "text",
                "media_type": "text/plain",
                "data": content.data.decode("utf-8"),
            },
        }
    else:
        raise ValueError(
            f"{_ADAPTER} cannot send DataContent of media type {content.media_type!r}: the "
            f"Messages API takes images ({', '.join(sorted(_IMAGE_TYPES))}), PDFs and plain text"
        )
    if content.name:
        block["title"] = content.name
    return block


def _url_block(content: UriContent) -> Block:
    media_type = (content.media_type or "").lower()
    path = urlsplit(content.uri).path.lower()
    if media_type == _PDF or (not media_type and path.endswith(".pdf")):
        return {"type": "document", "source": {"type": "url", "url": content.uri}}
    if not media_type or media_type.startswith("image/"):
        return {"type": "image", "source": {"type": "url", "url": content.uri}}
    raise ValueError(
        f"{_ADAPTER} cannot send UriContent of media type {content.media_type!r}: "
        "the Messages API takes image and PDF URLs"
    )


def _decode_data_uri(uri: str) -> DataContent:
    header, sep, payload = uri[5:].partition(",")
    if not sep:
        raise ValueError(f"{_ADAPTER} got a malformed data: URI (no ',' before the data)")
    params = header.split(";")
    media_type = params[0] or "text/plain"
    try:
        data = (
            base64.b64decode(payload, validate=True)
            if "base64" in params[1:]
            else unquote_to_bytes(payload)
        )
    except (binascii.Error, ValueError) as exc:
        raise ValueError(f"{_ADAPTER} got a data: URI whose base64 does not decode: {exc}") from exc
    return DataContent(data=data, media_type=media_type)
