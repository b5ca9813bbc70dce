"""The adapter benchmark's server answers with bodies and events the SDKs' own types
accept, so the benchmark measures the real formats."""

from __future__ import annotations

import json
from typing import Any

import pydantic
import pytest
from anthropic.types import Message as AnthropicMessage
from anthropic.types import RawMessageStreamEvent
from openai.types.chat import ChatCompletion, ChatCompletionChunk
from openai.types.responses import Response, ResponseStreamEvent

from agentcore.sse import SseDecoder
from benchmarks.wire import _REPLIES, CHUNKS


def _events(body: bytes) -> list[Any]:
    decoder = SseDecoder()
    return list(decoder.feed(body) + decoder.close())


@pytest.mark.parametrize("path", list(_REPLIES))
def test_the_benchmark_replies_are_valid_for_the_sdk(path: str) -> None:
    whole, streamed = _REPLIES[path]
    events = _events(streamed)
    if path == "/v1/chat/completions":
        ChatCompletion.model_validate_json(whole)
        assert events[-1].data == "[DONE]"
        for event in events[:-1]:
            ChatCompletionChunk.model_validate_json(event.data)
    elif path == "/v1/responses":
        Response.model_validate_json(whole)
        adapter = pydantic.TypeAdapter[Any](ResponseStreamEvent)
        for event in events:
            assert json.loads(event.data)["type"] == event.event
            adapter.validate_json(event.data)
    else:
        AnthropicMessage.model_validate_json(whole)
        adapter = pydantic.TypeAdapter[Any](RawMessageStreamEvent)
        for event in events:
            adapter.validate_json(event.data)
    deltas = [e for e in events if "word " in e.data and "delta" in e.data]
    assert len(deltas) == CHUNKS
