"""agentcore.serialization: round trips of every kernel value, the envelope, and errors."""

from __future__ import annotations

import json
from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

import agentcore
from agentcore import (
    AgentResponse,
    AgentSession,
    ChatResponse,
    Content,
    DataContent,
    Embedding,
    EmbeddingGenerationOptions,
    FunctionApprovalRequestContent,
    FunctionApprovalResponseContent,
    FunctionCallContent,
    GeneratedEmbeddings,
    HostedTool,
    MCPTool,
    Message,
    TextContent,
    Usage,
    WebSearchTool,
)
from agentcore._types.contents import CONTENT_TYPES
from agentcore._types.hosted_tools import HOSTED_TOOL_TYPES
from agentcore.errors import AgentcoreError
from agentcore.serialization import (
    SCHEMA_VERSION,
    SerializationError,
    converter,
    from_dict,
    from_json,
    structure,
    to_dict,
    to_json,
    unstructure,
)
from tests.strategies import VALUE_STRATEGIES, contents, hosted_tools


@attrs.frozen
class Weather:
    city: str
    celsius: float


def _class(name: str) -> type[Any]:
    cls: type[Any] = getattr(agentcore, name)
    return cls


# -- round trips ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(VALUE_STRATEGIES))
@given(data=st.data())
def test_json_round_trip_gives_an_equal_value(name: str, data: st.DataObject) -> None:
    value = data.draw(VALUE_STRATEGIES[name])
    cls = _class(name)

    restored = from_json(to_json(value), cls)

    assert type(restored) is cls
    assert restored == value
    # Fields left out of ``==`` (additional_properties, index) survive as well.
    assert unstructure(restored) == unstructure(value)


@pytest.mark.parametrize("name", sorted(VALUE_STRATEGIES))
@given(data=st.data())
def test_unstructure_output_is_plain_json(name: str, data: st.DataObject) -> None:
    value = data.draw(VALUE_STRATEGIES[name])

    raw = unstructure(value)

    assert json.loads(json.dumps(raw)) == raw


@given(content=contents)
def test_content_union_is_read_by_its_type_tag(content: Content) -> None:
    assert structure(unstructure(content), Content) == content  # type: ignore[arg-type]  # a union is a valid target


@given(tool=hosted_tools)
def test_hosted_tool_union_is_read_by_its_kind_tag(tool: HostedTool) -> None:
    assert structure(unstructure(tool), HostedTool) == tool  # type: ignore[arg-type]  # a union is a valid target


def test_new_sessions_get_distinct_ids_that_round_trip() -> None:
    first, second = AgentSession(), AgentSession()

    assert first.session_id != second.session_id
    assert from_json(to_json(first), AgentSession) == first


def test_generated_embeddings_keep_options_and_usage() -> None:
    value = GeneratedEmbeddings(
        [Embedding([0.5, 1.5], model="m")],
        options={"dimensions": 2},
        usage=Usage(input_tokens=3),
        additional_properties={"region": "eu"},
    )

    restored = from_json(to_json(value), GeneratedEmbeddings)

    assert list(restored) == list(value)
    assert restored.options == {"dimensions": 2}
    assert restored.usage == Usage(input_tokens=3)
    assert restored.additional_properties == {"region": "eu"}


def test_parametrized_generated_embeddings_read_typed_options() -> None:
    value: GeneratedEmbeddings[list[float], EmbeddingGenerationOptions] = GeneratedEmbeddings(
        [Embedding([1.0])], options={"model": "small"}
    )

    restored = from_json(
        to_json(value), GeneratedEmbeddings[list[float], EmbeddingGenerationOptions]
    )

    assert restored.options == {"model": "small"}
    assert restored[0].vector == [1.0]


# -- the JSON form ----------------------------------------------------------------------------


def test_envelope_names_version_and_kind() -> None:
    envelope = to_dict(Usage(input_tokens=1))

    assert envelope == {
        "schema_version": SCHEMA_VERSION,
        "kind": "Usage",
        "data": unstructure(Usage(input_tokens=1)),
    }


def test_contents_are_tagged_by_type() -> None:
    assert unstructure(TextContent("hi"))["type"] == "text"


def test_hosted_tools_are_tagged_by_kind() -> None:
    assert unstructure(WebSearchTool())["kind"] == "web_search"


def test_bytes_are_written_as_base64() -> None:
    assert unstructure(DataContent(b"\x00\xffhi", "image/png"))["data"] == "AP9oaQ=="


def test_nested_function_call_keeps_its_tag() -> None:
    request = FunctionApprovalRequestContent(FunctionCallContent("c1", "f", "{}"), id="apr_1")

    assert unstructure(request)["function_call"]["type"] == "function_call"


def test_to_json_is_one_compact_json_document() -> None:
    text = to_json(Message("user", ["hi"]))

    assert json.loads(text)["kind"] == "Message"
    assert ", " not in text


def test_from_json_accepts_bytes() -> None:
    message = Message("user", ["hi"])

    assert from_json(to_json(message).encode(), Message) == message


def test_keys_the_reader_does_not_know_are_ignored() -> None:
    data = {**unstructure(Usage(input_tokens=2)), "future_field": 1}

    assert structure(data, Usage) == Usage(input_tokens=2)


def test_typed_value_reads_back_as_json_without_its_type() -> None:
    response = ChatResponse(messages=[Message("assistant", ["{}"])], value=Weather("Oslo", -3.5))

    restored = from_json(to_json(response), ChatResponse)

    assert restored.value == {"city": "Oslo", "celsius": -3.5}


def test_typed_value_reads_back_as_its_type_when_the_caller_names_it() -> None:
    response = AgentResponse(value=Weather("Oslo", -3.5))

    restored = from_json(to_json(response), AgentResponse[Weather])

    assert restored.value == Weather("Oslo", -3.5)


def test_hooks_registered_on_the_converter_are_used_by_to_dict() -> None:
    @attrs.frozen
    class Checkpoint:
        step: int
        messages: tuple[Message, ...]

    value = Checkpoint(2, (Message("user", ["hi"]),))

    assert from_dict(to_dict(value), Checkpoint) == value
    assert converter.unstructure(value)["messages"][0]["contents"][0]["type"] == "text"


# -- envelope errors --------------------------------------------------------------------------


def test_newer_schema_version_asks_to_upgrade() -> None:
    envelope = {**to_dict(Usage()), "schema_version": SCHEMA_VERSION + 1}

    with pytest.raises(SerializationError, match="upgrade agentcore"):
        from_dict(envelope, Usage)


def test_missing_schema_version_is_an_error() -> None:
    envelope = to_dict(Usage())
    del envelope["schema_version"]

    with pytest.raises(SerializationError, match="'schema_version' is missing"):
        from_dict(envelope, Usage)


@pytest.mark.parametrize("version", [0, -1, "1", True, None])
def test_schema_version_must_be_a_positive_integer(version: object) -> None:
    envelope = {**to_dict(Usage()), "schema_version": version}

    with pytest.raises(SerializationError, match="positive integer"):
        from_dict(envelope, Usage)


def test_envelope_of_another_kind_is_rejected() -> None:
    with pytest.raises(SerializationError, match="holds a 'Usage', not a 'Message'"):
        from_dict(to_dict(Usage()), Message)


def test_envelope_without_data_is_rejected() -> None:
    envelope = to_dict(Usage())
    del envelope["data"]

    with pytest.raises(SerializationError, match="no 'data'"):
        from_dict(envelope, Usage)


def test_envelope_must_be_an_object() -> None:
    with pytest.raises(SerializationError, match="envelope"):
        from_dict([1, 2], Usage)  # type: ignore[arg-type]  # the mistake under test


def test_invalid_json_is_a_serialization_error() -> None:
    with pytest.raises(SerializationError, match="not valid JSON"):
        from_json("{nope", Usage)


def test_to_dict_rejects_values_that_are_not_objects() -> None:
    with pytest.raises(TypeError, match="got str"):
        to_dict("hello")


def test_to_json_rejects_nan() -> None:
    with pytest.raises(ValueError, match="JSON"):
        to_json(ChatResponse(value=float("nan")))


# -- data errors ------------------------------------------------------------------------------


def test_unknown_content_tag_names_the_tag_and_the_known_tags() -> None:
    data: dict[str, Any] = {"role": "user", "contents": [{"type": "hologram"}]}

    with pytest.raises(ValueError, match=r"unknown content type 'hologram'") as caught:
        structure(data, Message)

    message = str(caught.value)
    assert "known: compaction, data, error, function_approval_request" in message
    assert "@ $.contents[0]" in message


def test_content_without_type_tag_is_rejected() -> None:
    with pytest.raises(SerializationError, match="needs a 'type' field"):
        structure({"text": "hi"}, Content)  # type: ignore[arg-type]  # a union is a valid target


def test_unknown_hosted_tool_kind_names_the_kind() -> None:
    with pytest.raises(
        SerializationError, match=r"unknown hosted tool kind 'teleport'.*web_search"
    ):
        structure({"kind": "teleport"}, HostedTool)  # type: ignore[arg-type]  # a union is a valid target


def test_tag_that_contradicts_the_requested_class_is_rejected() -> None:
    with pytest.raises(SerializationError, match="type 'data' does not match TextContent"):
        structure({"type": "data", "text": "hi"}, TextContent)


def test_wrong_field_type_names_the_path() -> None:
    data: dict[str, Any] = {"messages": [], "usage": {"input_tokens": "12"}}

    with pytest.raises(SerializationError, match=r"expected an integer, got str @ \$\.usage"):
        structure(data, ChatResponse)


def test_missing_required_field_names_the_path() -> None:
    data = {"role": "user", "contents": [{"type": "function_call", "name": "f"}]}

    with pytest.raises(SerializationError, match=r"required field missing @ \$\.contents\[0\]"):
        structure(data, Message)


def test_bad_role_lists_the_roles() -> None:
    with pytest.raises(SerializationError, match="expected one of 'system', 'user'"):
        structure({"role": "robot"}, Message)


def test_booleans_are_not_integers() -> None:
    with pytest.raises(SerializationError, match="expected an integer, got bool"):
        structure({"input_tokens": True}, Usage)


def test_integers_are_accepted_for_floats() -> None:
    embedding = structure({"vector": [1, 2]}, Embedding[list[float]])

    assert embedding.vector == [1.0, 2.0]
    assert all(isinstance(x, float) for x in embedding.vector)


def test_strings_are_not_numbers() -> None:
    with pytest.raises(SerializationError, match="expected a number, got str"):
        structure({"vector": ["1.5"]}, Embedding[list[float]])


def test_integers_are_not_booleans() -> None:
    call = {"type": "function_call", "call_id": "c1"}
    data = {"type": "function_approval_response", "id": "a", "approved": 1, "function_call": call}

    with pytest.raises(SerializationError, match="expected true or false, got int"):
        structure(data, FunctionApprovalResponseContent)


def test_bytes_must_be_written_as_a_string() -> None:
    data = {"type": "data", "data": [1, 2], "media_type": "image/png"}

    with pytest.raises(SerializationError, match="expected a base64 string, got list"):
        structure(data, DataContent)


def test_invalid_base64_is_rejected() -> None:
    data = {"type": "data", "data": "not base64!", "media_type": "image/png"}

    with pytest.raises(SerializationError, match="base64"):
        structure(data, DataContent)


def test_function_call_arguments_must_be_a_string_or_an_object() -> None:
    data = {"type": "function_call", "call_id": "c1", "arguments": [1, 2]}

    with pytest.raises(SerializationError, match="arguments"):
        structure(data, FunctionCallContent)


def test_mcp_headers_must_be_strings() -> None:
    data = {"kind": "mcp", "name": "n", "url": "u", "headers": {"x": 1}}

    with pytest.raises(SerializationError, match="expected a string"):
        structure(data, MCPTool)


def test_serialization_error_is_a_value_error_and_an_agentcore_error() -> None:
    assert issubclass(SerializationError, ValueError)
    assert issubclass(SerializationError, AgentcoreError)


def test_structure_of_an_unknown_class_says_how_to_register_it() -> None:
    class Opaque:
        def __init__(self, x: int) -> None:
            self.x = x

    with pytest.raises(TypeError, match="register a structure hook"):
        structure({"x": 1}, Opaque)


def test_every_content_and_hosted_tool_class_has_a_round_trip_strategy() -> None:
    classes = {cls.__name__ for cls in (*CONTENT_TYPES, *HOSTED_TOOL_TYPES)}

    assert classes <= set(VALUE_STRATEGIES)
