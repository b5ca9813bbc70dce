"""A tool result holding text and media reaches each API the way it allows."""

from __future__ import annotations

import base64

from agentcore_anthropic._messages import convert_messages
from agentcore_openai._chat_request import build_chat_request
from agentcore_openai._responses_request import build_input

from agentcore import (
    DataContent,
    FunctionCallContent,
    FunctionResultContent,
    Message,
    TextContent,
)

PNG = b"\x89PNG\r\n\x1a\n"
B64 = base64.b64encode(PNG).decode()

TURN = [
    Message("user", "show the chart"),
    Message("assistant", [FunctionCallContent("call_1", "chart", "{}")]),
    Message(
        "tool",
        [
            FunctionResultContent(
                "call_1", result=(TextContent("the chart:"), DataContent(PNG, "image/png"))
            ),
            FunctionResultContent("call_2", result="plain"),
        ],
    ),
]


def test_anthropic_sends_the_image_inside_the_tool_result() -> None:
    _, turns = convert_messages(TURN, None)

    result = turns[-1]["content"][0]
    assert result["type"] == "tool_result"
    assert result["content"] == [
        {"type": "text", "text": "the chart:"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": B64}},
    ]


def test_responses_sends_output_parts() -> None:
    items = build_input(TURN)

    outputs = [item for item in items if item.get("type") == "function_call_output"]
    assert outputs[0]["output"] == [
        {"type": "input_text", "text": "the chart:"},
        {"type": "input_image", "image_url": f"data:image/png;base64,{B64}", "detail": "auto"},
    ]
    assert outputs[1]["output"] == "plain"


def test_chat_completions_sends_the_text_then_the_media_as_a_user_message() -> None:
    wire = build_chat_request(TURN, None, "gpt-test")["messages"]

    assert wire[2] == {"role": "tool", "tool_call_id": "call_1", "content": "the chart:"}
    assert wire[3] == {"role": "tool", "tool_call_id": "call_2", "content": "plain"}
    assert wire[4]["role"] == "user"
    assert wire[4]["content"][1] == {
        "type": "image_url",
        "image_url": {"url": f"data:image/png;base64,{B64}"},
    }
    assert len(wire) == 5
