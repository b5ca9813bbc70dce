"""Small conversions: strict-schema detection, SDK errors without a status, base64 vectors."""

from __future__ import annotations

from typing import Any

import httpx2
import openai
import pytest
from agentcore_openai._embeddings import _decode
from agentcore_openai._errors import map_error
from agentcore_openai._tools import is_strict_schema, split_tools

from agentcore.errors import ChatClientError, ContextLengthExceededError, TransientError
from tests.providers.openai import wire_fixtures as fx

CLOSED = {"additionalProperties": False}


@pytest.mark.parametrize(
    ("schema", "strict"),
    [
        (
            {
                "type": "object",
                "properties": {"a": {"type": "string"}},
                "required": ["a"],
                **CLOSED,
            },
            True,
        ),
        ({"type": "object", "properties": {}, **CLOSED}, True),
        ({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}, False),
        ({"type": "object", "properties": {"a": {}, "b": {}}, "required": ["a"], **CLOSED}, False),
        (
            {
                "type": "object",
                "properties": {"inner": {"type": "object", "properties": {"x": {}}}},
                "required": ["inner"],
                **CLOSED,
            },
            False,
        ),
        (
            {
                "type": "array",
                "items": {"type": "object", "properties": {"x": {}}, "required": ["x"], **CLOSED},
            },
            True,
        ),
        ({"anyOf": [{"type": "string"}, {"type": "object", "properties": {"x": {}}}]}, False),
        (
            {
                "type": "object",
                "properties": {"p": {"$ref": "#/$defs/P"}},
                "required": ["p"],
                "$defs": {"P": {"type": "object", "properties": {"x": {}}, "required": []}},
                **CLOSED,
            },
            False,
        ),
    ],
    ids=[
        "closed",
        "empty",
        "open",
        "optional_property",
        "open_nested",
        "closed_items",
        "open_any_of",
        "open_definition",
    ],
)
def test_strict_schema_detection(schema: dict[str, Any], strict: bool) -> None:
    assert is_strict_schema(schema) is strict


class _MethodSchemaTool:
    name = "ping"
    description = ""

    def parameters(self) -> dict[str, Any]:
        return {"type": "object"}


def test_a_tool_whose_parameters_is_a_method_is_read() -> None:
    (spec,) = split_tools([_MethodSchemaTool()], "test")
    assert (spec.name, spec.description, spec.parameters) == ("ping", None, {"type": "object"})  # type: ignore[union-attr]  # a FunctionSpec


_REQUEST = httpx2.Request("POST", "http://127.0.0.1/v1/chat/completions")


def test_a_timeout_is_transient() -> None:
    error = map_error(openai.APITimeoutError(request=_REQUEST))
    assert isinstance(error, TransientError)
    assert "timed out" in str(error)


def test_an_error_inside_a_stream_is_mapped_by_its_code() -> None:
    body = fx.ERROR_CONTEXT["error"]
    error = map_error(openai.APIError(body["message"], _REQUEST, body=body))
    assert isinstance(error, ContextLengthExceededError)


def test_an_unexpected_body_is_a_client_error() -> None:
    response = httpx2.Response(200, request=_REQUEST)
    error = map_error(openai.APIResponseValidationError(response, {"id": 1}))
    assert type(error) is ChatClientError
    assert error.status_code == 200


def test_other_exceptions_pass_through() -> None:
    original = KeyError("x")
    assert map_error(original) is original


def test_base64_vectors_decode_as_little_endian_float32() -> None:
    assert _decode(fx.embedding_b64([0.5, -2.0])) == [0.5, -2.0]
