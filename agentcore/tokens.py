"""Token estimates: the one count shared by everything that budgets tokens.

Truncation, the input-size guardrail and the rate limiter all count a request the
same way: :func:`estimate_tokens` when nothing better is at hand, or the client's
own ``count_tokens`` (a :class:`~agentcore.SupportsCountTokens` client) through
:func:`count_tokens`.

The estimate is about four characters a token for text (English prose averages a
little over four with the tokenizers of OpenAI and Anthropic models), counted over
what the model reads: text, reasoning, call arguments and results, errors. An
image counts :data:`IMAGE_TOKENS` and any other file :data:`FILE_TOKENS`, whatever
its size in bytes: providers bill an image by its pixels, resized to a bounded
size, not by its encoded length.
"""

from __future__ import annotations

import inspect
import json
import math
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Final, TypeAlias

from agentcore._types.contents import (
    Content,
    DataContent,
    ErrorContent,
    FunctionCallContent,
    FunctionResultContent,
    HostedToolCallContent,
    HostedToolResultContent,
    ReasoningContent,
    TextContent,
    UriContent,
)
from agentcore._types.messages import Message
from agentcore.protocols import SupportsCountTokens
from agentcore.serialization import unstructure

__all__ = [
    "CHARS_PER_TOKEN",
    "FILE_TOKENS",
    "IMAGE_TOKENS",
    "TokenCounter",
    "count_tokens",
    "estimate_tokens",
]

CHARS_PER_TOKEN: Final = 4
"""Characters of text per estimated token."""

IMAGE_TOKENS: Final = 1_000
"""What one image counts, at any byte size: about what OpenAI and Anthropic charge for
an image near a megapixel (both scale larger images down before counting)."""

FILE_TOKENS: Final = 2_000
"""What one non-image file or attachment (a PDF, audio, a document by URI) counts."""

TokenCounter: TypeAlias = Callable[[Sequence[Message]], int]
"""Counts the tokens of some messages (for example with the model's tokenizer)."""


def _as_text(value: object) -> str:
    """A value as the model would read it: strings as they are, anything else as JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(unstructure(value), default=str, ensure_ascii=False)


def _attachment_tokens(media_type: str | None) -> int:
    is_image = media_type is not None and media_type.startswith("image/")
    return IMAGE_TOKENS if is_image else FILE_TOKENS


def _message_tokens(message: Message) -> int:
    characters = 0
    attachments = 0
    for content in message.contents:
        characters += _characters(content)
        if isinstance(content, (DataContent, UriContent)):
            attachments += _attachment_tokens(content.media_type)
    return math.ceil(characters / CHARS_PER_TOKEN) + attachments


def _characters(content: Content) -> int:
    if isinstance(content, (TextContent, ReasoningContent)):
        return len(content.text)
    if isinstance(content, FunctionCallContent):
        return len(content.name) + len(_as_text(content.arguments))
    if isinstance(content, FunctionResultContent):
        return len(_as_text(content.result)) + len(content.error or "")
    if isinstance(content, HostedToolCallContent):
        return len(_as_text(content.arguments))
    if isinstance(content, HostedToolResultContent):
        return len(_as_text(content.result))
    if isinstance(content, ErrorContent):
        return len(content.message)
    return 0  # attachments count whole (see _message_tokens); the rest is not sent


def estimate_tokens(messages: Sequence[Message], instructions: str | None = None) -> int:
    """An estimate of the tokens ``messages`` (and ``instructions``) take.

    About :data:`CHARS_PER_TOKEN` characters a token over text, reasoning, function
    call arguments and results, and errors; :data:`IMAGE_TOKENS` per image and
    :data:`FILE_TOKENS` per other file, whether inline (``DataContent``) or by URI.
    Additive over messages: the count of a list is the sum of its messages' counts.
    For an exact count use the model's tokenizer or :func:`count_tokens` with a
    client that counts.
    """
    total = sum(map(_message_tokens, messages))
    if instructions:
        total += math.ceil(len(instructions) / CHARS_PER_TOKEN)
    return total


async def count_tokens(
    messages: Sequence[Message],
    *,
    client: object | None = None,
    options: Mapping[str, Any] | None = None,
    counter: Callable[[Sequence[Message]], int | Awaitable[int]] | None = None,
) -> int:
    """The tokens of a request, by the best count available.

    In order: the client's own ``count_tokens(messages, options=options)`` when it
    is a :class:`~agentcore.SupportsCountTokens` client (exact, and counts tools and
    instructions too); else ``counter(messages)`` (sync or async), plus the
    instructions in ``options`` counted by ``counter`` as a system message; else
    :func:`estimate_tokens`. A count that is not an ``int`` raises ``TypeError``.
    """
    if client is not None and isinstance(client, SupportsCountTokens):
        return _checked(await client.count_tokens(messages, options=options))
    instructions = None if options is None else options.get("instructions")
    if not isinstance(instructions, str):
        instructions = None
    if counter is None:
        return estimate_tokens(messages, instructions=instructions)
    total = await _count_with(counter, messages)
    if instructions:
        total += await _count_with(counter, [Message("system", instructions)])
    return total


async def _count_with(
    counter: Callable[[Sequence[Message]], int | Awaitable[int]], messages: Sequence[Message]
) -> int:
    counted = counter(messages)
    if inspect.isawaitable(counted):
        counted = await counted
    return _checked(counted)


def _checked(counted: object) -> int:
    if isinstance(counted, bool) or not isinstance(counted, int):
        raise TypeError(f"the token counter returned {counted!r}, not an int")
    return counted
