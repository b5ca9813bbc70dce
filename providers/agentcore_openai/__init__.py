"""OpenAI adapters for agentcore: Chat Completions, Responses and Embeddings.

Needs the ``openai`` extra: ``pip install 'agentcore-framework[openai]'``.
"""

import importlib.util

if importlib.util.find_spec("openai") is None:
    raise ImportError(
        "agentcore_openai needs the OpenAI SDK: pip install 'agentcore-framework[openai]'"
    )

from agentcore_openai._chat_client import OpenAIChatClient, OpenAIChatOptions
from agentcore_openai._embeddings import OpenAIEmbeddingClient, OpenAIEmbeddingOptions
from agentcore_openai._responses_client import OpenAIResponsesClient, OpenAIResponsesOptions

__all__ = [
    "OpenAIChatClient",
    "OpenAIChatOptions",
    "OpenAIEmbeddingClient",
    "OpenAIEmbeddingOptions",
    "OpenAIResponsesClient",
    "OpenAIResponsesOptions",
]
