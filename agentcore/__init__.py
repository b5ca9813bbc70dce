"""agentcore: a protocol-first framework for LLM agents.

The public surface is listed once, here. Modules with a leading underscore are
private; import from ``agentcore`` (or the documented public submodules
``agentcore.protocols``, ``agentcore.errors``, ``agentcore.security``,
``agentcore.serialization`` and ``agentcore.testing``).
"""

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
from agentcore._history import InMemoryHistoryStore, SqliteHistoryStore
from agentcore._hosted_tools import (
    CodeInterpreterTool,
    FileSearchTool,
    HostedTool,
    ImageGenerationTool,
    MCPTool,
    ShellTool,
    WebSearchTool,
)
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
)
from agentcore.security import ConfidentialityLabel, ContentLabel, IntegrityLabel
from agentcore.tools import (
    FunctionTool,
    ToolArgumentsError,
    ToolContext,
    UserInputRequired,
    normalize_tools,
    tool,
)

__version__ = "0.1.0"

__all__ = [
    "Agent",
    "AgentContext",
    "AgentResponse",
    "AgentResponseUpdate",
    "AgentSession",
    "Annotation",
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
    "SupportsWebSearchTool",
    "TextContent",
    "ToolArgumentsError",
    "ToolChoice",
    "ToolContext",
    "ToolLoop",
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
