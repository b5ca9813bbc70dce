"""``count_tokens``: the same system prompt and tools as a real request, via the SDK."""

from __future__ import annotations

from typing import Any

import pytest
from agentcore_anthropic import AnthropicChatClient, AnthropicChatOptions

from agentcore import Message
from agentcore.errors import RateLimitedError
from tests.providers.anthropic.fixtures import COUNT_TOKENS as COUNT_BODY
from tests.providers.anthropic.fixtures import MODEL, error_body, get_weather
from tests.providers.anthropic.replies import COUNT_TOKENS, json_reply, sent
from tests.providers.wire_server import WireServer

pytestmark = pytest.mark.anyio

MESSAGES = [Message("system", "Be brief."), Message("user", "Weather in Paris?")]


async def test_count_tokens_returns_the_services_input_token_count(
    client: AnthropicChatClient, server: WireServer
) -> None:
    server.add("POST", COUNT_TOKENS, json_reply(COUNT_BODY))
    assert await client.count_tokens(MESSAGES) == COUNT_BODY["input_tokens"]
    assert server.requests[-1].path.split("?")[0] == COUNT_TOKENS


async def test_count_tokens_sends_what_a_real_request_would(
    client: AnthropicChatClient, server: WireServer
) -> None:
    options: AnthropicChatOptions[Any] = {
        "instructions": "You are a weather bot.",
        "tools": [get_weather, AnthropicChatClient.get_web_search_tool()],
        "tool_choice": "required",
        "thinking": {"type": "enabled", "budget_tokens": 1024},
        "temperature": 0.5,
        "max_tokens": 100,
    }
    server.add("POST", COUNT_TOKENS, json_reply(COUNT_BODY))
    await client.count_tokens(MESSAGES, options=options)
    body = sent(server)
    assert body["model"] == MODEL
    assert body["system"] == "You are a weather bot.\n\nBe brief."
    assert [t["name"] for t in body["tools"]] == ["get_weather", "web_search"]
    assert body["tool_choice"] == {"type": "any"}
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 1024}
    assert body["messages"] == [{"role": "user", "content": "Weather in Paris?"}]
    # Sampling settings and max_tokens do not change the count and are not sent.
    assert "temperature" not in body
    assert "max_tokens" not in body


async def test_count_tokens_sends_mcp_servers_with_the_beta_header(
    client: AnthropicChatClient, server: WireServer
) -> None:
    tool = AnthropicChatClient.get_mcp_tool(name="kb", url="https://kb.example.com/mcp")
    server.add("POST", COUNT_TOKENS, json_reply(COUNT_BODY))
    await client.count_tokens(MESSAGES, options={"tools": [tool]})
    assert sent(server)["mcp_servers"][0]["name"] == "kb"
    assert server.requests[-1].headers["anthropic-beta"] == "mcp-client-2025-11-20"


async def test_count_tokens_errors_are_mapped(
    client: AnthropicChatClient, server: WireServer
) -> None:
    body = error_body("rate_limit_error", "slow down")
    server.add("POST", COUNT_TOKENS, json_reply(body, 429, headers={"retry-after": "4"}))
    with pytest.raises(RateLimitedError) as caught:
        await client.count_tokens(MESSAGES)
    assert caught.value.retry_after == 4.0
