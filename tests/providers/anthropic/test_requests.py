"""What the adapter sends to ``POST /v1/messages``, read back from the wire."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from agentcore_anthropic import AnthropicChatClient, AnthropicChatOptions

from agentcore import (
    Content,
    DataContent,
    FunctionApprovalRequestContent,
    FunctionCallContent,
    FunctionResultContent,
    Message,
    ReasoningContent,
    TextContent,
    UriContent,
)
from tests.providers.anthropic.fixtures import MODEL, TEXT, TOOL_CALL, get_weather
from tests.providers.anthropic.replies import MESSAGES, json_reply, sent, sse_reply
from tests.providers.wire_server import WireServer

pytestmark = pytest.mark.anyio

PNG = b"\x89PNG\r\n\x1a\n fake image bytes"


async def _send(
    client: AnthropicChatClient,
    server: WireServer,
    messages: list[Message],
    options: AnthropicChatOptions[Any] | None = None,
) -> dict[str, Any]:
    server.add("POST", MESSAGES, json_reply(TEXT))
    await client.get_response(messages, options=options)
    return sent(server)


async def test_sends_model_max_tokens_and_user_text(
    client: AnthropicChatClient, server: WireServer
) -> None:
    body = await _send(client, server, [Message("user", "Hi there")])
    assert body["model"] == MODEL
    assert body["max_tokens"] == 4096
    # Plain text goes as a string: every Anthropic-compatible server takes that form.
    assert body["messages"] == [{"role": "user", "content": "Hi there"}]
    assert server.requests[-1].path.split("?")[0] == MESSAGES


async def test_options_model_and_max_tokens_override_constructor_defaults(
    client: AnthropicChatClient, server: WireServer
) -> None:
    body = await _send(
        client, server, [Message("user", "Hi")], {"model": "claude-other-test", "max_tokens": 99}
    )
    assert (body["model"], body["max_tokens"]) == ("claude-other-test", 99)


async def test_constructor_max_tokens_is_the_default(
    server: WireServer, anyio_backend: str
) -> None:
    adapter = AnthropicChatClient(MODEL, api_key="k", base_url=server.base_url, max_tokens=321)
    body = await _send(adapter, server, [Message("user", "Hi")])
    await adapter.client.close()
    assert body["max_tokens"] == 321


async def test_instructions_then_system_messages_become_one_system_string_in_order(
    client: AnthropicChatClient, server: WireServer
) -> None:
    messages = [
        Message("system", "Answer in French."),
        Message("user", "Hi"),
        Message("system", "Be brief."),
        Message("user", "Bye"),
    ]
    body = await _send(client, server, messages, {"instructions": "You are a travel agent."})
    assert body["system"] == "You are a travel agent.\n\nAnswer in French.\n\nBe brief."
    assert [m["role"] for m in body["messages"]] == ["user"]


async def test_no_system_field_without_instructions_or_system_messages(
    client: AnthropicChatClient, server: WireServer
) -> None:
    body = await _send(client, server, [Message("user", "Hi")])
    assert "system" not in body


async def test_consecutive_tool_messages_merge_into_one_user_turn_of_tool_results(
    client: AnthropicChatClient, server: WireServer
) -> None:
    messages = [
        Message("user", "Weather in Paris and Tokyo?"),
        Message(
            "assistant",
            [
                FunctionCallContent("toolu_1", "get_weather", '{"city": "Paris"}'),
                FunctionCallContent("toolu_2", "get_weather", {"city": "Tokyo"}),
            ],
        ),
        Message("tool", [FunctionResultContent("toolu_1", result={"temp": 21})]),
        Message("tool", [FunctionResultContent("toolu_2", result="timeout", error="timeout")]),
    ]
    body = await _send(client, server, messages)
    assert body["messages"][1] == {
        "role": "assistant",
        "content": [
            {
                "type": "tool_use",
                "id": "toolu_1",
                "name": "get_weather",
                "input": {"city": "Paris"},
            },
            {
                "type": "tool_use",
                "id": "toolu_2",
                "name": "get_weather",
                "input": {"city": "Tokyo"},
            },
        ],
    }
    assert body["messages"][2] == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": '{"temp": 21}'},
            {
                "type": "tool_result",
                "tool_use_id": "toolu_2",
                "content": "timeout",
                "is_error": True,
            },
        ],
    }


async def test_error_without_result_sends_the_error_text(
    client: AnthropicChatClient, server: WireServer
) -> None:
    messages = [
        Message("assistant", [FunctionCallContent("toolu_1", "lookup", "{}")]),
        Message("tool", [FunctionResultContent("toolu_1", error="city not found")]),
    ]
    body = await _send(client, server, messages)
    result = body["messages"][1]["content"][0]
    assert (result["content"], result["is_error"]) == ("city not found", True)


async def test_tool_result_with_text_and_image_contents_sends_blocks(
    client: AnthropicChatClient, server: WireServer
) -> None:
    result = [TextContent("chart:"), DataContent(PNG, "image/png")]
    messages = [
        Message("assistant", [FunctionCallContent("toolu_1", "plot", "{}")]),
        Message("tool", [FunctionResultContent("toolu_1", result=result)]),
    ]
    body = await _send(client, server, messages)
    assert body["messages"][1]["content"][0]["content"] == [
        {"type": "text", "text": "chart:"},
        {
            "type": "image",
            "source": {
                "type": "base64",
                "media_type": "image/png",
                "data": base64.b64encode(PNG).decode(),
            },
        },
    ]


async def test_adjacent_same_role_messages_merge_so_roles_alternate(
    client: AnthropicChatClient, server: WireServer
) -> None:
    messages = [
        Message("user", "first"),
        Message("user", "second"),
        Message("assistant", "reply"),
        Message("assistant", "more"),
    ]
    body = await _send(client, server, messages)
    assert body["messages"] == [
        {
            "role": "user",
            "content": [{"type": "text", "text": "first"}, {"type": "text", "text": "second"}],
        },
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "reply"}, {"type": "text", "text": "more"}],
        },
    ]


async def test_images_go_as_base64_and_url_sources(
    client: AnthropicChatClient, server: WireServer
) -> None:
    contents: list[Content] = [
        DataContent(PNG, "image/png"),
        UriContent("https://example.com/cat.jpg", media_type="image/jpeg"),
        UriContent("data:image/png;base64," + base64.b64encode(PNG).decode()),
    ]
    body = await _send(client, server, [Message("user", contents)])
    sources = [block["source"] for block in body["messages"][0]["content"]]
    encoded = base64.b64encode(PNG).decode()
    assert sources == [
        {"type": "base64", "media_type": "image/png", "data": encoded},
        {"type": "url", "url": "https://example.com/cat.jpg"},
        {"type": "base64", "media_type": "image/png", "data": encoded},
    ]


async def test_pdfs_go_as_document_blocks(client: AnthropicChatClient, server: WireServer) -> None:
    contents: list[Content] = [
        DataContent(b"%PDF-1.7 fake", "application/pdf", name="report.pdf"),
        UriContent("https://example.com/paper.pdf"),
    ]
    body = await _send(client, server, [Message("user", contents)])
    assert body["messages"][0]["content"] == [
        {
            "type": "document",
            "source": {
                "type": "base64",
                "media_type": "application/pdf",
                "data": base64.b64encode(b"%PDF-1.7 fake").decode(),
            },
            "title": "report.pdf",
        },
        {"type": "document", "source": {"type": "url", "url": "https://example.com/paper.pdf"}},
    ]


async def test_unsupported_media_type_raises_before_any_request(
    client: AnthropicChatClient, server: WireServer
) -> None:
    with pytest.raises(ValueError, match="audio/wav"):
        await client.get_response([Message("user", [DataContent(b"RIFF", "audio/wav")])])
    assert server.requests == []


async def test_image_in_assistant_message_raises(
    client: AnthropicChatClient, server: WireServer
) -> None:
    with pytest.raises(ValueError, match="assistant message"):
        await client.get_response([Message("assistant", [DataContent(PNG, "image/png")])])
    assert server.requests == []


async def test_function_tools_are_declared_with_input_schema(
    client: AnthropicChatClient, server: WireServer
) -> None:
    body = await _send(client, server, [Message("user", "Hi")], {"tools": [get_weather]})
    assert body["tools"] == [
        {
            "name": "get_weather",
            "description": get_weather.description,
            "input_schema": get_weather.parameters,
        }
    ]
    assert body["tools"][0]["input_schema"]["properties"]["city"]["type"] == "string"
    assert "tool_choice" not in body


async def test_raw_tool_dicts_pass_through_unchanged(
    client: AnthropicChatClient, server: WireServer
) -> None:
    raw = {"type": "bash_20250124", "name": "bash"}
    body = await _send(client, server, [Message("user", "Hi")], {"tools": [raw]})
    assert body["tools"] == [raw]


@pytest.mark.parametrize(
    ("choice", "expected"),
    [
        ("auto", {"type": "auto"}),
        ("required", {"type": "any"}),
        ("none", {"type": "none"}),
        ({"mode": "required"}, {"type": "any"}),
        (
            {"mode": "required", "required_function_name": "get_weather"},
            {"type": "tool", "name": "get_weather"},
        ),
    ],
)
async def test_tool_choice_maps_onto_anthropic_tool_choice(
    client: AnthropicChatClient, server: WireServer, choice: Any, expected: dict[str, Any]
) -> None:
    options: AnthropicChatOptions[Any] = {"tools": [get_weather], "tool_choice": choice}
    body = await _send(client, server, [Message("user", "Hi")], options)
    assert body["tool_choice"] == expected


async def test_parallel_tool_calls_false_disables_parallel_tool_use(
    client: AnthropicChatClient, server: WireServer
) -> None:
    options: AnthropicChatOptions[Any] = {
        "tools": [get_weather],
        "tool_choice": "required",
        "parallel_tool_calls": False,
    }
    body = await _send(client, server, [Message("user", "Hi")], options)
    assert body["tool_choice"] == {"type": "any", "disable_parallel_tool_use": True}


async def test_invalid_tool_choice_raises(client: AnthropicChatClient, server: WireServer) -> None:
    options: Any = {"tools": [get_weather], "tool_choice": "always"}
    with pytest.raises(ValueError, match="tool_choice"):
        await client.get_response([Message("user", "Hi")], options=options)
    assert server.requests == []


async def test_json_schema_response_format_is_sent_as_output_config(
    client: AnthropicChatClient, server: WireServer
) -> None:
    schema = {
        "type": "object",
        "properties": {"city": {"type": "string"}, "temperature": {"type": "integer"}},
        "required": ["city", "temperature"],
    }
    body = await _send(client, server, [Message("user", "Hi")], {"response_format": schema})
    sent_format = body["output_config"]["format"]
    assert sent_format["type"] == "json_schema"
    assert sent_format["schema"]["properties"] == schema["properties"]
    assert sent_format["schema"]["required"] == ["city", "temperature"]
    # The SDK's own schema transform closes objects, as structured outputs require.
    assert sent_format["schema"]["additionalProperties"] is False


async def test_sampling_options_map_onto_their_wire_names(
    client: AnthropicChatClient, server: WireServer
) -> None:
    options: AnthropicChatOptions[Any] = {
        "temperature": 0.2,
        "top_p": 0.9,
        "top_k": 40,
        "stop": "END",
        "user": "user-42",
        "seed": 7,
    }
    body = await _send(client, server, [Message("user", "Hi")], options)
    assert (body["temperature"], body["top_p"], body["top_k"]) == (0.2, 0.9, 40)
    assert body["stop_sequences"] == ["END"]
    assert body["metadata"] == {"user_id": "user-42"}
    assert "seed" not in body


async def test_none_valued_options_are_not_sent(
    client: AnthropicChatClient, server: WireServer
) -> None:
    options: AnthropicChatOptions[Any] = {"temperature": None, "model": None, "tools": None}
    body = await _send(client, server, [Message("user", "Hi")], options)
    assert "temperature" not in body
    assert "tools" not in body
    assert body["model"] == MODEL


async def test_thinking_option_is_sent(client: AnthropicChatClient, server: WireServer) -> None:
    thinking = {"type": "enabled", "budget_tokens": 2048}
    body = await _send(client, server, [Message("user", "Hi")], {"thinking": thinking})
    assert body["thinking"] == thinking


async def test_reasoning_goes_back_as_thinking_blocks_before_the_tool_use(
    client: AnthropicChatClient, server: WireServer
) -> None:
    assistant = Message(
        "assistant",
        [
            ReasoningContent(
                "Let me think.", provider="anthropic", id="thinking_0", protected_data="sig-1"
            ),
            ReasoningContent(
                "", provider="anthropic", id="redacted_thinking_1", protected_data="enc"
            ),
            FunctionCallContent("toolu_1", "get_weather", '{"city": "Paris"}'),
        ],
    )
    messages = [
        Message("user", "Weather?"),
        assistant,
        Message("tool", [FunctionResultContent("toolu_1", "sunny")]),
    ]
    body = await _send(client, server, messages)
    assert body["messages"][1]["content"] == [
        {"type": "thinking", "thinking": "Let me think.", "signature": "sig-1"},
        {"type": "redacted_thinking", "data": "enc"},
        {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}},
    ]


async def test_reasoning_from_another_provider_is_dropped(
    client: AnthropicChatClient, server: WireServer
) -> None:
    assistant = Message(
        "assistant",
        [
            ReasoningContent("hmm", provider="openai", protected_data="gAAAA-encrypted"),
            TextContent("Hello"),
        ],
    )
    body = await _send(client, server, [Message("user", "Hi"), assistant])
    assert body["messages"][1]["content"] == [{"type": "text", "text": "Hello"}]


async def test_error_and_usage_contents_are_not_sent(
    client: AnthropicChatClient, server: WireServer
) -> None:
    from agentcore import ErrorContent, Usage, UsageContent

    assistant = Message(
        "assistant",
        [TextContent("partial"), ErrorContent("Overloaded"), UsageContent(Usage(1, 2, 3))],
    )
    body = await _send(client, server, [Message("user", "Hi"), assistant])
    assert body["messages"][1]["content"] == [{"type": "text", "text": "partial"}]


async def test_betas_and_extra_body_are_sent(
    client: AnthropicChatClient, server: WireServer
) -> None:
    options: AnthropicChatOptions[Any] = {
        "betas": ["context-1m-2025-08-07"],
        "extra_body": {"inference_geo": "us"},
    }
    body = await _send(client, server, [Message("user", "Hi")], options)
    assert server.requests[-1].headers["anthropic-beta"] == "context-1m-2025-08-07"
    assert body["inference_geo"] == "us"


async def test_streaming_request_asks_for_a_stream(
    client: AnthropicChatClient, server: WireServer
) -> None:
    server.add("POST", MESSAGES, sse_reply(TOOL_CALL))
    await client.get_response([Message("user", "Hi")], stream=True).get_final_response()
    assert sent(server)["stream"] is True


async def test_plain_text_data_goes_as_a_text_document(
    client: AnthropicChatClient, server: WireServer
) -> None:
    data = DataContent(b"Meeting notes: ship on Friday.", "text/plain", name="notes.txt")
    body = await _send(client, server, [Message("user", [data])])
    assert body["messages"][0]["content"] == [
        {
            "type": "document",
            "source": {
                "type": "text",
                "media_type": "text/plain",
                "data": "Meeting notes: ship on Friday.",
            },
            "title": "notes.txt",
        }
    ]


async def test_a_system_message_with_an_image_raises(
    client: AnthropicChatClient, server: WireServer
) -> None:
    with pytest.raises(ValueError, match="system"):
        await client.get_response([Message("system", [DataContent(PNG, "image/png")])])
    assert server.requests == []


async def test_an_approval_request_in_the_history_raises(
    client: AnthropicChatClient, server: WireServer
) -> None:
    request = FunctionApprovalRequestContent(FunctionCallContent("toolu_1", "delete", "{}"))
    with pytest.raises(ValueError, match="FunctionApprovalRequestContent"):
        await client.get_response([Message("assistant", [request])])
    assert server.requests == []


@pytest.mark.parametrize(
    "arguments",
    ['{"city": "Par', '{"city": ' + "[" * 100_000 + "]" * 100_000 + "}", '{"city": NaN}'],
    ids=["cut-short", "nested-100000-deep", "nan"],
)
async def test_call_arguments_that_are_not_json_go_back_as_an_empty_input(
    client: AnthropicChatClient, server: WireServer, arguments: str
) -> None:
    messages = [
        Message("assistant", [FunctionCallContent("toolu_1", "lookup", arguments)]),
        Message("tool", [FunctionResultContent("toolu_1", error="arguments were cut off")]),
    ]
    body = await _send(client, server, messages)
    assert body["messages"][0]["content"][0]["input"] == {}


async def test_anthropic_reasoning_without_a_signature_is_not_sent(
    client: AnthropicChatClient, server: WireServer
) -> None:
    assistant = Message(
        "assistant", [ReasoningContent("unsigned", provider="anthropic"), TextContent("Hi!")]
    )
    body = await _send(client, server, [Message("user", "Hi"), assistant])
    assert body["messages"][1]["content"] == [{"type": "text", "text": "Hi!"}]


async def test_tool_results_come_first_in_a_merged_user_turn(
    client: AnthropicChatClient, server: WireServer
) -> None:
    messages = [
        Message("assistant", [FunctionCallContent("toolu_1", "lookup", "{}")]),
        Message("user", "Also, be quick."),
        Message("tool", [FunctionResultContent("toolu_1", "found")]),
    ]
    body = await _send(client, server, messages)
    assert [b["type"] for b in body["messages"][1]["content"]] == ["tool_result", "text"]
