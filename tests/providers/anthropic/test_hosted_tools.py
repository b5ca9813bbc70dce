"""Server tools (web search, code execution) and the MCP connector: sent and parsed back."""

from __future__ import annotations

from typing import Any

import pytest
from agentcore_anthropic import AnthropicChatClient, AnthropicChatOptions

from agentcore import (
    CodeInterpreterTool,
    FileSearchTool,
    HostedToolCallContent,
    HostedToolResultContent,
    ImageGenerationTool,
    MCPTool,
    Message,
    ShellTool,
    WebSearchTool,
)
from tests.providers.anthropic.fixtures import CODE_EXECUTION, MCP, TEXT, WEB_SEARCH
from tests.providers.anthropic.replies import MESSAGES, json_reply, sent
from tests.providers.wire_server import WireServer

pytestmark = pytest.mark.anyio

HI = [Message("user", "Hi")]


async def _send_tools(
    client: AnthropicChatClient, server: WireServer, *tools: Any
) -> dict[str, Any]:
    server.add("POST", MESSAGES, json_reply(TEXT))
    options: AnthropicChatOptions[Any] = {"tools": list(tools)}
    await client.get_response(HI, options=options)
    return sent(server)


def test_web_search_factory_returns_the_kernel_value_with_wire_options() -> None:
    tool = AnthropicChatClient.get_web_search_tool(max_uses=3, allowed_domains=["example.com"])
    assert tool == WebSearchTool(
        options={"type": "web_search_20250305", "max_uses": 3, "allowed_domains": ["example.com"]}
    )


async def test_web_search_tool_is_sent_as_a_server_tool(
    client: AnthropicChatClient, server: WireServer
) -> None:
    tool = AnthropicChatClient.get_web_search_tool(
        max_uses=2, user_location={"type": "approximate", "city": "Paris"}
    )
    body = await _send_tools(client, server, tool)
    assert body["tools"] == [
        {
            "type": "web_search_20250305",
            "name": "web_search",
            "max_uses": 2,
            "user_location": {"type": "approximate", "city": "Paris"},
        }
    ]


async def test_web_search_version_can_be_chosen(
    client: AnthropicChatClient, server: WireServer
) -> None:
    tool = AnthropicChatClient.get_web_search_tool(version="web_search_20260209")
    body = await _send_tools(client, server, tool)
    assert body["tools"] == [{"type": "web_search_20260209", "name": "web_search"}]


async def test_a_bare_kernel_web_search_tool_gets_the_default_version(
    client: AnthropicChatClient, server: WireServer
) -> None:
    body = await _send_tools(client, server, WebSearchTool())
    assert body["tools"] == [{"type": "web_search_20250305", "name": "web_search"}]


async def test_code_interpreter_tool_is_sent_as_code_execution_without_beta_header(
    client: AnthropicChatClient, server: WireServer
) -> None:
    tool = AnthropicChatClient.get_code_interpreter_tool()
    assert isinstance(tool, CodeInterpreterTool)
    body = await _send_tools(client, server, tool)
    assert body["tools"] == [{"type": "code_execution_20250825", "name": "code_execution"}]
    assert "anthropic-beta" not in server.requests[-1].headers


async def test_mcp_tool_sends_the_server_its_toolset_and_the_beta_header(
    client: AnthropicChatClient, server: WireServer
) -> None:
    tool = AnthropicChatClient.get_mcp_tool(
        name="docs", url="https://mcp.example.com/sse", authorization_token="tok-123"
    )
    body = await _send_tools(client, server, tool)
    assert body["mcp_servers"] == [
        {
            "type": "url",
            "url": "https://mcp.example.com/sse",
            "name": "docs",
            "authorization_token": "tok-123",
        }
    ]
    assert body["tools"] == [{"type": "mcp_toolset", "mcp_server_name": "docs"}]
    assert server.requests[-1].headers["anthropic-beta"] == "mcp-client-2025-11-20"


async def test_mcp_allowed_tools_become_an_allowlist(
    client: AnthropicChatClient, server: WireServer
) -> None:
    tool = AnthropicChatClient.get_mcp_tool(
        name="cal", url="https://cal.example.com/mcp", allowed_tools=["search", "create"]
    )
    body = await _send_tools(client, server, tool)
    assert body["tools"] == [
        {
            "type": "mcp_toolset",
            "mcp_server_name": "cal",
            "default_config": {"enabled": False},
            "configs": {"search": {"enabled": True}, "create": {"enabled": True}},
        }
    ]


async def test_mcp_bearer_header_becomes_the_authorization_token(
    client: AnthropicChatClient, server: WireServer
) -> None:
    tool = MCPTool(
        name="kb", url="https://kb.example.com/mcp", headers={"Authorization": "Bearer abc"}
    )
    body = await _send_tools(client, server, tool)
    assert body["mcp_servers"][0]["authorization_token"] == "abc"


async def test_mcp_beta_header_joins_the_users_betas(
    client: AnthropicChatClient, server: WireServer
) -> None:
    server.add("POST", MESSAGES, json_reply(TEXT))
    tool = AnthropicChatClient.get_mcp_tool(name="kb", url="https://kb.example.com/mcp")
    options: AnthropicChatOptions[Any] = {"tools": [tool], "betas": ["context-1m-2025-08-07"]}
    await client.get_response(HI, options=options)
    assert (
        server.requests[-1].headers["anthropic-beta"]
        == "context-1m-2025-08-07,mcp-client-2025-11-20"
    )


@pytest.mark.parametrize(
    ("tool", "message"),
    [
        (
            MCPTool(name="kb", url="https://kb.example.com", approval_mode="always_require"),
            "always_require",
        ),
        (MCPTool(name="kb", url="https://kb.example.com", headers={"X-Key": "1"}), "X-Key"),
        (FileSearchTool(vector_store_ids=["vs_1"]), "FileSearchTool"),
        (ImageGenerationTool(), "ImageGenerationTool"),
        (ShellTool(), "ShellTool"),
    ],
)
async def test_tools_the_service_cannot_run_raise_before_any_request(
    client: AnthropicChatClient, server: WireServer, tool: Any, message: str
) -> None:
    options: AnthropicChatOptions[Any] = {"tools": [tool]}
    with pytest.raises(ValueError, match=message):
        await client.get_response(HI, options=options)
    assert server.requests == []


def test_get_mcp_tool_requires_a_name_and_a_url() -> None:
    with pytest.raises(ValueError, match="name="):
        AnthropicChatClient.get_mcp_tool(url="https://kb.example.com")


async def test_web_search_call_and_result_come_back_as_hosted_contents(
    client: AnthropicChatClient, server: WireServer
) -> None:
    server.add("POST", MESSAGES, json_reply(WEB_SEARCH))
    response = await client.get_response(HI)
    call, result = response.messages[0].contents[:2]
    use_block, result_block = WEB_SEARCH["content"][:2]
    assert call == HostedToolCallContent(
        call_id=use_block["id"],
        tool_type="web_search",
        arguments=use_block["input"],
        provider="anthropic",
    )
    assert isinstance(call, HostedToolCallContent)
    assert call.raw == use_block
    assert result == HostedToolResultContent(
        call_id=use_block["id"],
        tool_type="web_search",
        result=result_block["content"],
        provider="anthropic",
    )
    assert isinstance(result, HostedToolResultContent)
    assert result.raw == result_block
    assert response.usage is not None
    assert response.usage.server_tool_calls == 1


async def test_code_execution_results_and_container_come_back(
    client: AnthropicChatClient, server: WireServer
) -> None:
    server.add("POST", MESSAGES, json_reply(CODE_EXECUTION))
    response = await client.get_response(HI)
    hosted = [
        c
        for c in response.messages[0].contents
        if isinstance(c, (HostedToolCallContent, HostedToolResultContent))
    ]
    assert [(c.type, c.tool_type) for c in hosted] == [
        ("hosted_tool_call", "bash_code_execution"),
        ("hosted_tool_result", "bash_code_execution"),
    ]
    assert response.additional_properties is not None
    assert response.additional_properties["container_id"] == CODE_EXECUTION["container"]["id"]


async def test_container_option_reuses_a_container(
    client: AnthropicChatClient, server: WireServer
) -> None:
    server.add("POST", MESSAGES, json_reply(TEXT))
    await client.get_response(HI, options={"container": "container_011CPR5CNjB747bTd36fQLFk"})
    assert sent(server)["container"] == "container_011CPR5CNjB747bTd36fQLFk"


async def test_mcp_call_and_result_come_back_as_hosted_mcp_contents(
    client: AnthropicChatClient, server: WireServer
) -> None:
    server.add("POST", MESSAGES, json_reply(MCP))
    response = await client.get_response(HI)
    call, result = response.messages[0].contents[:2]
    assert isinstance(call, HostedToolCallContent)
    assert isinstance(result, HostedToolResultContent)
    assert (call.tool_type, call.arguments) == ("mcp", MCP["content"][0]["input"])
    assert call.raw is not None
    assert call.raw["server_name"] == "example-mcp"
    assert (result.call_id, result.result) == (call.call_id, MCP["content"][1]["content"])


@pytest.mark.parametrize("fixture", [WEB_SEARCH, CODE_EXECUTION, MCP])
async def test_hosted_blocks_go_back_unchanged_on_the_next_request(
    client: AnthropicChatClient, server: WireServer, fixture: dict[str, Any]
) -> None:
    server.add("POST", MESSAGES, json_reply(fixture), json_reply(TEXT))
    first = await client.get_response(HI)
    await client.get_response([*HI, *first.messages, Message("user", "Thanks")])
    sent_blocks = sent(server)["messages"][1]["content"]
    hosted_types = {"server_tool_use", "mcp_tool_use"}
    expected = [
        b
        for b in fixture["content"]
        if b["type"] in hosted_types or b["type"].endswith("_tool_result")
    ]
    assert [b for b in sent_blocks if b["type"] != "text"] == expected


async def test_hosted_contents_of_another_provider_are_dropped(
    client: AnthropicChatClient, server: WireServer
) -> None:
    foreign = Message(
        "assistant",
        [
            HostedToolCallContent(
                "ws_1", "web_search", provider="openai", raw={"type": "web_search_call"}
            ),
            "Found it.",
        ],
    )
    server.add("POST", MESSAGES, json_reply(TEXT))
    await client.get_response([*HI, foreign])
    assert sent(server)["messages"][1]["content"] == [{"type": "text", "text": "Found it."}]
