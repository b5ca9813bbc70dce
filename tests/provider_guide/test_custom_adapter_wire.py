"""What the guide's example adapter sends and how it reads what comes back, beyond the kit."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx2
import pytest

from agentcore import (
    ChatOptions,
    DataContent,
    ErrorContent,
    FunctionCallContent,
    FunctionResultContent,
    Message,
    SupportsGetResponse,
    WebSearchTool,
    tool,
)
from agentcore.errors import TransientError
from tests.provider_guide.example import load_example
from tests.provider_guide.harness import CHAT_PATH
from tests.providers.wire_server import Reply, WireServer

STREAM_MODES = [pytest.param(False, id="whole"), pytest.param(True, id="streamed")]

COMPLETION: dict[str, Any] = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 1767225600,
    "model": "served-model",
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}
    ],
    "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4},
}


@tool
def get_weather(city: str) -> str:
    """The current weather in a city."""
    return f"sunny in {city}"


@pytest.fixture
def server() -> Iterator[WireServer]:
    with WireServer() as running:
        yield running


@pytest.fixture
async def client(server: WireServer, anyio_backend: str) -> AsyncIterator[Any]:
    adapter = load_example().OpenAICompatibleChatClient(
        "local-model", base_url=f"{server.base_url}/v1", api_key="test-key"
    )
    yield adapter
    await adapter.aclose()


def _reply(stream: bool) -> Reply:
    if not stream:
        return Reply(json_body=COMPLETION)
    chunk: dict[str, Any] = {**COMPLETION, "object": "chat.completion.chunk", "choices": []}
    return Reply(sse=[(None, chunk), (None, "[DONE]")])


async def _send(
    client: SupportsGetResponse[Any],
    messages: list[Message],
    options: ChatOptions[Any] | None = None,
    *,
    stream: bool = False,
) -> None:
    if stream:
        await client.get_response(messages, options=options, stream=True).get_final_response()
    else:
        await client.get_response(messages, options=options)


def _sent(server: WireServer) -> dict[str, Any]:
    body: dict[str, Any] = server.requests[-1].json
    return body


@pytest.mark.anyio
@pytest.mark.parametrize("stream", STREAM_MODES)
async def test_instructions_go_first_as_a_system_message(
    client: Any, server: WireServer, stream: bool
) -> None:
    server.add("POST", CHAT_PATH, _reply(stream))
    await _send(client, [Message("user", "Hi")], {"instructions": "Be brief."}, stream=stream)
    assert _sent(server)["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Hi"},
    ]


@pytest.mark.anyio
async def test_the_model_option_overrides_the_constructor_model(
    client: Any, server: WireServer
) -> None:
    server.add("POST", CHAT_PATH, _reply(False))
    await _send(client, [Message("user", "Hi")], {"model": "other-model"})
    assert _sent(server)["model"] == "other-model"


@pytest.mark.anyio
async def test_sampling_options_are_sent_and_unset_ones_are_not(
    client: Any, server: WireServer
) -> None:
    server.add("POST", CHAT_PATH, _reply(False))
    await _send(
        client, [Message("user", "Hi")], {"temperature": 0.2, "max_tokens": 50, "seed": None}
    )
    sent = _sent(server)
    assert (sent["temperature"], sent["max_tokens"]) == (0.2, 50)
    assert "seed" not in sent


@pytest.mark.anyio
async def test_the_api_key_is_sent_as_a_bearer_token(client: Any, server: WireServer) -> None:
    server.add("POST", CHAT_PATH, _reply(False))
    await _send(client, [Message("user", "Hi")])
    assert server.requests[-1].headers["authorization"] == "Bearer test-key"


@pytest.mark.anyio
async def test_function_tools_are_declared_with_their_json_schema(
    client: Any, server: WireServer
) -> None:
    server.add("POST", CHAT_PATH, _reply(False))
    await _send(client, [Message("user", "Hi")], {"tools": [get_weather]})
    function = _sent(server)["tools"][0]["function"]
    assert function["name"] == "get_weather"
    assert function["description"] == get_weather.description
    assert function["parameters"] == get_weather.parameters


@pytest.mark.anyio
async def test_a_raw_tool_definition_is_sent_as_it_is(client: Any, server: WireServer) -> None:
    raw = {"type": "function", "function": {"name": "ping", "parameters": {"type": "object"}}}
    server.add("POST", CHAT_PATH, _reply(False))
    await _send(client, [Message("user", "Hi")], {"tools": [raw]})
    assert _sent(server)["tools"] == [raw]


@pytest.mark.anyio
async def test_a_required_function_name_becomes_a_named_tool_choice(
    client: Any, server: WireServer
) -> None:
    server.add("POST", CHAT_PATH, _reply(False))
    options: ChatOptions[Any] = {
        "tools": [get_weather],
        "tool_choice": {"mode": "required", "required_function_name": "get_weather"},
    }
    await _send(client, [Message("user", "Hi")], options)
    assert _sent(server)["tool_choice"] == {"type": "function", "function": {"name": "get_weather"}}


@pytest.mark.anyio
async def test_required_without_a_name_is_sent_as_required(client: Any, server: WireServer) -> None:
    server.add("POST", CHAT_PATH, _reply(False))
    options: ChatOptions[Any] = {"tools": [get_weather], "tool_choice": {"mode": "required"}}
    await _send(client, [Message("user", "Hi")], options)
    assert _sent(server)["tool_choice"] == "required"


@pytest.mark.anyio
async def test_tool_choice_is_not_sent_without_tools(client: Any, server: WireServer) -> None:
    server.add("POST", CHAT_PATH, _reply(False))
    await _send(client, [Message("user", "Hi")], {"tool_choice": "none"})
    assert "tool_choice" not in _sent(server)
    assert "tools" not in _sent(server)


@pytest.mark.anyio
async def test_a_json_schema_response_format_is_sent_as_json_schema(
    client: Any, server: WireServer
) -> None:
    schema = {"type": "object", "properties": {"city": {"type": "string"}}}
    server.add("POST", CHAT_PATH, _reply(False))
    await _send(client, [Message("user", "Hi")], {"response_format": schema})
    assert _sent(server)["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "response", "schema": schema},
    }


@pytest.mark.anyio
async def test_a_streamed_request_asks_for_usage(client: Any, server: WireServer) -> None:
    server.add("POST", CHAT_PATH, _reply(True))
    await _send(client, [Message("user", "Hi")], stream=True)
    sent = _sent(server)
    assert sent["stream"] is True
    assert sent["stream_options"] == {"include_usage": True}


@pytest.mark.anyio
async def test_calls_and_results_in_the_history_are_sent_in_wire_form(
    client: Any, server: WireServer
) -> None:
    history = [
        Message("user", "Weather?"),
        Message("assistant", [FunctionCallContent("call_1", "get_weather", {"city": "Paris"})]),
        Message("tool", [FunctionResultContent("call_1", {"sky": "clear"})]),
    ]
    server.add("POST", CHAT_PATH, _reply(False))
    await _send(client, history)
    _, assistant, result = _sent(server)["messages"]
    assert assistant == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
            }
        ],
    }
    assert result == {"role": "tool", "tool_call_id": "call_1", "content": '{"sky": "clear"}'}


@pytest.mark.anyio
async def test_content_the_service_cannot_take_raises_before_any_request(
    client: Any, server: WireServer
) -> None:
    image = DataContent(b"\x89PNG", "image/png")
    with pytest.raises(ValueError, match="cannot send DataContent"):
        await _send(client, [Message("user", ["Look:", image])])
    assert server.requests == []


@pytest.mark.anyio
async def test_a_hosted_tool_raises_before_any_request(client: Any, server: WireServer) -> None:
    with pytest.raises(ValueError, match="no hosted 'web_search' tool"):
        await _send(client, [Message("user", "Hi")], {"tools": [WebSearchTool()]})
    assert server.requests == []


@pytest.mark.anyio
async def test_an_error_inside_the_stream_becomes_error_content(
    client: Any, server: WireServer
) -> None:
    opening = {**COMPLETION, "object": "chat.completion.chunk", "usage": None}
    opening["choices"] = [{"index": 0, "delta": {"content": "Hel"}, "finish_reason": None}]
    failure = {"error": {"message": "the engine died", "type": "server_error", "code": 500}}
    server.add("POST", CHAT_PATH, Reply(sse=[(None, opening), (None, failure)]))
    stream = client.get_response([Message("user", "Hi")], stream=True)
    response = await stream.get_final_response()
    assert response.finish_reason == "error"
    errors = [c for c in response.messages[0].contents if isinstance(c, ErrorContent)]
    assert errors == [ErrorContent("the engine died", code="server_error")]


@pytest.mark.anyio
async def test_an_unknown_finish_reason_is_left_unset(client: Any, server: WireServer) -> None:
    body = {**COMPLETION, "choices": [{**COMPLETION["choices"][0], "finish_reason": "abort"}]}
    server.add("POST", CHAT_PATH, Reply(json_body=body))
    response = await client.get_response([Message("user", "Hi")])
    assert response.finish_reason is None
    assert response.text == "ok"


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.mark.anyio
@pytest.mark.parametrize("stream", STREAM_MODES)
async def test_an_unreachable_server_raises_a_transient_error(
    anyio_backend: str, stream: bool
) -> None:
    adapter = load_example().OpenAICompatibleChatClient(
        "local-model", base_url=f"http://127.0.0.1:{_closed_port()}/v1"
    )
    try:
        with pytest.raises(TransientError) as caught:
            await _send(adapter, [Message("user", "Hi")], stream=stream)
    finally:
        await adapter.aclose()
    assert isinstance(caught.value.__cause__, httpx2.ConnectError)
