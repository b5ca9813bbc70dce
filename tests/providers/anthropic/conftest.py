"""A wire server per test and an AnthropicChatClient pointed at it with the real SDK."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from agentcore_anthropic import AnthropicChatClient

from tests.providers.anthropic.fixtures import MODEL
from tests.providers.anthropic.replies import QuickWireServer
from tests.providers.wire_server import WireServer


@pytest.fixture
def server() -> Iterator[WireServer]:
    wire = QuickWireServer().start()
    yield wire
    wire.stop()


@pytest.fixture
async def client(server: WireServer, anyio_backend: str) -> AsyncIterator[AnthropicChatClient]:
    adapter = AnthropicChatClient(MODEL, api_key="sk-ant-test", base_url=server.base_url)
    yield adapter
    await adapter.client.close()
