"""Anthropic adapter: ``AnthropicChatClient`` over the Messages API.

Needs the Anthropic SDK: ``pip install 'agentcore[anthropic]'``.
"""

import importlib.util

if importlib.util.find_spec("anthropic") is None:  # pragma: no cover  # installed in tests
    raise ImportError(
        "providers.anthropic needs the Anthropic SDK; install it with "
        "pip install 'agentcore[anthropic]'"
    )

from providers.anthropic._client import AnthropicChatClient
from providers.anthropic._options import AnthropicChatOptions

__all__ = ["AnthropicChatClient", "AnthropicChatOptions"]
