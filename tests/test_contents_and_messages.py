"""Contents and messages: construction, validation, text, and frozen values."""

from __future__ import annotations

import base64
from typing import Any

import attrs
import pytest

from agentcore import (
    AgentResponse,
    AgentResponseUpdate,
    ChatResponse,
    ChatResponseUpdate,
    DataContent,
    Embedding,
    FileSearchTool,
    FunctionApprovalRequestContent,
    FunctionApprovalResponseContent,
    FunctionCallContent,
    FunctionResultContent,
    GeneratedEmbeddings,
    HostedToolCallContent,
    MCPTool,
    Message,
    ReasoningContent,
    TextContent,
    UriContent,
    Usage,
    UsageContent,
    UserInputRequestContent,
    UserInputResponseContent,
    WebSearchTool,
)
from agentcore._types.contents import CONTENT_TYPES

# -- Message contents -------------------------------------------------------------------------


def test_message_from_a_string_holds_one_text() -> None:
    assert Message("user", "hi").contents == (TextContent("hi"),)


def test_message_from_one_content() -> None:
    data = DataContent(b"x", "image/png")

    assert Message("user", data).contents == (data,)


def test_message_from_a_mix_of_strings_and_contents() -> None:
    uri = UriContent("https://example.org/cat.png", "image/png")

    message = Message("user", ["Look:", uri, "nice?"])

    assert message.contents == (TextContent("Look:"), uri, TextContent("nice?"))


def test_message_contents_of_the_wrong_type_name_the_type() -> None:
    with pytest.raises(TypeError, match=r"a str, a content object, or a sequence .*got int"):
        Message("user", 42)  # type: ignore[arg-type]  # the mistake under test


def test_message_content_item_of_the_wrong_type_names_the_type() -> None:
    with pytest.raises(
        TypeError, match=r"content objects \(TextContent, DataContent, \.\.\.\).*dict"
    ):
        Message("user", ["ok", {"type": "text"}])  # type: ignore[list-item]  # the mistake under test


def test_message_with_an_unknown_role_lists_the_roles() -> None:
    with pytest.raises(
        ValueError,
        match=r"role must be one of \['assistant', 'system', 'tool', 'user'\], got 'bot'",
    ):
        Message("bot", "hi")  # type: ignore[arg-type]  # the mistake under test


# -- .text ------------------------------------------------------------------------------------


def test_message_text_joins_text_contents_only() -> None:
    message = Message("assistant", ["a", DataContent(b"x", "image/png"), "b"])

    assert message.text == "ab"


def test_message_text_of_one_text() -> None:
    assert Message("assistant", "only").text == "only"


def test_message_without_text_has_empty_text() -> None:
    assert Message("assistant", FunctionCallContent("c1", "f")).text == ""


def test_chat_response_text_joins_its_messages() -> None:
    response = ChatResponse(messages=[Message("assistant", "one "), Message("assistant", "two")])

    assert response.text == "one two"


def test_chat_response_accepts_a_single_message() -> None:
    message = Message("assistant", "x")

    assert ChatResponse(messages=message).messages == (message,)


def test_chat_response_update_text() -> None:
    update = ChatResponseUpdate([TextContent("a"), UsageContent(Usage(1)), TextContent("b")])

    assert update.text == "ab"


def test_chat_response_update_accepts_a_single_content() -> None:
    assert ChatResponseUpdate(TextContent("x")).contents == (TextContent("x"),)


def test_agent_response_text_joins_its_messages() -> None:
    response = AgentResponse(messages=[Message("assistant", "a"), Message("tool", "b")])

    assert response.text == "ab"


def test_agent_response_update_text() -> None:
    assert AgentResponseUpdate([TextContent("x"), ReasoningContent("why")]).text == "x"


def test_agent_response_lists_its_approval_requests() -> None:
    request = FunctionApprovalRequestContent(FunctionCallContent("c1", "delete"))
    response = AgentResponse(
        messages=[Message("assistant", ["Need approval", request]), Message("user", "hm")]
    )

    assert response.approval_requests == (request,)


# -- function calls ---------------------------------------------------------------------------


def test_parse_arguments_of_a_json_string() -> None:
    call = FunctionCallContent("c1", "f", '{"city": "Oslo", "days": 2}')

    assert call.parse_arguments() == {"city": "Oslo", "days": 2}


def test_parse_arguments_of_a_mapping_gives_a_copy() -> None:
    arguments = {"x": 1}
    call = FunctionCallContent("c1", "f", arguments)

    parsed = call.parse_arguments()
    parsed["y"] = 2

    assert call.parse_arguments() == {"x": 1}


@pytest.mark.parametrize("blank", ["", "  \n"])
def test_parse_arguments_of_blank_text_is_empty(blank: str) -> None:
    assert FunctionCallContent("c1", "f", blank).parse_arguments() == {}


def test_parse_arguments_of_invalid_json_names_the_function() -> None:
    call = FunctionCallContent("c1", "lookup", '{"city": ')

    with pytest.raises(ValueError, match="arguments of 'lookup' are not valid JSON"):
        call.parse_arguments()


def test_parse_arguments_that_are_not_an_object_name_the_json_type() -> None:
    call = FunctionCallContent("c1", "lookup", "[1, 2]")

    with pytest.raises(ValueError, match="must be a JSON object, got list"):
        call.parse_arguments()


def test_arguments_json_of_text_is_the_text_itself() -> None:
    partial = '{"city": "Os'  # a streamed piece: sent back exactly as the model wrote it
    assert FunctionCallContent("c1", "f", partial).arguments_json() == partial


def test_arguments_json_of_a_mapping_encodes_it_keeping_non_ascii() -> None:
    call = FunctionCallContent("c1", "f", {"city": "Tromsø", "days": 2})

    assert call.arguments_json() == '{"city": "Tromsø", "days": 2}'
    assert FunctionCallContent("c2", "f", call.arguments_json()).parse_arguments() == {
        "city": "Tromsø",
        "days": 2,
    }


def test_function_call_arguments_must_be_text_or_a_mapping() -> None:
    with pytest.raises(TypeError, match="must be a JSON string or a mapping, got int"):
        FunctionCallContent("c1", "f", 3)  # type: ignore[arg-type]  # the mistake under test


def test_function_call_index_does_not_affect_equality() -> None:
    assert FunctionCallContent("c1", "f", "{}", index=0) == FunctionCallContent("c1", "f", "{}")


def test_function_result_carries_error_text() -> None:
    result = FunctionResultContent("c1", result="boom", error="RuntimeError")

    assert (result.result, result.error) == ("boom", "RuntimeError")


# -- approvals --------------------------------------------------------------------------------


def test_approval_request_creates_the_matching_response() -> None:
    call = FunctionCallContent("c1", "delete", '{"id": 7}')
    request = FunctionApprovalRequestContent(call)

    response = request.create_response(False, reason="not today")

    assert response == FunctionApprovalResponseContent(
        id=request.id, function_call=call, approved=False, reason="not today"
    )


def test_approval_requests_get_distinct_ids() -> None:
    call = FunctionCallContent("c1", "delete")

    first, second = FunctionApprovalRequestContent(call), FunctionApprovalRequestContent(call)

    assert first.id.startswith("apr_")
    assert first.id != second.id


def test_user_input_request_creates_the_matching_response() -> None:
    call = FunctionCallContent("c1", "book", '{"city": "Oslo"}')
    request = UserInputRequestContent(call, "Which date?")

    response = request.create_response("May 3")

    assert response == UserInputResponseContent(id=request.id, function_call=call, text="May 3")


def test_agent_response_lists_its_user_input_requests() -> None:
    request = UserInputRequestContent(FunctionCallContent("c1", "book"), "Which date?")
    response = AgentResponse(messages=[Message("assistant", ["One question", request])])

    assert response.user_input_requests == (request,)


# -- data and hosted tools --------------------------------------------------------------------


def test_data_content_as_a_data_uri() -> None:
    data = DataContent(b"\x89PNG", "image/png")

    assert data.uri == "data:image/png;base64,iVBORw=="


def test_data_content_as_base64() -> None:
    data = DataContent(b"hello", "text/plain")

    assert base64.b64decode(data.base64) == b"hello"


def test_hosted_tool_call_arguments_are_copied() -> None:
    arguments: dict[str, Any] = {"query": "weather"}
    call = HostedToolCallContent("h1", "web_search", arguments=arguments)
    arguments["query"] = "changed"

    assert call.arguments == {"query": "weather"}


def test_hosted_tool_options_default_to_empty() -> None:
    assert WebSearchTool().options == {}
    assert WebSearchTool(options=None).options == {}


def test_file_search_tool_takes_a_list_of_store_ids() -> None:
    assert FileSearchTool(vector_store_ids=["vs_1", "vs_2"]).vector_store_ids == ("vs_1", "vs_2")


def test_file_search_tool_refuses_a_single_string() -> None:
    with pytest.raises(TypeError, match="list of names, got the single string 'vs_1'"):
        FileSearchTool(vector_store_ids="vs_1")


def test_mcp_tool_allowed_tools_become_a_tuple() -> None:
    assert MCPTool("docs", "https://mcp.example.org", allowed_tools=["search"]).allowed_tools == (
        "search",
    )


# -- embeddings -------------------------------------------------------------------------------


def test_embedding_dimensions_default_to_the_vector_length() -> None:
    assert Embedding([0.1, 0.2, 0.3]).dimensions == 3


def test_embedding_dimensions_can_be_given() -> None:
    assert Embedding([0.1], dimensions=1536).dimensions == 1536


def test_embedding_of_an_unsized_vector_has_no_dimensions() -> None:
    assert Embedding(iter([1.0])).dimensions is None


def test_generated_embeddings_are_a_list_with_options_and_usage() -> None:
    result = GeneratedEmbeddings(
        [Embedding([1.0]), Embedding([2.0])], options={"model": "small"}, usage=Usage(4)
    )

    assert [e.vector for e in result] == [[1.0], [2.0]]
    assert (result.options, result.usage) == ({"model": "small"}, Usage(4))
    assert repr(result).startswith("GeneratedEmbeddings([Embedding(vector=[1.0]")
    assert "usage=Usage(input_tokens=4," in repr(result)


# -- values are frozen ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "field"),
    [
        (TextContent("x"), "text"),
        (FunctionCallContent("c1", "f"), "name"),
        (Message("user", "x"), "role"),
        (ChatResponse(), "response_id"),
        (ChatResponseUpdate(), "role"),
        (AgentResponse(), "value"),
        (Usage(), "input_tokens"),
        (WebSearchTool(), "options"),
    ],
)
def test_values_are_frozen(value: object, field: str) -> None:
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        setattr(value, field, None)


def test_evolve_makes_a_changed_copy() -> None:
    message = Message("user", "x")

    changed = attrs.evolve(message, author_name="ada")

    assert (message.author_name, changed.author_name) == (None, "ada")


def test_every_content_class_has_a_distinct_type_tag() -> None:
    tags = [attrs.fields(cls).type.default for cls in CONTENT_TYPES]

    assert len(set(tags)) == len(CONTENT_TYPES)
