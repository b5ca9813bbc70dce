"""The one token estimate (``agentcore.tokens``) that truncation, guardrails and the
rate limiter share, and ``count_tokens``, which prefers a client that can count."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from agentcore import (
    DataContent,
    FunctionCallContent,
    FunctionResultContent,
    Message,
    ReasoningContent,
    SupportsCountTokens,
    TextContent,
    UriContent,
    estimate_tokens,
)
from agentcore.tokens import FILE_TOKENS, IMAGE_TOKENS, count_tokens

pytestmark = pytest.mark.anyio


def test_text_counts_about_four_characters_a_token() -> None:
    assert estimate_tokens([Message("user", "x" * 40)]) == 10
    assert estimate_tokens([Message("user", "x" * 41)]) == 11  # rounded up per message
    assert estimate_tokens([Message("assistant", [ReasoningContent("y" * 8)])]) == 2
    assert estimate_tokens([]) == 0


def test_calls_and_results_count_as_the_json_the_model_reads() -> None:
    call = Message("assistant", [FunctionCallContent("c1", "add", {"a": 1})])
    result = Message("tool", [FunctionResultContent("c1", {"sum": 1})])
    # "add" + '{"a": 1}' = 11 characters; '{"sum": 1}' = 10.
    assert estimate_tokens([call]) == 3
    assert estimate_tokens([result]) == 3


def test_an_image_counts_a_fixed_size_not_its_bytes() -> None:
    small = DataContent(b"\x89PNG" + bytes(100), "image/png")
    large = DataContent(b"\x89PNG" + bytes(100_000), "image/png")
    assert estimate_tokens([Message("user", [small])]) == IMAGE_TOKENS
    assert estimate_tokens([Message("user", [large])]) == IMAGE_TOKENS
    by_uri = UriContent("https://example.test/cat.jpg", "image/jpeg")
    assert estimate_tokens([Message("user", [TextContent("what is it?"), by_uri])]) == (
        IMAGE_TOKENS + 3
    )


def test_a_file_counts_a_fixed_size() -> None:
    pdf = DataContent(b"%PDF-1.7" + bytes(500_000), "application/pdf")
    assert estimate_tokens([Message("user", [pdf])]) == FILE_TOKENS
    audio = UriContent("https://example.test/a.mp3", "audio/mpeg")
    assert estimate_tokens([Message("user", [audio])]) == FILE_TOKENS
    assert FILE_TOKENS > IMAGE_TOKENS > 0


def test_the_estimate_is_additive_over_messages_and_counts_instructions() -> None:
    messages = [
        Message("user", "hello there"),
        Message("user", [DataContent(b"x" * 10, "image/png")]),
        Message("assistant", "x" * 9),
    ]
    assert estimate_tokens(messages) == sum(estimate_tokens([m]) for m in messages)
    assert estimate_tokens(messages, instructions="z" * 12) == estimate_tokens(messages) + 3


class CountingClient:
    """A client that counts tokens itself (a SupportsCountTokens client)."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, Any]] = []

    async def count_tokens(self, messages: Sequence[Message], *, options: Any | None = None) -> int:
        self.calls.append((len(messages), options))
        return 7


async def test_count_tokens_asks_a_client_that_can_count() -> None:
    client = CountingClient()
    assert isinstance(client, SupportsCountTokens)
    options = {"instructions": "be brief"}
    image = DataContent(bytes(100_000), "image/png")
    messages = [Message("user", [image])]
    assert await count_tokens(messages, client=client, options=options) == 7
    assert client.calls == [(1, options)]
    # A client without count_tokens falls back to the estimate.
    assert await count_tokens(messages, client=object(), options=options) == IMAGE_TOKENS + 2


async def test_count_tokens_uses_a_counter_for_messages_and_instructions() -> None:
    seen: list[list[str]] = []

    def counter(messages: Sequence[Message]) -> int:
        seen.append([m.role for m in messages])
        return 5

    async def async_counter(messages: Sequence[Message]) -> int:
        return 4

    messages = [Message("user", "hi")]
    options = {"instructions": "be brief"}
    assert await count_tokens(messages, options=options, counter=counter) == 10
    assert seen == [["user"], ["system"]]
    assert await count_tokens(messages, counter=async_counter) == 4


async def test_a_count_that_is_not_an_int_is_a_type_error() -> None:
    with pytest.raises(TypeError, match=r"the token counter returned '3', not an int"):
        await count_tokens([], counter=lambda messages: "3")  # type: ignore[arg-type,return-value]
