"""OpenAIChatClient against a local Chat Completions server, through the real SDK."""

from __future__ import annotations

import contextlib
from typing import Any

import anyio
import openai
import pytest
from agentcore_openai import OpenAIChatClient

from agentcore import (
    DataContent,
    ErrorContent,
    FunctionCallContent,
    FunctionResultContent,
    HostedToolCallContent,
    Message,
    ReasoningContent,
    TextContent,
    UriContent,
    Usage,
    UsageContent,
    WebSearchTool,
)
from agentcore.errors import AuthenticationError
from tests.providers.openai import chat_fixtures as chat_fx
from tests.providers.openai import wire_fixtures as fx
from tests.providers.openai.exchange import (
    LOOSE_TOOL,
    USER,
    WEATHER_TOOL,
    both_modes,
    stream_updates,
)
from tests.providers.wire_server import Reply, WireServer

pytestmark = pytest.mark.anyio

PATH = "/v1/chat/completions"
CHAT_USAGE = Usage(
    input_tokens=42,
    output_tokens=9,
    total_tokens=51,
    cache_read_tokens=16,
    reasoning_tokens=4,
)


def _reply(server: WireServer, body: Any = chat_fx.CHAT_TEXT, **kwargs: Any) -> None:
    server.add("POST", PATH, Reply(json_body=body, **kwargs))


def _sent(server: WireServer, index: int = -1) -> dict[str, Any]:
    requests = list(server.iter_requests(PATH))
    body: dict[str, Any] = requests[index].json
    return body


# -- answers -----------------------------------------------------------------------


async def test_text_answer_is_parsed(chat: OpenAIChatClient, server: WireServer) -> None:
    _reply(server)
    response = await chat.get_response(USER)
    assert response.messages == (Message("assistant", [TextContent("Hello there, friend!")]),)
    assert (response.response_id, response.model, response.finish_reason) == (
        "chatcmpl-1",
        fx.MODEL,
        "stop",
    )
    assert response.created_at == "2026-01-01T00:00:00+00:00"


async def test_usage_maps_cached_and_reasoning_tokens(
    chat: OpenAIChatClient, server: WireServer
) -> None:
    _reply(server)
    response = await chat.get_response(USER)
    assert response.usage == CHAT_USAGE


async def test_rate_limit_headers_land_in_additional_properties(
    chat: OpenAIChatClient, server: WireServer
) -> None:
    _reply(server, headers=fx.RATE_LIMIT_HEADERS)
    response = await chat.get_response(USER)
    assert response.additional_properties == {
        "rate_limit": {
            "limit_requests": 5000,
            "remaining_requests": 4999,
            "reset_requests": "12ms",
            "limit_tokens": 800000,
            "remaining_tokens": 799950,
            "reset_tokens": "3ms",
        }
    }


async def test_streamed_response_carries_rate_limit_headers(
    chat: OpenAIChatClient, server: WireServer
) -> None:
    server.add(
        "POST",
        PATH,
        Reply(sse=chat_fx.chat_stream(chat_fx.CHAT_TEXT_CHUNKS), headers=fx.RATE_LIMIT_HEADERS),
    )
    _, final = await stream_updates(chat)
    assert final.additional_properties is not None
    assert final.additional_properties["rate_limit"]["remaining_tokens"] == 799950


async def test_tool_call_is_parsed(chat: OpenAIChatClient, server: WireServer) -> None:
    _reply(server, chat_fx.CHAT_TOOL_CALL)
    response = await chat.get_response(USER, options={"tools": [WEATHER_TOOL]})
    assert response.messages[0].contents == (
        FunctionCallContent(call_id="call_weather", name="get_weather", arguments=fx.WEATHER_ARGS),
    )
    assert response.finish_reason == "tool_calls"


async def test_parallel_tool_calls_keep_their_order(
    chat: OpenAIChatClient, server: WireServer
) -> None:
    _reply(server, chat_fx.CHAT_PARALLEL)
    response = await chat.get_response(USER)
    calls = [c for c in response.messages[0].contents if isinstance(c, FunctionCallContent)]
    assert [(c.call_id, c.name, c.parse_arguments()) for c in calls] == [
        ("call_weather", "get_weather", {"city": "Paris", "unit": "celsius"}),
        ("call_time", "get_time", {"timezone": "Europe/Paris"}),
    ]


async def test_url_citations_become_annotations(chat: OpenAIChatClient, server: WireServer) -> None:
    _reply(server, chat_fx.CHAT_ANNOTATED)
    response = await chat.get_response(USER)
    (text,) = response.messages[0].contents
    assert isinstance(text, TextContent)
    assert [(a.url, a.title, a.start, a.end) for a in text.annotations] == [
        ("https://weather.example/paris", "Paris weather", 0, 21)
    ]


async def test_refusal_is_returned_as_text(chat: OpenAIChatClient, server: WireServer) -> None:
    _reply(server, chat_fx.CHAT_REFUSAL)
    response = await chat.get_response(USER)
    assert response.text == "I can't help with that."


# -- streaming ---------------------------------------------------------------------

STREAMED = [
    pytest.param(chat_fx.CHAT_TEXT, chat_fx.CHAT_TEXT_CHUNKS, id="text"),
    pytest.param(chat_fx.CHAT_TOOL_CALL, chat_fx.CHAT_TOOL_CALL_CHUNKS, id="tool_call"),
    pytest.param(chat_fx.CHAT_PARALLEL, chat_fx.CHAT_PARALLEL_CHUNKS, id="parallel_calls"),
]


@pytest.mark.parametrize(("body", "chunks"), STREAMED)
@pytest.mark.parametrize("chunk_size", [None, 1, 7, 13])
async def test_streamed_fold_equals_the_whole_response(
    chat: OpenAIChatClient,
    server: WireServer,
    body: dict[str, Any],
    chunks: list[dict[str, Any]],
    chunk_size: int | None,
) -> None:
    whole, folded = await both_modes(
        chat, server, PATH, body, chat_fx.chat_stream(chunks), chunk_size=chunk_size
    )
    assert folded == whole
    assert folded.usage == CHAT_USAGE


async def test_streamed_call_pieces_share_the_call_id_and_the_first_names_it(
    chat: OpenAIChatClient, server: WireServer
) -> None:
    server.add("POST", PATH, Reply(sse=chat_fx.chat_stream(chat_fx.CHAT_PARALLEL_CHUNKS)))
    updates, _ = await stream_updates(chat)
    pieces = [c for u in updates for c in u.contents if isinstance(c, FunctionCallContent)]
    assert [(p.call_id, p.name, p.index) for p in pieces] == [
        ("call_weather", "get_weather", 0),
        ("call_time", "get_time", 1),
        ("call_time", "", 1),
        ("call_weather", "", 0),
        ("call_time", "", 1),
        ("call_weather", "", 0),
    ]


async def test_streamed_usage_arrives_as_usage_content(
    chat: OpenAIChatClient, server: WireServer
) -> None:
    server.add("POST", PATH, Reply(sse=chat_fx.chat_stream(chat_fx.CHAT_TEXT_CHUNKS)))
    updates, _ = await stream_updates(chat)
    usages = [c.usage for u in updates for c in u.contents if isinstance(c, UsageContent)]
    assert usages == [CHAT_USAGE]


async def test_stream_request_asks_for_usage(chat: OpenAIChatClient, server: WireServer) -> None:
    server.add("POST", PATH, Reply(sse=chat_fx.chat_stream(chat_fx.CHAT_TEXT_CHUNKS)))
    await stream_updates(chat)
    sent = _sent(server)
    assert (sent["stream"], sent["stream_options"]) == (True, {"include_usage": True})


async def test_mid_stream_error_becomes_an_error_update(
    chat: OpenAIChatClient, server: WireServer
) -> None:
    server.add("POST", PATH, Reply(sse=chat_fx.CHAT_STREAM_ERROR))
    updates, final = await stream_updates(chat)
    assert updates[-1].contents == (
        ErrorContent("The server had an error while processing your request.", code="server_error"),
    )
    assert final.finish_reason == "error"
    assert final.text == "Partial"


async def test_leaving_a_stream_early_closes_the_connection(
    chat: OpenAIChatClient, server: WireServer
) -> None:
    chunks = [chat_fx.chat_chunk({"content": "x"}) for _ in range(400)]
    server.add("POST", PATH, Reply(sse=chat_fx.chat_stream(chunks), chunk_size=64, delay=0.01))
    stream = chat.get_response(USER, stream=True)
    # aclosing: under trio a generator left suspended by `break` warns when collected.
    async with contextlib.aclosing(stream.__aiter__()) as updates:
        async for update in updates:
            assert update.text == "x"
            break
    await stream.aclose()
    assert await anyio.to_thread.run_sync(server.disconnected.wait, 10.0)


# -- what is sent ------------------------------------------------------------------


async def test_request_sends_model_instructions_and_messages(
    chat: OpenAIChatClient, server: WireServer
) -> None:
    _reply(server)
    await chat.get_response(
        [Message("user", ["Hi"], author_name="ann")], options={"instructions": "Be brief."}
    )
    sent = _sent(server)
    assert sent["model"] == "gpt-test"
    assert sent["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Hi", "name": "ann"},
    ]


async def test_developer_role_carries_instructions_and_system_messages(
    chat: OpenAIChatClient, server: WireServer
) -> None:
    _reply(server)
    await chat.get_response(
        [Message("system", ["Rules."]), *USER],
        options={"instructions": "Be brief.", "instructions_role": "developer"},
    )
    roles = [m["role"] for m in _sent(server)["messages"]]
    assert roles == ["developer", "developer", "user"]


async def test_options_model_overrides_the_constructor_model(
    chat: OpenAIChatClient, server: WireServer
) -> None:
    _reply(server)
    await chat.get_response(USER, options={"model": "gpt-other", "temperature": None})
    sent = _sent(server)
    assert sent["model"] == "gpt-other"
    assert "temperature" not in sent


async def test_sampling_options_are_sent_under_chat_completions_names(
    chat: OpenAIChatClient, server: WireServer
) -> None:
    _reply(server)
    await chat.get_response(
        USER,
        options={
            "temperature": 0.2,
            "max_tokens": 300,
            "stop": ("END",),
            "seed": 7,
            "extra_body": {"prediction": {"type": "content", "content": "x"}},
        },
    )
    sent = _sent(server)
    assert (sent["temperature"], sent["max_completion_tokens"], sent["stop"], sent["seed"]) == (
        0.2,
        300,
        ["END"],
        7,
    )
    assert sent["prediction"] == {"type": "content", "content": "x"}


async def test_function_tools_are_strict_only_when_their_schema_allows(
    chat: OpenAIChatClient, server: WireServer
) -> None:
    _reply(server)
    await chat.get_response(
        USER, options={"tools": [WEATHER_TOOL, LOOSE_TOOL], "parallel_tool_calls": False}
    )
    sent = _sent(server)
    assert sent["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Current weather for a city.",
                "parameters": dict(WEATHER_TOOL.parameters),
                "strict": True,
            },
        },
        {
            "type": "function",
            "function": {
                "name": "search",
                "description": "Search the notes.",
                "parameters": dict(LOOSE_TOOL.parameters),
                "strict": False,
            },
        },
    ]
    assert sent["parallel_tool_calls"] is False


async def test_raw_tool_dicts_pass_through(chat: OpenAIChatClient, server: WireServer) -> None:
    raw = {"type": "function", "function": {"name": "ping", "parameters": {"type": "object"}}}
    _reply(server)
    await chat.get_response(USER, options={"tools": [raw]})
    assert _sent(server)["tools"] == [raw]


@pytest.mark.parametrize(
    ("tool_choice", "wire"),
    [
        ("auto", "auto"),
        ("none", "none"),
        ("required", "required"),
        ({"mode": "required"}, "required"),
        (
            {"mode": "required", "required_function_name": "get_weather"},
            {"type": "function", "function": {"name": "get_weather"}},
        ),
    ],
)
async def test_tool_choice_is_mapped(
    chat: OpenAIChatClient, server: WireServer, tool_choice: Any, wire: Any
) -> None:
    _reply(server)
    await chat.get_response(USER, options={"tools": [WEATHER_TOOL], "tool_choice": tool_choice})
    assert _sent(server)["tool_choice"] == wire


async def test_tool_choice_without_tools_is_not_sent(
    chat: OpenAIChatClient, server: WireServer
) -> None:
    _reply(server)
    await chat.get_response(USER, options={"tool_choice": "none"})
    assert "tool_choice" not in _sent(server)


@pytest.mark.parametrize(
    ("schema", "strict"),
    [
        (WEATHER_TOOL.parameters, True),
        (LOOSE_TOOL.parameters, False),
    ],
)
async def test_structured_output_sends_a_json_schema(
    chat: OpenAIChatClient, server: WireServer, schema: Any, strict: bool
) -> None:
    _reply(server, chat_fx.CHAT_STRUCTURED)
    response = await chat.get_response(
        USER, options={"response_format": {"name": "weather", "schema": schema}}
    )
    assert _sent(server)["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "weather", "schema": dict(schema), "strict": strict},
    }
    assert response.text == '{"city": "Paris", "temperature": 21}'


async def test_tool_round_trip_is_sent_as_tool_calls_and_tool_messages(
    chat: OpenAIChatClient, server: WireServer
) -> None:
    _reply(server)
    history = [
        *USER,
        Message(
            "assistant",
            [
                ReasoningContent("thinking", provider="openai", id="rs_1", protected_data="enc"),
                FunctionCallContent("call_1", "get_weather", {"city": "Paris"}),
                FunctionCallContent("call_2", "get_time", '{"timezone": "UTC"}'),
            ],
        ),
        Message(
            "tool",
            [
                FunctionResultContent("call_1", {"temperature": 21}),
                FunctionResultContent("call_2", None, error="clock is broken"),
            ],
        ),
    ]
    await chat.get_response(history)
    assert _sent(server)["messages"][1:] == [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                },
                {
                    "id": "call_2",
                    "type": "function",
                    "function": {"name": "get_time", "arguments": '{"timezone": "UTC"}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": '{"temperature": 21}'},
        {"role": "tool", "tool_call_id": "call_2", "content": "clock is broken"},
    ]


async def test_images_pdfs_and_audio_are_sent_as_content_parts(
    chat: OpenAIChatClient, server: WireServer
) -> None:
    _reply(server)
    await chat.get_response(
        [
            Message(
                "user",
                [
                    "Compare these.",
                    DataContent(b"\x89PNG", "image/png"),
                    UriContent("https://img.example/a.jpg", "image/jpeg"),
                    DataContent(b"%PDF-1.7", "application/pdf", name="a.pdf"),
                    DataContent(b"RIFF", "audio/wav"),
                ],
            )
        ]
    )
    assert _sent(server)["messages"][0]["content"] == [
        {"type": "text", "text": "Compare these."},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw=="}},
        {"type": "image_url", "image_url": {"url": "https://img.example/a.jpg"}},
        {
            "type": "file",
            "file": {"filename": "a.pdf", "file_data": "data:application/pdf;base64,JVBERi0xLjc="},
        },
        {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}},
    ]


async def test_hosted_tool_results_from_history_are_not_sent(
    chat: OpenAIChatClient, server: WireServer
) -> None:
    _reply(server)
    hosted = HostedToolCallContent("ws_1", "web_search", provider="openai", raw={"id": "ws_1"})
    await chat.get_response([*USER, Message("assistant", [hosted, "Sunny."])])
    assert _sent(server)["messages"][1] == {"role": "assistant", "content": "Sunny."}


# -- refused before any request ------------------------------------------------------


async def test_hosted_tools_are_refused_before_any_request(
    chat: OpenAIChatClient, server: WireServer
) -> None:
    with pytest.raises(ValueError, match="OpenAIResponsesClient"):
        chat.get_response(USER, options={"tools": [WebSearchTool()]})
    assert server.requests == []


async def test_conversation_id_is_refused(chat: OpenAIChatClient, server: WireServer) -> None:
    with pytest.raises(ValueError, match="conversation_id"):
        chat.get_response(USER, options={"conversation_id": "resp_1"}, stream=True)
    assert server.requests == []


@pytest.mark.parametrize(
    "content",
    [
        DataContent(b"PK", "application/zip"),
        UriContent("https://x.example/a.pdf", "application/pdf"),
    ],
)
async def test_content_the_api_cannot_take_is_refused(
    chat: OpenAIChatClient, server: WireServer, content: DataContent | UriContent
) -> None:
    with pytest.raises(ValueError, match="OpenAIChatClient cannot send"):
        chat.get_response([Message("user", [content])])
    assert server.requests == []


async def test_an_unknown_tool_object_is_refused(chat: OpenAIChatClient) -> None:
    with pytest.raises(ValueError, match="cannot send tool"):
        chat.get_response(USER, options={"tools": [object()]})


async def test_an_unknown_tool_choice_is_refused(chat: OpenAIChatClient) -> None:
    with pytest.raises(ValueError, match="tool_choice"):
        chat.get_response(USER, options={"tools": [WEATHER_TOOL], "tool_choice": "any"})


# -- construction ------------------------------------------------------------------


async def test_a_given_sdk_client_is_used_and_left_open(server: WireServer) -> None:
    sdk = openai.AsyncOpenAI(api_key="sk-given", base_url=f"{server.base_url}/v1", max_retries=0)
    client = OpenAIChatClient("gpt-test", client=sdk)
    _reply(server)
    await client.get_response(USER)
    await client.aclose()
    assert not sdk.is_closed()
    assert server.requests[0].headers["authorization"] == "Bearer sk-given"
    await sdk.close()


def test_a_client_and_a_key_together_are_refused() -> None:
    sdk = openai.AsyncOpenAI(api_key="sk-given")
    with pytest.raises(ValueError, match="not both"):
        OpenAIChatClient("gpt-test", client=sdk, api_key="sk-other")


def test_a_missing_key_names_the_environment_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_ADMIN_KEY", raising=False)
    with pytest.raises(AuthenticationError, match="OPENAI_API_KEY") as caught:
        OpenAIChatClient("gpt-test")
    assert isinstance(caught.value.__cause__, openai.OpenAIError)


def test_an_empty_model_is_refused() -> None:
    with pytest.raises(ValueError, match="model name"):
        OpenAIChatClient("", api_key="sk-test")


async def test_a_built_client_does_not_retry(chat: OpenAIChatClient) -> None:
    assert chat.client.max_retries == 0
