"""OpenAIResponsesClient against a local Responses API server, through the real SDK."""

from __future__ import annotations

import contextlib
from typing import Any

import anyio
import pytest
from agentcore_openai import OpenAIResponsesClient

from agentcore import (
    DataContent,
    ErrorContent,
    FunctionCallContent,
    FunctionResultContent,
    Message,
    ReasoningContent,
    TextContent,
    UriContent,
    Usage,
)
from tests.providers.openai import responses_fixtures as resp_fx
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

PATH = "/v1/responses"
RESPONSES_USAGE = Usage(
    input_tokens=120,
    output_tokens=38,
    total_tokens=158,
    cache_read_tokens=64,
    cache_write_tokens=8,
    reasoning_tokens=20,
    server_tool_calls=0,
)


def _reply(server: WireServer, body: Any = resp_fx.RESP_TEXT, **kwargs: Any) -> None:
    server.add("POST", PATH, Reply(json_body=body, **kwargs))


def _sent(server: WireServer) -> dict[str, Any]:
    body: dict[str, Any] = list(server.iter_requests(PATH))[-1].json
    return body


# -- answers -----------------------------------------------------------------------


async def test_text_answer_is_parsed(responses: OpenAIResponsesClient, server: WireServer) -> None:
    _reply(server)
    response = await responses.get_response(USER)
    assert response.messages == (Message("assistant", [TextContent("Hello there, friend!")]),)
    assert (response.response_id, response.model, response.finish_reason) == (
        "resp_text",
        fx.MODEL,
        "stop",
    )
    assert response.created_at == "2026-01-01T00:00:00+00:00"
    assert response.usage == RESPONSES_USAGE


async def test_stored_response_id_is_the_conversation_id(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    _reply(server)
    response = await responses.get_response(USER)
    assert response.conversation_id == "resp_text"


async def test_unstored_response_has_no_conversation_id(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    _reply(server)
    response = await responses.get_response(USER, options={"store": False})
    assert response.conversation_id is None


async def test_reasoning_and_a_call_are_parsed_in_order(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    _reply(server, resp_fx.RESP_TOOL_CALL)
    response = await responses.get_response(USER)
    assert response.messages[0].contents == (
        ReasoningContent(
            "Need the weather.\n\nCall get_weather for Paris.",
            provider="openai",
            id="rs_1",
            protected_data=resp_fx.ENCRYPTED,
        ),
        FunctionCallContent("call_weather", "get_weather", fx.WEATHER_ARGS),
    )
    assert response.finish_reason == "tool_calls"


async def test_parallel_calls_are_parsed_in_order(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    _reply(server, resp_fx.RESP_PARALLEL)
    response = await responses.get_response(USER)
    calls = [c for c in response.messages[0].contents if isinstance(c, FunctionCallContent)]
    assert [(c.call_id, c.name) for c in calls] == [
        ("call_weather", "get_weather"),
        ("call_time", "get_time"),
    ]


async def test_output_cut_by_max_tokens_finishes_with_length(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    _reply(server, resp_fx.RESP_INCOMPLETE)
    response = await responses.get_response(USER)
    assert (response.finish_reason, response.text) == ("length", "The long answer")


async def test_a_failed_response_ends_with_an_error(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    _reply(server, resp_fx.RESP_FAILED)
    response = await responses.get_response(USER)
    assert response.finish_reason == "error"
    assert response.messages[0].contents[-1] == ErrorContent(
        "The model failed to finish.", code="server_error"
    )


async def test_file_citations_and_paths_become_annotations(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    _reply(server, resp_fx.RESP_FILE_ANNOTATIONS)
    (text,) = (await responses.get_response(USER)).messages[0].contents
    assert isinstance(text, TextContent)
    assert [(a.kind, a.file_id, a.title, a.start, a.end) for a in text.annotations] == [
        ("citation", "file-abc", "policy.pdf", 4, None),
        ("citation", "cfile-1", "chart.png", 20, 29),
        ("file_path", "file-out", None, 24, None),
    ]


async def test_a_client_used_as_a_context_manager_closes_its_sdk_client(
    server: WireServer, anyio_backend: str
) -> None:
    async with OpenAIResponsesClient(
        "gpt-test", api_key="sk-test", base_url=f"{server.base_url}/v1"
    ) as client:
        _reply(server)
        await client.get_response(USER)
    assert client.client.is_closed()


async def test_rate_limit_headers_land_in_additional_properties(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    _reply(server, headers=fx.RATE_LIMIT_HEADERS)
    response = await responses.get_response(USER)
    assert response.additional_properties is not None
    assert response.additional_properties["rate_limit"]["limit_tokens"] == 800000


# -- streaming ---------------------------------------------------------------------

STREAMED = [
    pytest.param(resp_fx.RESP_TEXT, resp_fx.RESP_TEXT_EVENTS, id="text"),
    pytest.param(resp_fx.RESP_TOOL_CALL, resp_fx.RESP_TOOL_CALL_EVENTS, id="reasoning_and_call"),
    pytest.param(resp_fx.RESP_PARALLEL, resp_fx.RESP_PARALLEL_EVENTS, id="parallel_calls"),
    pytest.param(resp_fx.RESP_INCOMPLETE, resp_fx.RESP_INCOMPLETE_EVENTS, id="incomplete"),
    pytest.param(resp_fx.RESP_FAILED, resp_fx.RESP_FAILED_EVENTS, id="failed"),
]


@pytest.mark.parametrize(("body", "events"), STREAMED)
@pytest.mark.parametrize("chunk_size", [None, 1, 7, 13])
async def test_streamed_fold_equals_the_whole_response(
    responses: OpenAIResponsesClient,
    server: WireServer,
    body: dict[str, Any],
    events: fx.Events,
    chunk_size: int | None,
) -> None:
    whole, folded = await both_modes(responses, server, PATH, body, events, chunk_size=chunk_size)
    assert folded == whole


async def test_streamed_reasoning_arrives_as_deltas_then_encrypted_content(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    server.add("POST", PATH, Reply(sse=resp_fx.RESP_TOOL_CALL_EVENTS))
    updates, _ = await stream_updates(responses)
    pieces = [c for u in updates for c in u.contents if isinstance(c, ReasoningContent)]
    assert [(p.text, p.protected_data) for p in pieces] == [
        ("Need the ", None),
        ("weather.", None),
        ("\n\nCall get_weather", None),
        (" for Paris.", None),
        ("", resp_fx.ENCRYPTED),
    ]
    assert {(p.id, p.provider) for p in pieces} == {("rs_1", "openai")}


async def test_streamed_call_pieces_share_the_call_id_and_the_first_names_it(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    server.add("POST", PATH, Reply(sse=resp_fx.RESP_PARALLEL_EVENTS))
    updates, _ = await stream_updates(responses)
    pieces = [c for u in updates for c in u.contents if isinstance(c, FunctionCallContent)]
    assert [(p.call_id, p.name, p.arguments) for p in pieces] == [
        ("call_weather", "get_weather", ""),
        ("call_weather", "", '{"city": "Paris", '),
        ("call_weather", "", '"unit": "celsius"}'),
        ("call_time", "get_time", ""),
        ("call_time", "", '{"timezone": '),
        ("call_time", "", '"Europe/Paris"}'),
    ]


async def test_items_a_server_sends_without_deltas_are_not_lost(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    events = resp_fx.sse(
        [
            *resp_fx.created("resp_call"),
            *resp_fx.whole_item_events(0, resp_fx.RESP_REASONING_ITEM),
            *resp_fx.whole_item_events(1, resp_fx.RESP_CALL_ITEM),
            resp_fx.completed(resp_fx.RESP_TOOL_CALL),
        ]
    )
    whole, folded = await both_modes(responses, server, PATH, resp_fx.RESP_TOOL_CALL, events)
    assert folded == whole


async def test_an_error_event_ends_the_stream_with_error_content(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    server.add("POST", PATH, Reply(sse=resp_fx.RESP_ERROR_EVENTS))
    updates, final = await stream_updates(responses)
    assert updates[-1].contents == (
        ErrorContent("Rate limit reached during generation.", code="rate_limit_exceeded"),
    )
    assert (final.finish_reason, final.text, final.response_id) == (
        "error",
        "Partial",
        "resp_error",
    )


async def test_leaving_a_stream_early_closes_the_connection(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    server.add(
        "POST",
        PATH,
        Reply(sse=resp_fx.many_text_events("resp_long", 400), chunk_size=64, delay=0.01),
    )
    stream = responses.get_response(USER, stream=True)
    # aclosing: under trio a generator left suspended by `break` warns when collected.
    async with contextlib.aclosing(stream.__aiter__()) as updates:
        async for update in updates:
            assert update.text == "x"
            break
    await stream.aclose()
    assert await anyio.to_thread.run_sync(server.disconnected.wait, 10.0)


# -- what is sent ------------------------------------------------------------------


async def test_instructions_go_in_the_instructions_parameter(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    _reply(server)
    await responses.get_response(
        [Message("system", ["Rules."]), Message("user", ["Hi"])],
        options={"instructions": "Be brief.", "max_tokens": 200, "temperature": 0.3},
    )
    sent = _sent(server)
    assert (
        sent["model"],
        sent["instructions"],
        sent["max_output_tokens"],
        sent["temperature"],
    ) == (
        "gpt-test",
        "Be brief.",
        200,
        0.3,
    )
    assert sent["input"] == [
        {"role": "system", "content": [{"type": "input_text", "text": "Rules."}]},
        {"role": "user", "content": [{"type": "input_text", "text": "Hi"}]},
    ]


async def test_stream_request_sets_stream(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    server.add("POST", PATH, Reply(sse=resp_fx.RESP_TEXT_EVENTS))
    await stream_updates(responses)
    assert _sent(server)["stream"] is True


async def test_conversation_id_is_sent_as_previous_response_id(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    _reply(server)
    await responses.get_response(USER, options={"conversation_id": "resp_prev"})
    assert _sent(server)["previous_response_id"] == "resp_prev"


async def test_unstored_requests_ask_for_encrypted_reasoning(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    _reply(server)
    await responses.get_response(
        USER, options={"store": False, "include": ["message.output_text.logprobs"]}
    )
    sent = _sent(server)
    assert sent["store"] is False
    assert sent["include"] == ["message.output_text.logprobs", "reasoning.encrypted_content"]


async def test_stored_requests_do_not_ask_for_encrypted_reasoning(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    _reply(server)
    await responses.get_response(USER, options={"reasoning": {"effort": "low", "summary": "auto"}})
    sent = _sent(server)
    assert "include" not in sent
    assert sent["reasoning"] == {"effort": "low", "summary": "auto"}


async def test_history_round_trips_reasoning_calls_and_results(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    _reply(server)
    history = [
        *USER,
        Message(
            "assistant",
            [
                ReasoningContent(
                    "Need the weather.", provider="openai", id="rs_1", protected_data="enc"
                ),
                ReasoningContent("Hmm.", provider="anthropic", id="th_1", protected_data="sig"),
                FunctionCallContent("call_1", "get_weather", {"city": "Paris"}),
            ],
        ),
        Message("tool", [FunctionResultContent("call_1", {"temperature": 21})]),
        Message("assistant", ["It is 21 degrees."]),
        Message("user", ["Thanks"]),
    ]
    await responses.get_response(history)
    assert _sent(server)["input"] == [
        {
            "role": "user",
            "content": [{"type": "input_text", "text": "What is the weather in Paris?"}],
        },
        {
            "type": "reasoning",
            "id": "rs_1",
            "summary": [{"type": "summary_text", "text": "Need the weather."}],
            "encrypted_content": "enc",
        },
        {
            "type": "function_call",
            "call_id": "call_1",
            "name": "get_weather",
            "arguments": '{"city": "Paris"}',
        },
        {"type": "function_call_output", "call_id": "call_1", "output": '{"temperature": 21}'},
        {"role": "assistant", "content": [{"type": "output_text", "text": "It is 21 degrees."}]},
        {"role": "user", "content": [{"type": "input_text", "text": "Thanks"}]},
    ]


async def test_a_parsed_response_round_trips_into_the_next_request(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    _reply(server, resp_fx.RESP_TOOL_CALL)
    first = await responses.get_response(USER)
    _reply(server)
    await responses.get_response(
        [*USER, *first.messages, Message("tool", [FunctionResultContent("call_weather", "21C")])]
    )
    assert _sent(server)["input"][1:] == [
        {
            "type": "reasoning",
            "id": "rs_1",
            "summary": [
                {"type": "summary_text", "text": "Need the weather.\n\nCall get_weather for Paris."}
            ],
            "encrypted_content": resp_fx.ENCRYPTED,
        },
        {
            "type": "function_call",
            "call_id": "call_weather",
            "name": "get_weather",
            "arguments": fx.WEATHER_ARGS,
        },
        {"type": "function_call_output", "call_id": "call_weather", "output": "21C"},
    ]


async def test_images_and_files_are_sent_as_input_parts(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    _reply(server)
    await responses.get_response(
        [
            Message(
                "user",
                [
                    "Read these.",
                    DataContent(b"\x89PNG", "image/png"),
                    UriContent("https://img.example/a.jpg"),
                    DataContent(b"%PDF-1.7", "application/pdf", name="a.pdf"),
                    UriContent("https://docs.example/b.pdf", "application/pdf"),
                ],
            )
        ]
    )
    assert _sent(server)["input"][0]["content"] == [
        {"type": "input_text", "text": "Read these."},
        {"type": "input_image", "image_url": "data:image/png;base64,iVBORw==", "detail": "auto"},
        {"type": "input_image", "image_url": "https://img.example/a.jpg", "detail": "auto"},
        {
            "type": "input_file",
            "file_data": "data:application/pdf;base64,JVBERi0xLjc=",
            "filename": "a.pdf",
        },
        {"type": "input_file", "file_url": "https://docs.example/b.pdf"},
    ]


async def test_function_tools_are_strict_only_when_their_schema_allows(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    _reply(server)
    await responses.get_response(USER, options={"tools": [WEATHER_TOOL, LOOSE_TOOL]})
    assert _sent(server)["tools"] == [
        {
            "type": "function",
            "name": "get_weather",
            "parameters": dict(WEATHER_TOOL.parameters),
            "strict": True,
            "description": "Current weather for a city.",
        },
        {
            "type": "function",
            "name": "search",
            "parameters": dict(LOOSE_TOOL.parameters),
            "strict": False,
            "description": "Search the notes.",
        },
    ]


@pytest.mark.parametrize(
    ("tool_choice", "wire"),
    [
        ("auto", "auto"),
        ("none", "none"),
        ("required", "required"),
        (
            {"mode": "required", "required_function_name": "get_weather"},
            {"type": "function", "name": "get_weather"},
        ),
    ],
)
async def test_tool_choice_is_mapped(
    responses: OpenAIResponsesClient, server: WireServer, tool_choice: Any, wire: Any
) -> None:
    _reply(server)
    await responses.get_response(
        USER,
        options={"tools": [WEATHER_TOOL], "tool_choice": tool_choice, "parallel_tool_calls": True},
    )
    sent = _sent(server)
    assert (sent["tool_choice"], sent["parallel_tool_calls"]) == (wire, True)


async def test_structured_output_sends_a_text_format(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    _reply(server)
    await responses.get_response(USER, options={"response_format": dict(LOOSE_TOOL.parameters)})
    assert _sent(server)["text"] == {
        "format": {
            "type": "json_schema",
            "name": "response",
            "schema": dict(LOOSE_TOOL.parameters),
            "strict": False,
        }
    }


async def test_chat_only_options_are_not_sent(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    _reply(server)
    await responses.get_response(
        USER, options={"stop": "END", "seed": 1, "frequency_penalty": 0.5, "presence_penalty": 0.5}
    )
    sent = _sent(server)
    assert not {"stop", "seed", "frequency_penalty", "presence_penalty"} & set(sent)


async def test_audio_is_refused_before_any_request(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    with pytest.raises(ValueError, match="OpenAIResponsesClient cannot send"):
        responses.get_response([Message("user", [DataContent(b"RIFF", "audio/wav")])], stream=True)
    assert server.requests == []


async def test_count_tokens_asks_the_input_tokens_endpoint(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    server.add("POST", "/v1/responses/input_tokens", Reply(json_body=resp_fx.INPUT_TOKENS))
    count = await responses.count_tokens(
        USER, options={"instructions": "Be brief.", "tools": [WEATHER_TOOL], "temperature": 0.1}
    )
    assert count == 321
    (request,) = server.iter_requests("/v1/responses/input_tokens")
    sent = request.json
    assert (sent["model"], sent["instructions"], sent["tools"][0]["name"]) == (
        "gpt-test",
        "Be brief.",
        "get_weather",
    )
    assert "temperature" not in sent
