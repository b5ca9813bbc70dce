"""agentcore: a protocol-first framework for LLM agents.

The public surface is listed once, here. Modules and sub-packages with a leading
underscore are private (their layout is ``docs/architecture.md``); import from
``agentcore`` or its public submodules ``agentcore.tools``, ``agentcore.middleware``,
``agentcore.protocols``, ``agentcore.observers``, ``agentcore.errors``,
``agentcore.serialization``, ``agentcore.structured``, ``agentcore.sse``,
``agentcore.security``, ``agentcore.tokens`` and ``agentcore.testing``.
"""

from typing import TYPE_CHECKING, Any

from agentcore._agent.agent import Agent
from agentcore._agent.tool_providers import AgentTool, ToolProvider
from agentcore._loop.config import FunctionInvocationConfiguration
from agentcore._loop.loop import ToolLoop
from agentcore._run_context import RunContext, RunLocals
from agentcore._sessions.history import InMemoryHistoryStore, SessionInfo, SqliteHistoryStore
from agentcore._sessions.session import AgentSession, PausedRun
from agentcore._streams.replay import StreamEnd
from agentcore._streams.stream import ResponseStream, StreamConsumedError
from agentcore._types.contents import (
    Annotation,
    CompactionContent,
    Content,
    DataContent,
    ErrorContent,
    FunctionApprovalRequestContent,
    FunctionApprovalResponseContent,
    FunctionCallContent,
    FunctionResultContent,
    HostedToolCallContent,
    HostedToolResultContent,
    ReasoningContent,
    TextContent,
    UriContent,
    UsageContent,
    UserInputRequestContent,
    UserInputResponseContent,
)
from agentcore._types.messages import Message, Role
from agentcore._types.options import ChatOptions, RequiredToolChoice, ToolChoice
from agentcore._types.responses import (
    AgentResponse,
    AgentResponseUpdate,
    ChatResponse,
    ChatResponseUpdate,
    CustomEvent,
    FinishReason,
    merge_plain_text,
)
from agentcore._types.usage import Usage
from agentcore.middleware._contexts import AgentContext, ChatContext, FunctionInvocationContext
from agentcore.middleware._pipeline import (
    MiddlewareTermination,
    agent_middleware,
    chat_middleware,
    function_middleware,
)
from agentcore.middleware._shapes import CallNext
from agentcore.protocols import (
    ContextProvider,
    HistoryStore,
    SupportsAgentRun,
    SupportsCodeInterpreterTool,
    SupportsCountTokens,
    SupportsFileSearchTool,
    SupportsGetEmbeddings,
    SupportsGetResponse,
    SupportsImageGenerationTool,
    SupportsListSessions,
    SupportsMCPTool,
    SupportsShellTool,
    SupportsWebSearchTool,
)
from agentcore.tools import (
    FunctionTool,
    SupportsToolCall,
    ToolArgumentsError,
    ToolContext,
    ToolResult,
    UserInputRequired,
    normalize_tools,
    tool,
)

if TYPE_CHECKING:
    from agentcore._feature_stage import (
        ExperimentalFeature,
        ExperimentalWarning,
        FeatureStageWarning,
        ReleaseCandidateFeature,
        ReleaseCandidateWarning,
        experimental,
        release_candidate,
    )
    from agentcore._types.embeddings import (
        Embedding,
        EmbeddingGenerationOptions,
        GeneratedEmbeddings,
    )
    from agentcore._types.hosted_tools import (
        CodeInterpreterTool,
        FileSearchTool,
        HostedTool,
        ImageGenerationTool,
        MCPTool,
        ShellTool,
        WebSearchTool,
    )
    from agentcore.security import ConfidentialityLabel, ContentLabel, IntegrityLabel
    from agentcore.tokens import estimate_tokens

__version__ = "0.1.0"

__all__ = [
    "Agent",
    "AgentContext",
    "AgentResponse",
    "AgentResponseUpdate",
    "AgentSession",
    "AgentTool",
    "Annotation",
    "CallNext",
    "ChatContext",
    "ChatOptions",
    "ChatResponse",
    "ChatResponseUpdate",
    "CodeInterpreterTool",
    "CompactionContent",
    "ConfidentialityLabel",
    "Content",
    "ContentLabel",
    "ContextProvider",
    "CustomEvent",
    "DataContent",
    "Embedding",
    "EmbeddingGenerationOptions",
    "ErrorContent",
    "ExperimentalFeature",
    "ExperimentalWarning",
    "FeatureStageWarning",
    "FileSearchTool",
    "FinishReason",
    "FunctionApprovalRequestContent",
    "FunctionApprovalResponseContent",
    "FunctionCallContent",
    "FunctionInvocationConfiguration",
    "FunctionInvocationContext",
    "FunctionResultContent",
    "FunctionTool",
    "GeneratedEmbeddings",
    "HistoryStore",
    "HostedTool",
    "HostedToolCallContent",
    "HostedToolResultContent",
    "ImageGenerationTool",
    "InMemoryHistoryStore",
    "IntegrityLabel",
    "MCPTool",
    "Message",
    "MiddlewareTermination",
    "PausedRun",
    "ReasoningContent",
    "ReleaseCandidateFeature",
    "ReleaseCandidateWarning",
    "RequiredToolChoice",
    "ResponseStream",
    "Role",
    "RunContext",
    "RunLocals",
    "SessionInfo",
    "ShellTool",
    "SqliteHistoryStore",
    "StreamConsumedError",
    "StreamEnd",
    "SupportsAgentRun",
    "SupportsCodeInterpreterTool",
    "SupportsCountTokens",
    "SupportsFileSearchTool",
    "SupportsGetEmbeddings",
    "SupportsGetResponse",
    "SupportsImageGenerationTool",
    "SupportsListSessions",
    "SupportsMCPTool",
    "SupportsShellTool",
    "SupportsToolCall",
    "SupportsWebSearchTool",
    "TextContent",
    "ToolArgumentsError",
    "ToolChoice",
    "ToolContext",
    "ToolLoop",
    "ToolProvider",
    "ToolResult",
    "UriContent",
    "Usage",
    "UsageContent",
    "UserInputRequestContent",
    "UserInputRequired",
    "UserInputResponseContent",
    "WebSearchTool",
    "__version__",
    "agent_middleware",
    "chat_middleware",
    "estimate_tokens",
    "experimental",
    "function_middleware",
    "merge_plain_text",
    "normalize_tools",
    "release_candidate",
    "tool",
]


# Loaded on first use: ``from agentcore import Agent, tool`` does not pay for them.
_LAZY: dict[str, str] = {
    "Embedding": "agentcore._types.embeddings",
    "EmbeddingGenerationOptions": "agentcore._types.embeddings",
    "GeneratedEmbeddings": "agentcore._types.embeddings",
    "ExperimentalFeature": "agentcore._feature_stage",
    "ExperimentalWarning": "agentcore._feature_stage",
    "FeatureStageWarning": "agentcore._feature_stage",
    "ReleaseCandidateFeature": "agentcore._feature_stage",
    "ReleaseCandidateWarning": "agentcore._feature_stage",
    "experimental": "agentcore._feature_stage",
    "release_candidate": "agentcore._feature_stage",
    "CodeInterpreterTool": "agentcore._types.hosted_tools",
    "FileSearchTool": "agentcore._types.hosted_tools",
    "HostedTool": "agentcore._types.hosted_tools",
    "ImageGenerationTool": "agentcore._types.hosted_tools",
    "MCPTool": "agentcore._types.hosted_tools",
    "ShellTool": "agentcore._types.hosted_tools",
    "WebSearchTool": "agentcore._types.hosted_tools",
    "ConfidentialityLabel": "agentcore.security",
    "ContentLabel": "agentcore.security",
    "IntegrityLabel": "agentcore.security",
    "estimate_tokens": "agentcore.tokens",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'agentcore' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
