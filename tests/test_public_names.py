"""Every name users could import from agentcore 0.1 still imports from the same place.

The kernel's renovation (issue #14) moved every module into private sub-packages; the
public face re-exports. ``PUBLIC_IN_0_1`` is the ``__all__`` of each public module as it
was before the move (commit e8ec278), so a name dropped or a module renamed fails here
instead of in users' code. ``agentcore.agent`` is not listed: it was undocumented and
``design/architecture.md`` §6 drops it (``from agentcore import Agent`` is the way).
"""

from __future__ import annotations

import importlib

import pytest

PUBLIC_IN_0_1: dict[str, str] = {
    "agentcore": (
        "Agent AgentContext AgentResponse AgentResponseUpdate AgentSession Annotation "
        "CallNext ChatContext ChatOptions ChatResponse ChatResponseUpdate CodeInterpreterTool "
        "ConfidentialityLabel Content ContentLabel ContextProvider CustomEvent DataContent "
        "Embedding EmbeddingGenerationOptions ErrorContent ExperimentalFeature "
        "ExperimentalWarning FeatureStageWarning FileSearchTool FinishReason "
        "FunctionApprovalRequestContent FunctionApprovalResponseContent FunctionCallContent "
        "FunctionInvocationConfiguration FunctionInvocationContext FunctionResultContent "
        "FunctionTool GeneratedEmbeddings HistoryStore HostedTool HostedToolCallContent "
        "HostedToolResultContent ImageGenerationTool InMemoryHistoryStore IntegrityLabel "
        "MCPTool Message MiddlewareTermination ReasoningContent ReleaseCandidateFeature "
        "ReleaseCandidateWarning RequiredToolChoice ResponseStream Role RunContext RunLocals "
        "ShellTool SqliteHistoryStore StreamConsumedError SupportsAgentRun "
        "SupportsCodeInterpreterTool SupportsCountTokens SupportsFileSearchTool "
        "SupportsGetEmbeddings SupportsGetResponse SupportsImageGenerationTool "
        "SupportsMCPTool SupportsShellTool SupportsWebSearchTool TextContent "
        "ToolArgumentsError ToolChoice ToolContext ToolLoop UriContent Usage UsageContent "
        "UserInputRequestContent UserInputRequired UserInputResponseContent WebSearchTool "
        "__version__ agent_middleware chat_middleware experimental function_middleware "
        "normalize_tools release_candidate tool"
    ),
    "agentcore.errors": (
        "AgentcoreError AuthenticationError ChatClientError ContentFilteredError "
        "ContextLengthExceededError InvalidRequestError ModelNotFoundError RateLimitedError "
        "RunAbortedError RunStateError StructuredOutputError ToolCallRefused ToolError "
        "TransientError UnknownToolError error_class_from_text error_for_status "
        "retry_after_seconds"
    ),
    "agentcore.middleware": (
        "AgentMiddlewareFunction CallNext ChatMiddlewareFunction FunctionMiddlewareFunction "
        "Middleware MiddlewareTermination Scope agent_middleware chat_middleware "
        "function_middleware middleware_scope"
    ),
    "agentcore.observers": (
        "ModelCallEnded ModelCallStarted ObserverSet RunEnded RunStarted ToolCallEnded "
        "ToolCallStarted"
    ),
    "agentcore.protocols": (
        "AgentInput ContextProvider HistoryStore SupportsAgentMiddleware SupportsAgentRun "
        "SupportsChatMiddleware SupportsCodeInterpreterTool SupportsCountTokens "
        "SupportsFileSearchTool SupportsFunctionMiddleware SupportsGetEmbeddings "
        "SupportsGetResponse SupportsImageGenerationTool SupportsMCPTool SupportsShellTool "
        "SupportsWebSearchTool"
    ),
    "agentcore.security": ("ConfidentialityLabel ContentLabel IntegrityLabel"),
    "agentcore.serialization": (
        "SCHEMA_VERSION SerializationError converter from_dict from_json structure to_dict "
        "to_json unstructure"
    ),
    "agentcore.sse": ("SseDecoder SseEvent close_body server_sent_events"),
    "agentcore.structured": ("JsonSchemaOptions json_schema_for parse_answer parse_value"),
    "agentcore.testing": (
        "ChatRequest FunctionChatClient ScriptExhaustedError ScriptedChatClient chunk_response"
    ),
    "agentcore.testing.conformance": (
        "ChatClientConformance ConformanceHarness ErrorKind Scenario scenario_names "
        "standard_scenarios"
    ),
    "agentcore.tools": (
        "ApprovalMode FunctionTool ToolArgumentsError ToolContext UserInputRequired "
        "normalize_tools tool"
    ),
}


@pytest.mark.parametrize("module", list(PUBLIC_IN_0_1))
def test_every_name_of_0_1_still_imports_from_where_it_was(module: str) -> None:
    imported = importlib.import_module(module)
    missing = [name for name in PUBLIC_IN_0_1[module].split() if not hasattr(imported, name)]
    assert not missing, f"{module} no longer has {missing}"


@pytest.mark.parametrize("module", list(PUBLIC_IN_0_1))
def test_every_name_of_0_1_is_still_listed_as_public(module: str) -> None:
    listed = set(getattr(importlib.import_module(module), "__all__", ()))
    assert set(PUBLIC_IN_0_1[module].split()) <= listed, module
