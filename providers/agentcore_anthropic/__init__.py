"""Anthropic adapter: ``AnthropicChatClient`` over the Messages API.

Needs the Anthropic SDK: ``pip install 'agentcore-framework[anthropic]'``.
"""

import importlib.util

if importlib.util.find_spec("anthropic") is None:
    raise ImportError(
        "agentcore_anthropic needs the Anthropic SDK: pip install 'agentcore-framework[anthropic]'"
    )

from agentcore_anthropic._client import AnthropicChatClient
from agentcore_anthropic._options import AnthropicChatOptions

__all__ = ["AnthropicChatClient", "AnthropicChatOptions"]
