"""The options the Anthropic adapter reads, and the wire constants it relies on."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from typing_extensions import TypeVar

from agentcore import ChatOptions

__all__ = [
    "CODE_EXECUTION_TOOL_TYPE",
    "DEFAULT_MAX_TOKENS",
    "MCP_CONNECTOR_BETA",
    "PROVIDER",
    "REDACTED_THINKING_ID",
    "THINKING_ID",
    "WEB_SEARCH_TOOL_TYPE",
    "AnthropicChatOptions",
]

ResponseT = TypeVar("ResponseT", default=None)

PROVIDER = "anthropic"
"""The ``provider`` of the reasoning and hosted-tool contents this adapter makes."""

DEFAULT_MAX_TOKENS = 4096
"""``max_tokens`` when neither the options nor the constructor set it (the API requires it)."""

WEB_SEARCH_TOOL_TYPE = "web_search_20250305"
"""The web search tool version sent by default; it works with every current model."""

CODE_EXECUTION_TOOL_TYPE = "code_execution_20250825"
"""The code execution tool version sent by default (bash and file editing in a sandbox)."""

MCP_CONNECTOR_BETA = "mcp-client-2025-11-20"
"""The ``anthropic-beta`` value of the MCP connector (servers plus ``mcp_toolset`` tools)."""

THINKING_ID = "thinking"
"""``ReasoningContent.id`` prefix of a ``thinking`` block (``thinking_<n>``)."""

REDACTED_THINKING_ID = "redacted_thinking"
"""``ReasoningContent.id`` prefix of a ``redacted_thinking`` block (``redacted_thinking_<n>``)."""


class AnthropicChatOptions(ChatOptions[ResponseT], total=False):
    """Options of one Messages API request: the common keys plus Anthropic's own.

    Common keys the API has no field for (``seed``, ``frequency_penalty``,
    ``presence_penalty``, ``conversation_id``) are not sent. ``metadata`` is sent
    only as its ``user_id`` key (``user`` sets the same field).
    """

    thinking: Mapping[str, Any] | None
    """Extended thinking, e.g. ``{"type": "enabled", "budget_tokens": 2048}``."""
    top_k: int | None
    """Sample from the k most likely tokens only."""
    betas: Sequence[str] | None
    """Extra ``anthropic-beta`` header values (the MCP connector's is added for you)."""
    container: str | None
    """The id of a code-execution container to reuse (see ``additional_properties``)."""
    service_tier: Literal["auto", "standard_only"] | None
    """Whether the request may use priority capacity."""
    extra_body: Mapping[str, Any] | None
    """Fields merged into the JSON body as they are, for API fields this adapter lacks."""
