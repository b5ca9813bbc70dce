# pyright: reportUnnecessaryTypeIgnoreComment=true
"""The OpenAI adapters against agentcore's protocols, statically and at run time.

mypy and basedpyright check every ``_name: Protocol = client`` line. Lines that
must be *rejected* carry ``# type: ignore[assignment]``: if the rejection ever
stops, both checkers flag the comment as unused (mypy's ``warn_unused_ignores``,
basedpyright's setting above). pytest runs the same module for ``isinstance``.
"""

from __future__ import annotations

from typing import Any

import pytest
from agentcore_openai import (
    OpenAIChatClient,
    OpenAIChatOptions,
    OpenAIEmbeddingClient,
    OpenAIEmbeddingOptions,
    OpenAIResponsesClient,
    OpenAIResponsesOptions,
)
from typing_extensions import assert_type

from agentcore import (
    ChatResponse,
    ChatResponseUpdate,
    CodeInterpreterTool,
    FileSearchTool,
    GeneratedEmbeddings,
    ImageGenerationTool,
    MCPTool,
    Message,
    ResponseStream,
    ShellTool,
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

BASE_URL = "http://127.0.0.1:9/v1"
chat = OpenAIChatClient("gpt-typing", api_key="sk-test", base_url=BASE_URL)
responses = OpenAIResponsesClient("gpt-typing", api_key="sk-test", base_url=BASE_URL)
embedder = OpenAIEmbeddingClient("text-embedding-typing", api_key="sk-test", base_url=BASE_URL)

_chat: SupportsGetResponse = chat
_chat_typed: SupportsGetResponse[OpenAIChatOptions[Any]] = chat
_chat_no_web: SupportsWebSearchTool = chat  # type: ignore[assignment]  # must be rejected: the checker proves it
_chat_no_code: SupportsCodeInterpreterTool = chat  # type: ignore[assignment]  # must be rejected: the checker proves it
_chat_no_files: SupportsFileSearchTool = chat  # type: ignore[assignment]  # must be rejected: the checker proves it
_chat_no_images: SupportsImageGenerationTool = chat  # type: ignore[assignment]  # must be rejected: the checker proves it
_chat_no_mcp: SupportsMCPTool = chat  # type: ignore[assignment]  # must be rejected: the checker proves it
_chat_no_shell: SupportsShellTool = chat  # type: ignore[assignment]  # must be rejected: the checker proves it
_chat_no_count: SupportsCountTokens = chat  # type: ignore[assignment]  # must be rejected: the checker proves it

_responses: SupportsGetResponse = responses
_responses_typed: SupportsGetResponse[OpenAIResponsesOptions[Any]] = responses
_web: SupportsWebSearchTool = responses
_files: SupportsFileSearchTool = responses
_code: SupportsCodeInterpreterTool = responses
_images: SupportsImageGenerationTool = responses
_mcp: SupportsMCPTool = responses
_shell: SupportsShellTool = responses
_count: SupportsCountTokens = responses

_embeddings: SupportsGetEmbeddings[str, list[float], OpenAIEmbeddingOptions] = embedder
_embeddings_default: SupportsGetEmbeddings[str, list[float], Any] = embedder


def test_calls_and_factories_have_precise_static_types() -> None:
    messages = [Message("user", "Hi")]
    chat_options: OpenAIChatOptions[Any] = {"instructions_role": "developer"}
    responses_options: OpenAIResponsesOptions[Any] = {"store": False}
    assert_type(
        chat.get_response(messages, options=chat_options, stream=True),
        ResponseStream[ChatResponseUpdate, ChatResponse[Any]],
    )
    assert_type(
        responses.get_response(messages, options=responses_options, stream=True),
        ResponseStream[ChatResponseUpdate, ChatResponse[Any]],
    )
    assert_type(OpenAIResponsesClient.get_web_search_tool(), WebSearchTool)
    assert_type(
        OpenAIResponsesClient.get_file_search_tool(vector_store_ids=["vs_1"]), FileSearchTool
    )
    assert_type(OpenAIResponsesClient.get_code_interpreter_tool(), CodeInterpreterTool)
    assert_type(OpenAIResponsesClient.get_image_generation_tool(), ImageGenerationTool)
    assert_type(OpenAIResponsesClient.get_mcp_tool(name="docs", url="https://mcp.example"), MCPTool)
    assert_type(OpenAIResponsesClient.get_shell_tool(), ShellTool)


@pytest.mark.anyio
async def test_embedding_results_have_precise_static_types(anyio_backend: str) -> None:
    result = await embedder.get_embeddings([])  # no values: answered without a request
    assert_type(result, GeneratedEmbeddings[list[float], OpenAIEmbeddingOptions])
    assert list(result) == []


RESPONSES_CLAIMS: list[type[Any]] = [
    SupportsGetResponse,
    SupportsWebSearchTool,
    SupportsFileSearchTool,
    SupportsCodeInterpreterTool,
    SupportsImageGenerationTool,
    SupportsMCPTool,
    SupportsShellTool,
    SupportsCountTokens,
]
CHAT_LACKS: list[type[Any]] = RESPONSES_CLAIMS[1:]


@pytest.mark.parametrize("protocol", RESPONSES_CLAIMS, ids=lambda p: p.__name__)
def test_the_responses_client_is_an_instance_of_what_it_claims(protocol: type[Any]) -> None:
    assert isinstance(responses, protocol)


def test_the_chat_client_is_a_chat_client() -> None:
    assert isinstance(chat, SupportsGetResponse)


@pytest.mark.parametrize("protocol", CHAT_LACKS, ids=lambda p: p.__name__)
def test_the_chat_client_claims_no_hosted_tools_and_no_token_count(protocol: type[Any]) -> None:
    assert not isinstance(chat, protocol)


def test_the_embedding_client_is_an_embedding_client_and_nothing_else() -> None:
    assert isinstance(embedder, SupportsGetEmbeddings)
    assert not isinstance(embedder, SupportsGetResponse)
