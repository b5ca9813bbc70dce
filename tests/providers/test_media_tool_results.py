"""A tool result holding text and media reaches each API the way it allows; what an
API cannot take reaches it as text saying what it was."""

from __future__ import annotations

import base64
from collections.abc import Callable

import pytest
from agentcore_anthropic._messages import convert_messages
from agentcore_openai._chat_request import build_chat_request
from agentcore_openai._responses_request import build_input

from agentcore import (
    DataContent,
    FunctionCallContent,
    FunctionResultContent,
    Message,
    TextContent,
    UriContent,
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


GZIP = DataContent(b"\x1f\x8b\x08\x00", "application/gzip", name="logs.gz")
GZIP_NOTE = (
    "[File 'logs.gz' (application/gzip, 4 bytes); not shown, as this model API cannot take "
    "that media type]"
)
CAT = UriContent("https://example.org/cat.png", "image/png")
MIXED = [
    Message("user", "fetch the logs"),
    Message("assistant", [FunctionCallContent("call_1", "logs", "{}")]),
    Message("tool", [FunctionResultContent("call_1", result=(CAT, GZIP))]),
]


def test_anthropic_sends_what_it_takes_and_describes_the_rest() -> None:
    _, turns = convert_messages(MIXED, None)

    assert turns[-1]["content"][0]["content"] == [
        {"type": "image", "source": {"type": "url", "url": CAT.uri}},
        {"type": "text", "text": GZIP_NOTE},
    ]


def test_responses_sends_what_it_takes_and_describes_the_rest() -> None:
    output = build_input(MIXED)[-1]["output"]

    assert output == [
        {"type": "input_image", "image_url": CAT.uri, "detail": "auto"},
        {"type": "input_text", "text": GZIP_NOTE},
    ]


def test_chat_completions_sends_what_it_takes_and_describes_the_rest() -> None:
    wire = build_chat_request(MIXED, None, "gpt-test")["messages"]

    assert wire[2] == {"role": "tool", "tool_call_id": "call_1", "content": GZIP_NOTE}
    assert wire[3]["content"][1:] == [{"type": "image_url", "image_url": {"url": CAT.uri}}]


def _anthropic(messages: list[Message]) -> object:
    return convert_messages(messages, None)


def _chat(messages: list[Message]) -> object:
    return build_chat_request(messages, None, "gpt-test")


@pytest.mark.parametrize("build", [_anthropic, build_input, _chat])
def test_media_the_caller_sends_itself_are_still_refused(
    build: Callable[[list[Message]], object],
) -> None:
    # Only a tool's result, which comes back after the tool ran, is degraded; the
    # caller's own message is a mistake to report before anything is sent.
    with pytest.raises(ValueError, match="cannot send"):
        build([Message("user", [TextContent("see"), GZIP])])
