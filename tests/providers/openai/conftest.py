"""Fixtures: a wire server per test and adapters pointed at it through the real SDK."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Iterator

import pytest
from agentcore_openai import OpenAIChatClient, OpenAIEmbeddingClient, OpenAIResponsesClient

from tests.providers.wire_server import WireServer


class QuickStopWireServer(WireServer):
    """A :class:`WireServer` whose ``stop`` takes milliseconds, not half a second.

    ``serve_forever`` checks for shutdown every ``poll_interval`` (0.5 s by
    default), which every test would pay at teardown.
    """

    def start(self) -> QuickStopWireServer:
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )
        self._thread.start()
        return self


@pytest.fixture
def server() -> Iterator[WireServer]:
    with QuickStopWireServer() as running:
        yield running


@pytest.fixture
async def chat(server: WireServer, anyio_backend: str) -> AsyncIterator[OpenAIChatClient]:
    client = OpenAIChatClient("gpt-test", api_key="sk-test", base_url=f"{server.base_url}/v1")
    yield client
    await client.aclose()


@pytest.fixture
async def responses(server: WireServer, anyio_backend: str) -> AsyncIterator[OpenAIResponsesClient]:
    client = OpenAIResponsesClient("gpt-test", api_key="sk-test", base_url=f"{server.base_url}/v1")
    yield client
    await client.aclose()


@pytest.fixture
async def embedder(server: WireServer, anyio_backend: str) -> AsyncIterator[OpenAIEmbeddingClient]:
    client = OpenAIEmbeddingClient(
        "text-embedding-test", api_key="sk-test", base_url=f"{server.base_url}/v1"
    )
    yield client
    await client.aclose()
