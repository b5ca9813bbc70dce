"""Small conversions both OpenAI APIs share: tool results, media, timestamps."""

from __future__ import annotations

import datetime
import json

from agentcore import DataContent, FunctionResultContent, TextContent, UriContent

__all__ = [
    "audio_format",
    "is_image",
    "is_pdf",
    "iso_timestamp",
    "result_text",
    "unsupported",
]

_AUDIO_FORMATS = {
    "audio/wav": "wav",
    "audio/x-wav": "wav",
    "audio/wave": "wav",
    "audio/mpeg": "mp3",
    "audio/mp3": "mp3",
}


def result_text(
    content: FunctionResultContent,
    contents: tuple[TextContent | DataContent | UriContent, ...] | None,
) -> str:
    """A function result as the string the wire takes.

    Strings go as they are, other JSON values as JSON; a failed call with no
    result sends its ``error`` text (neither OpenAI API has an error flag).
    ``contents`` (the result's text and media as the API can send them, from
    ``agentcore.adapters.tool_result_contents``) send their text parts joined (the
    media go separately).
    """
    result = content.result
    if result is None:
        return content.error or ""
    if isinstance(result, str):
        return result
    if contents is not None:
        return "\n".join(item.text for item in contents if isinstance(item, TextContent))
    return json.dumps(result, default=str, ensure_ascii=False)


def is_image(content: DataContent | UriContent) -> bool:
    """Whether the content is an image (a URI without a media type counts as one)."""
    media_type = content.media_type
    return media_type is None or media_type.startswith("image/")


def is_pdf(content: DataContent | UriContent) -> bool:
    return content.media_type == "application/pdf"


def audio_format(content: DataContent) -> str | None:
    """``"wav"`` or ``"mp3"`` for audio OpenAI accepts inline, else ``None``."""
    return _AUDIO_FORMATS.get(content.media_type)


def iso_timestamp(seconds: object) -> str | None:
    """A Unix timestamp as an ISO 8601 UTC string; ``None`` when the server sent none
    (or something that is not a usable timestamp)."""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
        return None
    try:
        moment = datetime.datetime.fromtimestamp(seconds, tz=datetime.timezone.utc)
    except (OverflowError, OSError, ValueError):
        return None
    return moment.isoformat()


def unsupported(adapter: str, what: str, hint: str = "") -> ValueError:
    """The error for content the API cannot take, raised before any request."""
    suffix = f"; {hint}" if hint else ""
    return ValueError(f"{adapter} cannot send {what}{suffix}")
