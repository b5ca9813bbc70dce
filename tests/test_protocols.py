"""Protocols answer ``isinstance`` truthfully, and ``import agentcore`` stays light."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Awaitable, Sequence
from typing import Any

import pytest

from agentcore import (
    AgentResponse,
    AgentSession,
    ChatResponse,
    CodeInterpreterTool,
    ContextProvider,
    FileSearchTool,
    GeneratedEmbeddings,
    HistoryStore,
    ImageGenerationTool,
    MCPTool,
    Message,
    ShellTool,
    SupportsAgentRun,
    SupportsCodeInterpreterTool,
    SupportsCountTokens,
    SupportsFileSearchTool,
    SupportsGetEmbeddings,
    SupportsGetResponse,
    SupportsImageGenerationTool,
    SupportsMCPTool,
    SupportsShellTool,
    SupportsWebSearchTool,
    WebSearchTool,
)
from agentcore.testing import FunctionChatClient, ScriptedChatClient


class Nothing:
    """Has none of the members any protocol asks for."""


# -- chat and embeddings ----------------------------------------------------------------------


class ChatClient:
    def get_response(
        self, messages: Sequence[Message], *, options: Any = None, stream: bool = False
    ) -> Any:
        return ChatResponse()


class EmbeddingClient:
    def __init__(self) -> None:
        self.additional_properties: dict[str, Any] = {}

    async def get_embeddings(
        self, values: Sequence[str], *, options: Any = None
    ) -> GeneratedEmbeddings[list[float], Any]:
        return GeneratedEmbeddings()


class EmbeddingClientWithoutProperties:
    async def get_embeddings(
        self, values: Sequence[str], *, options: Any = None
    ) -> GeneratedEmbeddings[list[float], Any]:
        return GeneratedEmbeddings()


def test_object_with_get_response_supports_get_response() -> None:
    assert isinstance(ChatClient(), SupportsGetResponse)


def test_object_without_get_response_does_not_support_it() -> None:
    assert not isinstance(Nothing(), SupportsGetResponse)


@pytest.mark.parametrize(
    "client", [ScriptedChatClient([]), FunctionChatClient(lambda messages, options: "ok")]
)
def test_test_doubles_support_get_response(client: object) -> None:
    assert isinstance(client, SupportsGetResponse)


def test_embedding_client_supports_get_embeddings() -> None:
    assert isinstance(EmbeddingClient(), SupportsGetEmbeddings)


def test_embedding_client_needs_additional_properties() -> None:
    assert not isinstance(EmbeddingClientWithoutProperties(), SupportsGetEmbeddings)


def test_chat_client_does_not_support_get_embeddings() -> None:
    assert not isinstance(ChatClient(), SupportsGetEmbeddings)


class TokenCounter:
    async def count_tokens(self, messages: Sequence[Message], *, options: Any = None) -> int:
        return len(messages)


def test_object_with_count_tokens_supports_count_tokens() -> None:
    assert isinstance(TokenCounter(), SupportsCountTokens)


def test_chat_client_without_count_tokens_does_not_support_it() -> None:
    assert not isinstance(ChatClient(), SupportsCountTokens)


# -- hosted tool capabilities -----------------------------------------------------------------

TOOL_CAPABILITIES: list[tuple[type[Any], str, type[Any]]] = [
    (SupportsCodeInterpreterTool, "get_code_interpreter_tool", CodeInterpreterTool),
    (SupportsWebSearchTool, "get_web_search_tool", WebSearchTool),
    (SupportsImageGenerationTool, "get_image_generation_tool", ImageGenerationTool),
    (SupportsMCPTool, "get_mcp_tool", MCPTool),
    (SupportsFileSearchTool, "get_file_search_tool", FileSearchTool),
    (SupportsShellTool, "get_shell_tool", ShellTool),
]


def _client_with_factory(method: str, tool_type: type[Any]) -> object:
    def factory(**kwargs: Any) -> Any:
        return tool_type

    return type("Client", (ChatClient,), {method: staticmethod(factory)})()


@pytest.mark.parametrize(("protocol", "method", "tool_type"), TOOL_CAPABILITIES)
def test_client_with_the_factory_has_the_capability(
    protocol: type[Any], method: str, tool_type: type[Any]
) -> None:
    assert isinstance(_client_with_factory(method, tool_type), protocol)


@pytest.mark.parametrize(("protocol", "method", "tool_type"), TOOL_CAPABILITIES)
def test_client_without_the_factory_lacks_the_capability(
    protocol: type[Any], method: str, tool_type: type[Any]
) -> None:
    assert not isinstance(ChatClient(), protocol)


@pytest.mark.parametrize(("protocol", "method", "tool_type"), TOOL_CAPABILITIES)
def test_capabilities_are_separate_questions(
    protocol: type[Any], method: str, tool_type: type[Any]
) -> None:
    others = [p for p, m, _ in TOOL_CAPABILITIES if m != method]
    client = _client_with_factory(method, tool_type)

    assert [p for p in others if isinstance(client, p)] == []


# -- agents, history, context -----------------------------------------------------------------


class Agent:
    name: str | None = "helper"
    description: str | None = "helps"

    def run(
        self, messages: Any = None, *, session: AgentSession | None = None, stream: bool = False
    ) -> Awaitable[AgentResponse[Any]]:
        raise NotImplementedError("only its shape is checked")

    def create_session(self) -> AgentSession:
        return AgentSession()


class AgentWithoutSessions:
    name: str | None = "helper"
    description: str | None = None

    def run(self, messages: Any = None) -> Any:
        raise NotImplementedError("only its shape is checked")


def test_object_with_run_and_sessions_is_an_agent() -> None:
    assert isinstance(Agent(), SupportsAgentRun)


def test_object_without_create_session_is_not_an_agent() -> None:
    assert not isinstance(AgentWithoutSessions(), SupportsAgentRun)


class Store:
    async def load(self, session_id: str) -> list[Message]:
        return []

    async def append(self, session_id: str, messages: Sequence[Message]) -> None:
        return None


class ReadOnlyStore:
    async def load(self, session_id: str) -> list[Message]:
        return []


def test_object_with_load_and_append_is_a_history_store() -> None:
    assert isinstance(Store(), HistoryStore)


def test_object_without_append_is_not_a_history_store() -> None:
    assert not isinstance(ReadOnlyStore(), HistoryStore)


class Provider:
    async def before_run(self, context: Any) -> None:
        return None

    async def after_run(self, context: Any) -> None:
        return None


class BeforeOnly:
    async def before_run(self, context: Any) -> None:
        return None


def test_object_with_before_and_after_run_is_a_context_provider() -> None:
    assert isinstance(Provider(), ContextProvider)


def test_object_without_after_run_is_not_a_context_provider() -> None:
    assert not isinstance(BeforeOnly(), ContextProvider)


# -- import cost ------------------------------------------------------------------------------

HEAVY_OR_OPTIONAL = [
    "asyncio",
    "trio",
    "openai",
    "anthropic",
    "httpx",
    "httpx2",
    "pydantic",
    "opentelemetry",
    "cattrs.preconf",
    "cattrs.strategies",
    "orjson",
    "msgspec",
    "agentcore.serialization",
    "agentcore.testing",
    "mcp",
    "dbos",
    "psycopg",
    "starlette",
    "sqlalchemy",
    "agentcore_openai",
    "agentcore_anthropic",
    "agentcore_contrib",
    "agentcore_mcp",
    "agentcore_dbos",
    "agentcore_postgres",
]


def test_import_agentcore_loads_no_event_loop_sdk_or_optional_package() -> None:
    script = (
        "import json, sys\n"
        "import agentcore\n"
        f"heavy = {HEAVY_OR_OPTIONAL!r}\n"
        "print(json.dumps(sorted(\n"
        "    m for m in sys.modules if any(m == h or m.startswith(h + '.') for h in heavy)\n"
        ")))\n"
    )

    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )

    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == []
