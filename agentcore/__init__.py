"""agentcore: a protocol-first framework for LLM agents.

The public surface is listed once, here. Modules with a leading underscore are
private; import from ``agentcore`` (or the documented public submodules
``agentcore.protocols``, ``agentcore.errors``, ``agentcore.security``,
``agentcore.serialization`` and ``agentcore.testing``).
"""

from typing import TYPE_CHECKING, Any

from agentcore._contents import (
    Annotation,
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
from agentcore._contexts import AgentContext, ChatContext, FunctionInvocationContext
from agentcore._history import InMemoryHistoryStore, SqliteHistoryStore
from agentcore._loop_config import FunctionInvocationConfiguration
from agentcore._messages import Message, Role
from agentcore._options import ChatOptions, RequiredToolChoice, ToolChoice
from agentcore._responses import (
    AgentResponse,
    AgentResponseUpdate,
    ChatResponse,
    ChatResponseUpdate,
    CustomEvent,
    FinishReason,
)
from agentcore._run import RunContext, RunLocals
from agentcore._sessions import AgentSession
from agentcore._stream import ResponseStream, StreamConsumedError
from agentcore._tool_loop import ToolLoop
from agentcore._usage import Usage
from agentcore.agent import Agent
from agentcore.middleware import (
    CallNext,
    MiddlewareTermination,
    agent_middleware,
    chat_middleware,
    function_middleware,
)
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
    SupportsMCPTool,
    SupportsShellTool,
    SupportsWebSearchTool,
    ToolProvider,
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
    from agentcore._embeddings import Embedding, EmbeddingGenerationOptions, GeneratedEmbeddings
    from agentcore._feature_stage import (
        ExperimentalFeature,
        ExperimentalWarning,
        FeatureStageWarning,
        ReleaseCandidateFeature,
        ReleaseCandidateWarning,
        experimental,
        release_candidate,
    )
    from agentcore._hosted_tools import (
        CodeInterpreterTool,
        FileSearchTool,
        HostedTool,
        ImageGenerationTool,
        MCPTool,
        ShellTool,
        WebSearchTool,
    )
    from agentcore.security import ConfidentialityLabel, ContentLabel, IntegrityLabel

__version__ = "0.1.0"

__all__ = [
    "Agent",
    "AgentContext",
    "AgentResponse",
    "AgentResponseUpdate",
    "AgentSession",
    "Annotation",
    "CallNext",
    "ChatContext",
    "ChatOptions",
    "ChatResponse",
    "ChatResponseUpdate",
    "CodeInterpreterTool",
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
    "ReasoningContent",
    "ReleaseCandidateFeature",
    "ReleaseCandidateWarning",
    "RequiredToolChoice",
    "ResponseStream",
    "Role",
    "RunContext",
    "RunLocals",
    "ShellTool",
    "SqliteHistoryStore",
    "StreamConsumedError",
    "SupportsAgentRun",
    "SupportsCodeInterpreterTool",
    "SupportsCountTokens",
    "SupportsFileSearchTool",
    "SupportsGetEmbeddings",
    "SupportsGetResponse",
    "SupportsImageGenerationTool",
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
    "experimental",
    "function_middleware",
    "normalize_tools",
    "release_candidate",
    "tool",
]


# Loaded on first use: ``from agentcore import Agent, tool`` does not pay for them.
_LAZY: dict[str, str] = {
    "Embedding": "agentcore._embeddings",
    "EmbeddingGenerationOptions": "agentcore._embeddings",
    "GeneratedEmbeddings": "agentcore._embeddings",
    "ExperimentalFeature": "agentcore._feature_stage",
    "ExperimentalWarning": "agentcore._feature_stage",
    "FeatureStageWarning": "agentcore._feature_stage",
    "ReleaseCandidateFeature": "agentcore._feature_stage",
    "ReleaseCandidateWarning": "agentcore._feature_stage",
    "experimental": "agentcore._feature_stage",
    "release_candidate": "agentcore._feature_stage",
    "CodeInterpreterTool": "agentcore._hosted_tools",
    "FileSearchTool": "agentcore._hosted_tools",
    "HostedTool": "agentcore._hosted_tools",
    "ImageGenerationTool": "agentcore._hosted_tools",
    "MCPTool": "agentcore._hosted_tools",
    "ShellTool": "agentcore._hosted_tools",
    "WebSearchTool": "agentcore._hosted_tools",
    "ConfidentialityLabel": "agentcore.security",
    "ContentLabel": "agentcore.security",
    "IntegrityLabel": "agentcore.security",
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
