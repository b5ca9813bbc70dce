# pyright: reportUnnecessaryTypeIgnoreComment=true
"""AnthropicChatClient against agentcore's protocols, statically and at run time.

Each ``_name: Protocol = client`` line is checked by mypy and basedpyright. The
lines that must be *rejected* carry ``# type: ignore[assignment]``; both checkers
report that comment as unused if the error ever stops happening (mypy through
``warn_unused_ignores``, basedpyright through the setting above), so the comment
proves the rejection. pytest runs the same file to check ``isinstance``.
"""

from __future__ import annotations

from typing import Any

import pytest
from agentcore_anthropic import AnthropicChatClient, AnthropicChatOptions
from typing_extensions import assert_type

from agentcore import (
    ChatResponse,
    ChatResponseUpdate,
    CodeInterpreterTool,
    MCPTool,
    Message,
    ResponseStream,
    SupportsCodeInterpreterTool,
    SupportsCountTokens,
    SupportsFileSearchTool,
    SupportsGetResponse,
    SupportsImageGenerationTool,
    SupportsMCPTool,
    SupportsShellTool,
    SupportsWebSearchTool,
    WebSearchTool,
)

client = AnthropicChatClient(
    "claude-wire-test", api_key="sk-ant-test", base_url="http://127.0.0.1:9"
)

_chat: SupportsGetResponse = client
_chat_typed: SupportsGetResponse[AnthropicChatOptions[Any]] = client
_count: SupportsCountTokens = client
_web: SupportsWebSearchTool = client
_code: SupportsCodeInterpreterTool = client
_mcp: SupportsMCPTool = client

_no_images: SupportsImageGenerationTool = client  # type: ignore[assignment]  # must be rejected: the checker proves it
_no_files: SupportsFileSearchTool = client  # type: ignore[assignment]  # must be rejected: the checker proves it
_no_shell: SupportsShellTool = client  # type: ignore[assignment]  # must be rejected: the checker proves it


def test_factories_and_streams_have_precise_static_types() -> None:
    messages = [Message("user", "Hi")]
    options: AnthropicChatOptions[Any] = {"thinking": {"type": "enabled", "budget_tokens": 1024}}
    assert_type(
        client.get_response(messages, stream=True, options=options),
        ResponseStream[ChatResponseUpdate, ChatResponse[Any]],
    )
    assert_type(AnthropicChatClient.get_web_search_tool(max_uses=2), WebSearchTool)
    assert_type(AnthropicChatClient.get_code_interpreter_tool(), CodeInterpreterTool)
    assert_type(AnthropicChatClient.get_mcp_tool(name="kb", url="https://kb.example"), MCPTool)


CLAIMED: list[type[Any]] = [
    SupportsGetResponse,
    SupportsCountTokens,
    SupportsWebSearchTool,
    SupportsCodeInterpreterTool,
    SupportsMCPTool,
]
NOT_CLAIMED: list[type[Any]] = [
    SupportsImageGenerationTool,
    SupportsFileSearchTool,
    SupportsShellTool,
]


@pytest.mark.parametrize("protocol", CLAIMED, ids=lambda p: p.__name__)
def test_the_client_is_an_instance_of_what_it_claims(protocol: type[Any]) -> None:
    assert isinstance(client, protocol)


@pytest.mark.parametrize("protocol", NOT_CLAIMED, ids=lambda p: p.__name__)
def test_the_client_is_not_an_instance_of_what_the_service_lacks(protocol: type[Any]) -> None:
    assert not isinstance(client, protocol)
