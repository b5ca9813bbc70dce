"""How a whole (non-streamed) Messages API response becomes a ChatResponse."""

from __future__ import annotations

import json

import pytest
from agentcore_anthropic import AnthropicChatClient

from agentcore import (
    FunctionCallContent,
    FunctionResultContent,
    Message,
    ReasoningContent,
    TextContent,
    Usage,
)
from tests.providers.anthropic.fixtures import (
    CACHED,
    MODEL,
    PARALLEL_TOOL_CALLS,
    STRUCTURED,
    TEXT,
    THINKING_TOOL_CALL,
    TOOL_CALL,
    message,
    text,
)
from tests.providers.anthropic.replies import MESSAGES, json_reply
from tests.providers.wire_server import WireServer

pytestmark = pytest.mark.anyio

HI = [Message("user", "Hi")]


async def test_text_answer_becomes_one_assistant_message(
    client: AnthropicChatClient, server: WireServer
) -> None:
    server.add("POST", MESSAGES, json_reply(TEXT))
    response = await client.get_response(HI)
    assert response.messages == (
        Message("assistant", [TextContent(TEXT["content"][0]["text"])], message_id=TEXT["id"]),
    )
    assert (response.response_id, response.model) == (TEXT["id"], MODEL)
    assert response.finish_reason == "stop"


async def test_usage_total_counts_input_cache_read_cache_write_and_output(
    client: AnthropicChatClient, server: WireServer
) -> None:
    server.add("POST", MESSAGES, json_reply(CACHED))
    response = await client.get_response(HI)
    assert response.usage == Usage(
        input_tokens=12,
        output_tokens=7,
        total_tokens=12 + 1800 + 300 + 7,
        cache_read_tokens=1800,
        cache_write_tokens=300,
    )


async def test_thinking_tokens_are_reported_as_reasoning_tokens(
    client: AnthropicChatClient, server: WireServer
) -> None:
    server.add("POST", MESSAGES, json_reply(THINKING_TOOL_CALL))
    response = await client.get_response(HI)
    assert response.usage is not None
    assert response.usage.reasoning_tokens == 70


@pytest.mark.parametrize(
    ("stop_reason", "expected"),
    [
        ("end_turn", "stop"),
        ("stop_sequence", "stop"),
        ("pause_turn", "stop"),
        ("max_tokens", "length"),
        ("model_context_window_exceeded", "length"),
        ("tool_use", "tool_calls"),
        ("refusal", "content_filter"),
    ],
)
async def test_stop_reason_maps_onto_finish_reason(
    client: AnthropicChatClient, server: WireServer, stop_reason: str, expected: str
) -> None:
    server.add("POST", MESSAGES, json_reply(message(text("x"), stop_reason=stop_reason)))
    response = await client.get_response(HI)
    assert response.finish_reason == expected
    assert response.additional_properties is not None
    assert response.additional_properties["stop_reason"] == stop_reason


async def test_tool_use_becomes_function_call_with_json_arguments(
    client: AnthropicChatClient, server: WireServer
) -> None:
    server.add("POST", MESSAGES, json_reply(TOOL_CALL))
    response = await client.get_response(HI)
    call = response.messages[0].contents[1]
    assert isinstance(call, FunctionCallContent)
    block = TOOL_CALL["content"][1]
    assert (call.call_id, call.name) == (block["id"], block["name"])
    assert call.parse_arguments() == block["input"]
    assert response.finish_reason == "tool_calls"


async def test_parallel_tool_calls_keep_their_order(
    client: AnthropicChatClient, server: WireServer
) -> None:
    server.add("POST", MESSAGES, json_reply(PARALLEL_TOOL_CALLS))
    response = await client.get_response(HI)
    calls = [c for c in response.messages[0].contents if isinstance(c, FunctionCallContent)]
    assert [c.call_id for c in calls] == [b["id"] for b in PARALLEL_TOOL_CALLS["content"]]
    assert [c.parse_arguments() for c in calls] == [
        b["input"] for b in PARALLEL_TOOL_CALLS["content"]
    ]


async def test_thinking_and_redacted_thinking_become_anthropic_reasoning(
    client: AnthropicChatClient, server: WireServer
) -> None:
    server.add("POST", MESSAGES, json_reply(THINKING_TOOL_CALL))
    response = await client.get_response(HI)
    thinking, redacted = response.messages[0].contents[:2]
    blocks = THINKING_TOOL_CALL["content"]
    assert thinking == ReasoningContent(
        text=blocks[0]["thinking"],
        provider="anthropic",
        id="thinking_0",
        protected_data=blocks[0]["signature"],
    )
    assert redacted == ReasoningContent(
        text="", provider="anthropic", id="redacted_thinking_1", protected_data=blocks[1]["data"]
    )


async def test_reasoning_round_trips_to_the_next_request_unchanged(
    client: AnthropicChatClient, server: WireServer
) -> None:
    server.add("POST", MESSAGES, json_reply(THINKING_TOOL_CALL), json_reply(TEXT))
    first = await client.get_response(HI)
    call = first.messages[0].contents[2]
    assert isinstance(call, FunctionCallContent)

    follow_up = [
        *HI,
        *first.messages,
        Message("tool", [FunctionResultContent(call.call_id, "21C")]),
    ]
    await client.get_response(follow_up)
    sent_assistant = server.requests[-1].json["messages"][1]
    assert sent_assistant == {"role": "assistant", "content": THINKING_TOOL_CALL["content"]}


async def test_adjacent_text_blocks_merge_into_one_text_content(
    client: AnthropicChatClient, server: WireServer
) -> None:
    server.add("POST", MESSAGES, json_reply(message(text("Hello, "), text("world."))))
    response = await client.get_response(HI)
    assert response.messages[0].contents == (TextContent("Hello, world."),)


async def test_empty_content_gives_no_messages(
    client: AnthropicChatClient, server: WireServer
) -> None:
    server.add("POST", MESSAGES, json_reply(message(stop_reason="end_turn")))
    response = await client.get_response(HI)
    assert response.messages == ()
    assert response.finish_reason == "stop"


async def test_rate_limit_headers_land_in_additional_properties(
    client: AnthropicChatClient, server: WireServer
) -> None:
    headers = {
        "anthropic-ratelimit-requests-limit": "50",
        "anthropic-ratelimit-requests-remaining": "49",
        "anthropic-ratelimit-requests-reset": "2025-01-01T00:00:01Z",
        "anthropic-ratelimit-tokens-limit": "40000",
        "anthropic-ratelimit-tokens-remaining": "39000",
        "anthropic-ratelimit-tokens-reset": "2025-01-01T00:00:02Z",
    }
    server.add("POST", MESSAGES, json_reply(TEXT, headers=headers))
    response = await client.get_response(HI)
    assert response.additional_properties is not None
    assert response.additional_properties["rate_limit"] == {
        "limit_requests": "50",
        "remaining_requests": "49",
        "reset_requests": "2025-01-01T00:00:01Z",
        "limit_tokens": "40000",
        "remaining_tokens": "39000",
        "reset_tokens": "2025-01-01T00:00:02Z",
    }


async def test_structured_output_text_is_the_json_answer(
    client: AnthropicChatClient, server: WireServer
) -> None:
    server.add("POST", MESSAGES, json_reply(STRUCTURED))
    schema = {"type": "object", "properties": {"city": {"type": "string"}}}
    response = await client.get_response(HI, options={"response_format": schema})
    assert json.loads(response.text) == {"city": "Paris", "temperature": 21}
