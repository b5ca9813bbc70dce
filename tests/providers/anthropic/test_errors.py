"""HTTP and transport failures mapped onto agentcore's error taxonomy."""

from __future__ import annotations

import socket
from email.utils import formatdate
from pathlib import Path
from time import time

import anthropic
import httpx2
import pytest
from agentcore_anthropic import AnthropicChatClient
from agentcore_anthropic._errors import map_error

from agentcore import Message
from agentcore.errors import (
    AuthenticationError,
    ChatClientError,
    ContextLengthExceededError,
    InvalidRequestError,
    ModelNotFoundError,
    RateLimitedError,
    TransientError,
)
from tests.providers.anthropic.fixtures import MODEL, error_body
from tests.providers.anthropic.replies import MESSAGES, json_reply
from tests.providers.wire_server import WireServer

pytestmark = pytest.mark.anyio

HI = [Message("user", "Hi")]


async def _fail(
    client: AnthropicChatClient,
    server: WireServer,
    status: int,
    kind: str,
    text: str,
    headers: dict[str, str] | None = None,
) -> ChatClientError:
    server.add("POST", MESSAGES, json_reply(error_body(kind, text), status, headers=headers))
    with pytest.raises(ChatClientError) as caught:
        await client.get_response(HI)
    return caught.value


@pytest.mark.parametrize(
    ("status", "kind", "text", "expected", "sdk_error"),
    [
        (
            401,
            "authentication_error",
            "invalid x-api-key",
            AuthenticationError,
            anthropic.AuthenticationError,
        ),
        (
            403,
            "permission_error",
            "no access",
            AuthenticationError,
            anthropic.PermissionDeniedError,
        ),
        (404, "not_found_error", "model: claude-nope", ModelNotFoundError, anthropic.NotFoundError),
        (
            413,
            "request_too_large",
            "Request exceeds the maximum size",
            InvalidRequestError,
            anthropic.ContentTooLargeError,
        ),
        (
            400,
            "invalid_request_error",
            "messages: roles must alternate",
            InvalidRequestError,
            anthropic.BadRequestError,
        ),
        (
            400,
            "invalid_request_error",
            "prompt is too long: 208310 tokens > 200000 maximum",
            ContextLengthExceededError,
            anthropic.BadRequestError,
        ),
        (500, "api_error", "Internal server error", TransientError, anthropic.InternalServerError),
        (529, "overloaded_error", "Overloaded", TransientError, anthropic.OverloadedError),
    ],
)
async def test_status_errors_map_onto_the_taxonomy_with_the_sdk_error_chained(
    client: AnthropicChatClient,
    server: WireServer,
    status: int,
    kind: str,
    text: str,
    expected: type[ChatClientError],
    sdk_error: type[anthropic.APIStatusError],
) -> None:
    error = await _fail(client, server, status, kind, text)
    assert type(error) is expected
    assert (error.status_code, error.provider) == (status, "anthropic")
    assert isinstance(error.__cause__, sdk_error)
    assert text in error.message


async def test_rate_limit_carries_retry_after_seconds(
    client: AnthropicChatClient, server: WireServer
) -> None:
    error = await _fail(
        client,
        server,
        429,
        "rate_limit_error",
        "Number of requests exceeded",
        {"retry-after": "17"},
    )
    assert isinstance(error, RateLimitedError)
    assert error.retry_after == 17.0
    assert error.retryable
    assert isinstance(error.__cause__, anthropic.RateLimitError)


async def test_rate_limit_prefers_retry_after_ms(
    client: AnthropicChatClient, server: WireServer
) -> None:
    headers = {"retry-after-ms": "2500", "retry-after": "3"}
    error = await _fail(client, server, 429, "rate_limit_error", "slow down", headers)
    assert error.retry_after == 2.5


async def test_rate_limit_retry_after_may_be_an_http_date(
    client: AnthropicChatClient, server: WireServer
) -> None:
    headers = {"retry-after": formatdate(time() + 120, usegmt=True)}
    error = await _fail(client, server, 429, "rate_limit_error", "slow down", headers)
    assert error.retry_after is not None
    assert 100 < error.retry_after <= 121


async def test_rate_limit_without_retry_after_has_none(
    client: AnthropicChatClient, server: WireServer
) -> None:
    error = await _fail(client, server, 429, "rate_limit_error", "slow down")
    assert isinstance(error, RateLimitedError)
    assert error.retry_after is None


async def test_an_overloaded_answer_carries_retry_after_too(
    client: AnthropicChatClient, server: WireServer
) -> None:
    headers = {"retry-after": "4"}
    error = await _fail(client, server, 529, "overloaded_error", "Overloaded", headers)
    assert isinstance(error, TransientError)
    assert error.retry_after == 4.0


async def test_a_conflict_is_transient(client: AnthropicChatClient, server: WireServer) -> None:
    error = await _fail(client, server, 409, "api_error", "lock timeout, try again")
    assert type(error) is TransientError
    assert error.retryable


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


async def test_connection_refused_is_a_transient_error(anyio_backend: str) -> None:
    client = AnthropicChatClient(MODEL, api_key="k", base_url=f"http://127.0.0.1:{_closed_port()}")
    with pytest.raises(TransientError) as caught:
        await client.get_response(HI)
    await client.client.close()
    assert isinstance(caught.value.__cause__, anthropic.APIConnectionError)
    assert caught.value.provider == "anthropic"


async def test_connection_refused_while_streaming_is_a_transient_error(anyio_backend: str) -> None:
    client = AnthropicChatClient(MODEL, api_key="k", base_url=f"http://127.0.0.1:{_closed_port()}")
    with pytest.raises(TransientError):
        await client.get_response(HI, stream=True).get_final_response()
    await client.client.close()


_CREDENTIAL_VARIABLES = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_PROFILE",
    "ANTHROPIC_CONFIG_DIR",
    "ANTHROPIC_IDENTITY_TOKEN",
    "ANTHROPIC_IDENTITY_TOKEN_FILE",
    "ANTHROPIC_FEDERATION_RULE_ID",
    "ANTHROPIC_ORGANIZATION_ID",
)


@pytest.fixture
def no_credentials(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """An environment with no Anthropic credentials anywhere (HOME is empty)."""
    for name in _CREDENTIAL_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    return tmp_path


async def test_missing_api_key_is_an_authentication_error_naming_the_env_var(
    server: WireServer, no_credentials: Path, anyio_backend: str
) -> None:
    client = AnthropicChatClient(MODEL, base_url=server.base_url)
    with pytest.raises(AuthenticationError, match="ANTHROPIC_API_KEY"):
        await client.get_response(HI)
    await client.client.close()
    assert server.requests == []


def test_a_configured_credentials_dir_without_credentials_fails_at_construction(
    no_credentials: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_CONFIG_DIR", str(no_credentials))
    with pytest.raises(AuthenticationError, match="ANTHROPIC_API_KEY") as caught:
        AnthropicChatClient(MODEL)
    assert isinstance(caught.value.__cause__, anthropic.CredentialsError)


def test_a_transport_failure_mid_response_maps_to_a_transient_error() -> None:
    request = httpx2.Request("POST", "http://127.0.0.1/v1/messages")
    failure = httpx2.RemoteProtocolError("peer closed connection", request=request)
    mapped = map_error(failure)
    assert isinstance(mapped, TransientError)
    assert mapped.provider == "anthropic"


def test_unrelated_exceptions_are_not_mapped() -> None:
    failure = KeyError("content")
    assert map_error(failure) is failure
