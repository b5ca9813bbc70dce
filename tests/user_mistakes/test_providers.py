"""Mistakes with the provider adapters, checked at the wire against the local test
server (M04, M21, M26-M32): nothing leaves 127.0.0.1, and a refused request never
reaches the server."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import anthropic
import openai
import pytest
from agentcore_anthropic import AnthropicChatClient
from agentcore_openai import OpenAIChatClient, OpenAIResponsesClient

from agentcore import Agent, ImageGenerationTool, Message, WebSearchTool
from agentcore.errors import AuthenticationError, ModelNotFoundError
from tests.providers.anthropic.fixtures import MODEL as ANTHROPIC_MODEL
from tests.providers.anthropic.fixtures import TEXT as ANTHROPIC_TEXT
from tests.providers.anthropic.replies import sse_reply
from tests.providers.openai import wire_fixtures as fx
from tests.providers.openai.chat_fixtures import CHAT_TEXT, CHAT_TEXT_CHUNKS, chat_stream
from tests.providers.openai.conftest import QuickStopWireServer
from tests.providers.openai.responses_fixtures import RESP_TEXT, RESP_TEXT_EVENTS
from tests.providers.wire_server import Reply, WireServer

pytestmark = pytest.mark.anyio

HI = [Message("user", "hi")]


async def _ask(client: Any, options: Any, *, stream: bool) -> None:
    """One request in the given mode, read to its end."""
    if stream:
        async for _ in client.get_response(HI, options=options, stream=True):
            pass
    else:
        await client.get_response(HI, options=options)


async def _run(agent: Agent, options: Any, *, stream: bool) -> None:
    if stream:
        async for _ in agent.run("hi", stream=True, options=options):
            pass
    else:
        await agent.run("hi", options=options)


MISSPELLED: Any = {"temprature": 0.2}


@pytest.fixture
def server() -> Iterator[WireServer]:
    with QuickStopWireServer() as running:
        yield running


def _openai_reply(kind: str, stream: bool) -> tuple[str, Reply]:
    if kind == "chat":
        reply = Reply(sse=chat_stream(CHAT_TEXT_CHUNKS)) if stream else Reply(json_body=CHAT_TEXT)
        return "/v1/chat/completions", reply
    return "/v1/responses", Reply(sse=RESP_TEXT_EVENTS) if stream else Reply(json_body=RESP_TEXT)


def _anthropic_reply(stream: bool) -> Reply:
    return sse_reply(ANTHROPIC_TEXT) if stream else Reply(json_body=ANTHROPIC_TEXT)


def _openai(server: WireServer, kind: str) -> OpenAIChatClient | OpenAIResponsesClient:
    cls = OpenAIChatClient if kind == "chat" else OpenAIResponsesClient
    return cls("gpt-test", api_key="sk-test", base_url=f"{server.base_url}/v1")


@pytest.mark.parametrize("sync", [openai.OpenAI, anthropic.Anthropic], ids=["openai", "anthropic"])
def test_m04_a_sync_sdk_client_is_refused_at_construction(sync: type[Any]) -> None:
    given: Any = sync(api_key="sk-test", base_url="http://127.0.0.1:9")
    adapter = OpenAIChatClient if sync is openai.OpenAI else AnthropicChatClient
    name = "openai.AsyncOpenAI" if sync is openai.OpenAI else "anthropic.AsyncAnthropic"
    try:
        with pytest.raises(
            TypeError,
            match=rf"{adapter.__name__} needs an async SDK client, got the synchronous "
            rf".*{sync.__name__}; pass {name}\(\.\.\.\) instead",
        ):
            adapter("model", client=given)
    finally:
        given.close()


def test_m04_the_responses_adapter_refuses_it_too() -> None:
    given: Any = openai.OpenAI(api_key="sk-test", base_url="http://127.0.0.1:9")
    try:
        with pytest.raises(TypeError, match=r"OpenAIResponsesClient needs an async SDK client"):
            OpenAIResponsesClient("gpt-test", client=given)
    finally:
        given.close()


@pytest.mark.parametrize("kind", ["chat", "responses"])
async def test_m21_a_misspelled_option_warns_naming_the_key_and_the_nearest(
    server: WireServer, kind: str, stream: bool, anyio_backend: str
) -> None:
    # A warning, not an error: one options dict may serve several adapters (a fallback
    # chain), each reading its own keys. The key is not sent.
    path, reply = _openai_reply(kind, stream)
    server.add("POST", path, reply)
    client = _openai(server, kind)
    options_type = "OpenAIChatOptions" if kind == "chat" else "OpenAIResponsesOptions"
    try:
        with pytest.warns(
            UserWarning,
            match=rf"{type(client).__name__} does not know the option 'temprature' \(did you "
            rf"mean 'temperature'\?\) and does not send it: its options are the keys of "
            rf"{options_type}; send a service field the adapter does not know in "
            r"extra_body=\{\.\.\.\}",
        ):
            await _run(Agent(client), MISSPELLED, stream=stream)
    finally:
        await client.aclose()
    (sent,) = server.requests
    assert "temprature" not in sent.json
    assert "temperature" not in sent.json


async def test_m21_the_anthropic_adapter_warns_too(
    server: WireServer, stream: bool, anyio_backend: str
) -> None:
    server.add("POST", "/v1/messages", _anthropic_reply(stream))
    client = AnthropicChatClient(ANTHROPIC_MODEL, api_key="sk-test", base_url=server.base_url)
    try:
        with pytest.warns(
            UserWarning,
            match=r"AnthropicChatClient does not know the option 'temprature' \(did you mean "
            r"'temperature'\?\) and does not send it: its options are the keys of "
            r"AnthropicChatOptions",
        ):
            await _ask(client, MISSPELLED, stream=stream)
    finally:
        await client.aclose()
    (sent,) = server.requests
    assert "temprature" not in sent.json


async def test_m21_a_known_option_and_extra_body_still_reach_the_wire(
    server: WireServer, anyio_backend: str
) -> None:
    server.add("POST", "/v1/chat/completions", Reply(json_body=CHAT_TEXT))
    client = _openai(server, "chat")
    options: Any = {"temperature": 0.2, "extra_body": {"top_k": 3}}
    try:
        await client.get_response(HI, options=options)
    finally:
        await client.aclose()
    (sent,) = server.requests
    assert (sent.json["temperature"], sent.json["top_k"]) == (0.2, 3)


def _import_without(package: str, module: str) -> str:
    code = f"import sys; sys.modules[{package!r}] = None; import {module}"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=120
    )
    assert done.returncode != 0
    return done.stderr


@pytest.mark.parametrize(
    ("package", "module", "extra"),
    [("openai", "agentcore_openai", "openai"), ("anthropic", "agentcore_anthropic", "anthropic")],
)
def test_m26_a_missing_extra_names_the_real_distribution(
    package: str, module: str, extra: str
) -> None:
    stderr = _import_without(package, module)
    assert "ImportError" in stderr
    assert f"pip install 'agentcore-framework[{extra}]'" in stderr


async def test_m27_a_wrong_api_key_is_an_authentication_error_with_the_services_words(
    server: WireServer, anyio_backend: str
) -> None:
    server.add("POST", "/v1/chat/completions", Reply(status=401, json_body=fx.ERROR_401))
    client = _openai(server, "chat")
    try:
        with pytest.raises(AuthenticationError, match=r"401.*Incorrect API key") as caught:
            await client.get_response(HI)
    finally:
        await client.aclose()
    assert isinstance(caught.value.__cause__, openai.AuthenticationError)


def test_m28_no_api_key_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(
        AuthenticationError,
        match=r"no OpenAI API key: pass api_key=\.\.\. or set the OPENAI_API_KEY",
    ):
        OpenAIChatClient("gpt-test")


async def test_m29_an_unknown_model_is_a_model_not_found_error(
    server: WireServer, anyio_backend: str
) -> None:
    server.add("POST", "/v1/chat/completions", Reply(status=404, json_body=fx.ERROR_404))
    client = _openai(server, "chat")
    try:
        with pytest.raises(ModelNotFoundError, match=r"404.*gpt-nope.*does not exist"):
            await client.get_response(HI)
    finally:
        await client.aclose()


async def test_m30_a_hosted_tool_on_chat_completions_is_refused_before_io(
    server: WireServer, anyio_backend: str
) -> None:
    client = _openai(server, "chat")
    try:
        with pytest.raises(
            ValueError,
            match=r"OpenAIChatClient cannot send the hosted 'web_search' tool.*use "
            r"OpenAIResponsesClient",
        ):
            await client.get_response(HI, options={"tools": [WebSearchTool()]})
    finally:
        await client.aclose()
    assert server.requests == []


async def test_m32_an_openai_hosted_tool_sent_to_anthropic_is_refused_before_io(
    server: WireServer, anyio_backend: str
) -> None:
    server.add("POST", "/v1/messages", Reply(json_body=ANTHROPIC_TEXT))
    client = AnthropicChatClient(ANTHROPIC_MODEL, api_key="sk-test", base_url=server.base_url)
    try:
        with pytest.raises(
            ValueError,
            match=r"AnthropicChatClient cannot send a ImageGenerationTool: the Anthropic "
            r"Messages API has no such hosted tool",
        ):
            await client.get_response(HI, options={"tools": [ImageGenerationTool()]})
    finally:
        await client.aclose()
    assert server.requests == []
