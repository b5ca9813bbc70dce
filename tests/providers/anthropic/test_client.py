"""Constructing the client: SDK client ownership, defaults, and argument checks."""

from __future__ import annotations

import anthropic
import pytest
from agentcore_anthropic import AnthropicChatClient

from tests.providers.anthropic.fixtures import MODEL


def test_a_client_built_from_a_key_does_not_retry_by_itself() -> None:
    client = AnthropicChatClient(MODEL, api_key="sk-ant-test", base_url="http://127.0.0.1:9")
    assert client.client.max_retries == 0
    assert client.client.api_key == "sk-ant-test"
    assert str(client.client.base_url).startswith("http://127.0.0.1:9")


def test_a_given_sdk_client_is_used_as_it_is() -> None:
    sdk = anthropic.AsyncAnthropic(api_key="sk-ant-test", max_retries=5)
    client = AnthropicChatClient(MODEL, client=sdk)
    assert client.client is sdk
    assert client.client.max_retries == 5


def test_client_and_api_key_together_are_rejected() -> None:
    sdk = anthropic.AsyncAnthropic(api_key="sk-ant-test")
    with pytest.raises(ValueError, match="not both"):
        AnthropicChatClient(MODEL, client=sdk, api_key="other")


def test_max_tokens_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_tokens"):
        AnthropicChatClient(MODEL, api_key="k", max_tokens=0)


def test_model_is_required() -> None:
    with pytest.raises(ValueError, match="model"):
        AnthropicChatClient("", api_key="k")


def test_provider_id_is_anthropic() -> None:
    assert AnthropicChatClient.provider == "anthropic"
