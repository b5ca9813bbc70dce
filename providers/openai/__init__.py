"""OpenAI adapters for agentcore: Chat Completions, Responses and Embeddings.

Needs the ``openai`` extra: ``pip install 'agentcore[openai]'``.
"""

import importlib.util

if importlib.util.find_spec("openai") is None:
    raise ImportError("providers.openai needs the OpenAI SDK: pip install 'agentcore[openai]'")

from providers.openai._chat_client import OpenAIChatClient, OpenAIChatOptions
from providers.openai._embeddings import OpenAIEmbeddingClient, OpenAIEmbeddingOptions
from providers.openai._responses_client import OpenAIResponsesClient, OpenAIResponsesOptions

__all__ = [
    "OpenAIChatClient",
    "OpenAIChatOptions",
    "OpenAIEmbeddingClient",
    "OpenAIEmbeddingOptions",
    "OpenAIResponsesClient",
    "OpenAIResponsesOptions",
]
