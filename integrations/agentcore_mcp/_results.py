"""An MCP ``CallToolResult`` as an agentcore :class:`~agentcore.ToolResult`.

Content blocks become contents (text, images and audio as data, resource links as
URIs, embedded resources as text or data). What the model sees follows the
toolset's ``result_mode``; by default ("content_first") the content when it says
anything, the structured content only when the content is empty, never both.
Content annotations (``audience``, ``priority``, ``lastModified``) are kept in the
result's ``meta`` under :data:`CONTENT_ANNOTATIONS`, one entry per content block.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from typing import Any, Literal, TypeAlias

from mcp import types

from agentcore import DataContent, TextContent, ToolResult, UriContent

__all__ = ["CONTENT_ANNOTATIONS", "ResultMode", "to_contents", "to_tool_result"]

CONTENT_ANNOTATIONS = "agentcore_mcp/content_annotations"
"""The key of ``ToolResult.meta`` holding the content blocks' annotations: a list with
one entry per block, in order (``None`` for a block without), present only when some
block has them."""

ResultMode: TypeAlias = Literal[
    "content_first", "structured_first", "content_only", "structured_only", "both"
]
"""What the model sees of a result holding content and structured content."""

Media: TypeAlias = TextContent | DataContent | UriContent


def to_contents(blocks: Sequence[Any]) -> list[Media]:
    """MCP content blocks as agentcore contents; unknown kinds become a text note."""
    contents: list[Media] = []
    for block in blocks:
        if isinstance(block, types.TextContent):
            contents.append(TextContent(block.text))
        elif isinstance(block, (types.ImageContent, types.AudioContent)):
            contents.append(DataContent(base64.b64decode(block.data), block.mime_type))
        elif isinstance(block, types.ResourceLink):
            contents.append(UriContent(str(block.uri), block.mime_type, name=block.name))
        elif isinstance(block, types.EmbeddedResource):
            resource = block.resource
            if isinstance(resource, types.TextResourceContents):
                contents.append(TextContent(f"{resource.uri}:\n{resource.text}"))
            else:
                media_type = resource.mime_type or "application/octet-stream"
                data = base64.b64decode(resource.blob)
                contents.append(DataContent(data, media_type, name=_name(str(resource.uri))))
        else:
            kind = getattr(block, "type", type(block).__name__)
            contents.append(TextContent(f"[{kind} content this client cannot show]"))
    return contents


def _name(uri: str) -> str:
    # What a model reads a blob as when its API cannot take it: the URI's last part.
    return uri.rstrip("/").rsplit("/", 1)[-1] or uri


def _as_value(contents: Sequence[Media]) -> Any:
    # One text block reads like a function tool's string; media keep the contents.
    if len(contents) == 1 and isinstance(contents[0], TextContent):
        return contents[0].text
    return tuple(contents) if contents else ""


def _renders(contents: Sequence[Media]) -> bool:
    return any(not isinstance(c, TextContent) or c.text.strip() for c in contents)


def to_tool_result(result: types.CallToolResult, mode: ResultMode) -> ToolResult:
    """``result`` as a :class:`ToolResult`: ``is_error`` kept, structured content and
    ``_meta`` kept for code whatever the model is shown."""
    contents = to_contents(result.content)
    structured = result.structured_content
    value: Any
    if structured is None or mode == "content_only":
        value = _as_value(contents)
    elif mode == "structured_only" or (mode == "structured_first"):
        value = structured
    elif mode == "both":
        compact = json.dumps(structured, separators=(",", ":"), ensure_ascii=False)
        value = _as_value([*contents, TextContent(compact)])
    else:  # content_first
        value = _as_value(contents) if _renders(contents) else structured
    return ToolResult(
        value=value,
        structured=structured,
        is_error=bool(result.is_error),
        meta=_meta(result),
    )


def _meta(result: types.CallToolResult) -> dict[str, Any] | None:
    meta = dict(result.meta) if result.meta else {}
    notes = [
        None
        if block.annotations is None
        else block.annotations.model_dump(by_alias=True, exclude_none=True)
        for block in result.content
    ]
    if any(note is not None for note in notes):
        meta[CONTENT_ANNOTATIONS] = notes
    return meta or None
