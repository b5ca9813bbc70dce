"""Every wire fixture is a valid body or event for the installed SDK's own types."""

from __future__ import annotations

from typing import Any

import pydantic
import pytest
from openai import BaseModel
from openai.types import CreateEmbeddingResponse, ErrorObject
from openai.types.chat import ChatCompletion, ChatCompletionChunk
from openai.types.responses import Response, ResponseStreamEvent
from openai.types.responses.input_token_count_response import InputTokenCountResponse

from tests.providers.openai import chat_fixtures as chat_fx
from tests.providers.openai import responses_fixtures as resp_fx
from tests.providers.openai import wire_fixtures as fx

_EVENT = pydantic.TypeAdapter[Any](ResponseStreamEvent)


def _extra_keys(value: object, path: str = "$") -> list[str]:
    """Keys no SDK model declares (the SDK keeps unknown keys instead of failing)."""
    found: list[str] = []
    if isinstance(value, BaseModel):
        found += [f"{path}.{key}" for key in value.model_extra or {}]
        for name in type(value).model_fields:
            found += _extra_keys(getattr(value, name), f"{path}.{name}")
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            found += _extra_keys(item, f"{path}[{index}]")
    return found


def _check(model: BaseModel) -> None:
    assert _extra_keys(model) == []


@pytest.mark.parametrize("body", chat_fx.CHAT_COMPLETIONS)
def test_chat_completion_fixture_is_valid(body: dict[str, Any]) -> None:
    _check(ChatCompletion.model_validate(body))


@pytest.mark.parametrize("chunks", chat_fx.CHAT_CHUNK_STREAMS)
def test_chat_chunk_fixtures_are_valid(chunks: list[dict[str, Any]]) -> None:
    for chunk in chunks:
        _check(ChatCompletionChunk.model_validate(chunk))


def test_chat_stream_error_fixture_is_a_valid_error_object() -> None:
    (_, first), (_, error) = chat_fx.CHAT_STREAM_ERROR
    _check(ChatCompletionChunk.model_validate(first))
    _check(ErrorObject.model_validate(error["error"]))


@pytest.mark.parametrize("body", resp_fx.RESPONSES)
def test_response_fixture_is_valid(body: dict[str, Any]) -> None:
    _check(Response.model_validate(body))


@pytest.mark.parametrize("events", resp_fx.RESPONSE_EVENT_STREAMS)
def test_response_event_fixtures_are_valid(events: fx.Events) -> None:
    for name, data in events:
        event = _EVENT.validate_python(data)
        assert isinstance(event, BaseModel)
        assert getattr(event, "type", None) == name
        _check(event)


def test_input_tokens_fixture_is_valid() -> None:
    _check(InputTokenCountResponse.model_validate(resp_fx.INPUT_TOKENS))


@pytest.mark.parametrize("body", [fx.EMBEDDINGS_FLOAT, fx.EMBEDDINGS_BASE64])
def test_embedding_fixture_is_valid(body: dict[str, Any]) -> None:
    raw = {**body, "data": [{**item, "embedding": [0.0]} for item in body["data"]]}
    _check(CreateEmbeddingResponse.model_validate(body if body is fx.EMBEDDINGS_FLOAT else raw))


@pytest.mark.parametrize("body", fx.ERROR_BODIES)
def test_error_fixture_is_a_valid_error_object(body: dict[str, Any]) -> None:
    _check(ErrorObject.model_validate(body["error"]))
