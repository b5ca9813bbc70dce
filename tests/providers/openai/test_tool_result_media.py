"""A tool result holding text and an image, as each OpenAI adapter sends it over the wire
(the request the local server records; the converters alone are tested in
``tests/providers/test_media_tool_results.py``)."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from agentcore_openai import OpenAIChatClient, OpenAIResponsesClient

from agentcore import ChatResponse
from tests.providers.openai import chat_fixtures as chat_fx
from tests.providers.openai import responses_fixtures as resp_fx
from tests.providers.test_media_tool_results import PNG, TURN
from tests.providers.wire_server import Reply, WireServer

pytestmark = pytest.mark.anyio

DATA_URL = f"data:image/png;base64,{base64.b64encode(PNG).decode()}"


def _sent(server: WireServer, path: str) -> dict[str, Any]:
    body: dict[str, Any] = list(server.iter_requests(path))[-1].json
    return body


async def test_chat_completions_sends_the_text_then_the_image_in_a_user_message(
    chat: OpenAIChatClient, server: WireServer
) -> None:
    server.add("POST", "/v1/chat/completions", Reply(json_body=chat_fx.CHAT_TEXT))

    response = await chat.get_response(TURN)

    assert isinstance(response, ChatResponse)
    wire = _sent(server, "/v1/chat/completions")["messages"]
    assert wire[1:] == [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "chart", "arguments": "{}"},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "the chart:"},
        {"role": "tool", "tool_call_id": "call_2", "content": "plain"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Images and files the tools above returned:"},
                {"type": "image_url", "image_url": {"url": DATA_URL}},
            ],
        },
    ]


async def test_responses_sends_the_image_inside_the_function_call_output(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    server.add("POST", "/v1/responses", Reply(json_body=resp_fx.RESP_TEXT))

    await responses.get_response(TURN)

    outputs = [
        i
        for i in _sent(server, "/v1/responses")["input"]
        if i.get("type") == "function_call_output"
    ]
    assert outputs == [
        {
            "type": "function_call_output",
            "call_id": "call_1",
            "output": [
                {"type": "input_text", "text": "the chart:"},
                {"type": "input_image", "image_url": DATA_URL, "detail": "auto"},
            ],
        },
        {"type": "function_call_output", "call_id": "call_2", "output": "plain"},
    ]
