"""HTTP and transport failures mapped onto agentcore.errors, with the SDK error chained."""

from __future__ import annotations

from typing import Any

import anyio
import anyio.abc
import openai
import pytest
from agentcore_openai import OpenAIChatClient, OpenAIEmbeddingClient, OpenAIResponsesClient

from agentcore import ChatResponse
from agentcore.errors import (
    AuthenticationError,
    ChatClientError,
    ContentFilteredError,
    ContextLengthExceededError,
    InvalidRequestError,
    ModelNotFoundError,
    RateLimitedError,
    TransientError,
)
from tests.providers.openai import responses_fixtures as resp_fx
from tests.providers.openai import wire_fixtures as fx
from tests.providers.openai.conftest import QuickStopWireServer
from tests.providers.openai.exchange import USER
from tests.providers.wire_server import Reply, WireServer, sse_body

pytestmark = pytest.mark.anyio

CHAT = "/v1/chat/completions"
RESPONSES = "/v1/responses"


async def _ask(client: OpenAIChatClient, stream: bool) -> ChatResponse[Any]:
    if stream:
        return await client.get_response(USER, stream=True)
    return await client.get_response(USER)


CASES = [
    pytest.param(401, fx.ERROR_401, {}, AuthenticationError, openai.AuthenticationError, id="401"),
    pytest.param(
        403, fx.ERROR_401, {}, AuthenticationError, openai.PermissionDeniedError, id="403"
    ),
    pytest.param(404, fx.ERROR_404, {}, ModelNotFoundError, openai.NotFoundError, id="404"),
    pytest.param(429, fx.ERROR_429, {}, RateLimitedError, openai.RateLimitError, id="429"),
    pytest.param(
        400, fx.ERROR_CONTEXT, {}, ContextLengthExceededError, openai.BadRequestError, id="context"
    ),
    pytest.param(
        400, fx.ERROR_CONTENT_FILTER, {}, ContentFilteredError, openai.BadRequestError, id="filter"
    ),
    pytest.param(
        400, fx.ERROR_CONTENT_POLICY, {}, ContentFilteredError, openai.BadRequestError, id="policy"
    ),
    pytest.param(
        400, fx.ERROR_BAD_REQUEST, {}, InvalidRequestError, openai.BadRequestError, id="400"
    ),
    pytest.param(
        422,
        fx.ERROR_BAD_REQUEST,
        {},
        InvalidRequestError,
        openai.UnprocessableEntityError,
        id="422",
    ),
    pytest.param(500, fx.ERROR_500, {}, TransientError, openai.InternalServerError, id="500"),
    pytest.param(503, fx.ERROR_500, {}, TransientError, openai.InternalServerError, id="503"),
    pytest.param(529, fx.ERROR_500, {}, TransientError, openai.InternalServerError, id="529"),
]


@pytest.mark.parametrize(("status", "body", "headers", "expected", "sdk_error"), CASES)
@pytest.mark.parametrize("stream", [False, True])
async def test_chat_http_errors_are_mapped_and_chained(
    chat: OpenAIChatClient,
    server: WireServer,
    status: int,
    body: Any,
    headers: dict[str, str],
    expected: type[ChatClientError],
    sdk_error: type[openai.APIStatusError],
    stream: bool,
) -> None:
    server.add("POST", CHAT, Reply(status=status, json_body=body, headers=headers))
    with pytest.raises(expected) as caught:
        await _ask(chat, stream)
    error = caught.value
    assert type(error) is expected
    assert (error.status_code, error.provider) == (status, "openai")
    assert type(error.__cause__) is sdk_error
    assert body["error"]["message"] in error.message


@pytest.mark.parametrize(("status", "body", "headers", "expected", "sdk_error"), CASES[:4])
async def test_responses_http_errors_are_mapped(
    responses: OpenAIResponsesClient,
    server: WireServer,
    status: int,
    body: Any,
    headers: dict[str, str],
    expected: type[ChatClientError],
    sdk_error: type[openai.APIStatusError],
) -> None:
    server.add("POST", RESPONSES, Reply(status=status, json_body=body, headers=headers))
    with pytest.raises(expected) as caught:
        await responses.get_response(USER)
    assert type(caught.value.__cause__) is sdk_error


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"retry-after-ms": "1500"}, 1.5),
        ({"retry-after": "7"}, 7.0),
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
        ({}, None),
    ],
)
async def test_rate_limit_error_carries_retry_after_seconds(
    chat: OpenAIChatClient, server: WireServer, headers: dict[str, str], seconds: float | None
) -> None:
    server.add("POST", CHAT, Reply(status=429, json_body=fx.ERROR_429, headers=headers))
    with pytest.raises(RateLimitedError) as caught:
        await chat.get_response(USER)
    assert caught.value.retry_after == seconds
    assert caught.value.retryable


async def test_exhausted_quota_is_a_rate_limit_that_is_not_retryable(
    chat: OpenAIChatClient, server: WireServer
) -> None:
    server.add("POST", CHAT, Reply(status=429, json_body=fx.ERROR_QUOTA))
    with pytest.raises(RateLimitedError) as caught:
        await chat.get_response(USER)
    assert not caught.value.retryable


async def test_a_404_for_something_other_than_the_model_is_an_invalid_request(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    body = fx.error_body(
        "Previous response with id 'resp_x' not found.", "previous_response_not_found"
    )
    server.add("POST", RESPONSES, Reply(status=404, json_body=body))
    with pytest.raises(InvalidRequestError):
        await responses.get_response(USER, options={"conversation_id": "resp_x"})


async def test_embedding_errors_are_mapped(
    embedder: OpenAIEmbeddingClient, server: WireServer
) -> None:
    server.add("POST", "/v1/embeddings", Reply(status=401, json_body=fx.ERROR_401))
    with pytest.raises(AuthenticationError):
        await embedder.get_embeddings(["hello"])


@pytest.mark.parametrize("stream", [False, True])
async def test_a_refused_connection_is_transient(anyio_backend: str, stream: bool) -> None:
    with QuickStopWireServer() as stopped:
        base_url = f"{stopped.base_url}/v1"
    # The server is gone and its port closed: connections are refused.
    client = OpenAIChatClient("gpt-test", api_key="sk-test", base_url=base_url)
    with pytest.raises(TransientError) as caught:
        await _ask(client, stream)
    assert isinstance(caught.value.__cause__, openai.APIConnectionError)
    assert caught.value.retryable
    await client.aclose()


def _cut_stream_handler(first_event: bytes) -> Any:
    async def handle(connection: anyio.abc.SocketStream) -> None:
        """Answer with the start of an SSE body, then drop the connection."""
        async with connection:
            request = b""
            while b"\r\n\r\n" not in request:
                request += await connection.receive()
            head = (
                b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                b"Transfer-Encoding: chunked\r\n\r\n"
            )
            chunk = f"{len(first_event):x}\r\n".encode() + first_event + b"\r\n"
            await connection.send(head + chunk)

    return handle


async def test_a_body_cut_mid_stream_is_transient(anyio_backend: str) -> None:
    first = sse_body(resp_fx.RESP_TEXT_EVENTS[:1])
    listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
    port = listener.extra(anyio.abc.SocketAttribute.local_port)
    client = OpenAIResponsesClient(
        "gpt-test", api_key="sk-test", base_url=f"http://127.0.0.1:{port}/v1"
    )
    async with anyio.create_task_group() as group:
        group.start_soon(listener.serve, _cut_stream_handler(first))
        with pytest.raises(TransientError, match="broke off"):
            await client.get_response(USER, stream=True)
        group.cancel_scope.cancel()
    await listener.aclose()
    await client.aclose()


async def test_an_overloaded_server_error_carries_retry_after_too(
    chat: OpenAIChatClient, server: WireServer
) -> None:
    headers = {"Retry-After": "3"}
    server.add("POST", CHAT, Reply(status=503, json_body=fx.ERROR_500, headers=headers))
    with pytest.raises(TransientError) as caught:
        await chat.get_response(USER)
    assert caught.value.retry_after == 3.0
