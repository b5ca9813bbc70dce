"""Every wire fixture must be a valid value of the installed SDK's own types.

If an SDK upgrade changes a shape, these fail first and point at the fixture.
"""

from __future__ import annotations

from typing import Any

import pytest
from anthropic.types import Message, MessageTokensCount, RawMessageStreamEvent
from anthropic.types.beta import BetaMessage, BetaRawMessageStreamEvent
from anthropic.types.shared import ErrorResponse
from pydantic import TypeAdapter

from tests.providers.anthropic.fixtures import (
    BETA_ONLY,
    CATALOGUE,
    COUNT_TOKENS,
    error_body,
    sse_events,
)

_EVENT = TypeAdapter[Any](RawMessageStreamEvent)
_BETA_EVENT = TypeAdapter[Any](BetaRawMessageStreamEvent)


@pytest.mark.parametrize("name", sorted(CATALOGUE))
def test_message_fixture_is_a_valid_sdk_message(name: str) -> None:
    fixture = CATALOGUE[name]
    model = BetaMessage if name in BETA_ONLY else Message
    parsed = model.model_validate(fixture)
    assert [block.type for block in parsed.content] == [b["type"] for b in fixture["content"]]


@pytest.mark.parametrize("name", sorted(CATALOGUE))
def test_stream_fixture_events_are_valid_sdk_events(name: str) -> None:
    adapter = _BETA_EVENT if name in BETA_ONLY else _EVENT
    for event, data in sse_events(CATALOGUE[name]):
        if event == "ping":
            assert data == {"type": "ping"}
            continue
        parsed = adapter.validate_python(data)
        assert parsed.type == event


def test_error_fixture_is_a_valid_sdk_error_response() -> None:
    parsed = ErrorResponse.model_validate(error_body("overloaded_error", "Overloaded"))
    assert parsed.error.type == "overloaded_error"


def test_count_tokens_fixture_is_a_valid_sdk_token_count() -> None:
    parsed = MessageTokensCount.model_validate(COUNT_TOKENS)
    assert parsed.input_tokens == COUNT_TOKENS["input_tokens"]
