"""The middleware onion: one pipeline shape for the agent, chat and function scopes.

The contexts each scope receives live in ``_contexts.py``; scope detection, the
decorators and the pipelines that chain middleware live in ``_pipeline.py``. This module
is the public face: import middleware names from ``agentcore.middleware`` (or
``agentcore``).
"""

from agentcore.middleware._contexts import AgentContext as AgentContext
from agentcore.middleware._contexts import ChatContext as ChatContext
from agentcore.middleware._contexts import (
    FunctionInvocationContext as FunctionInvocationContext,
)
from agentcore.middleware._pipeline import (
    AgentMiddlewareFunction,
    CallNext,
    ChatMiddlewareFunction,
    FunctionMiddlewareFunction,
    Middleware,
    MiddlewareTermination,
    Scope,
    agent_middleware,
    chat_middleware,
    function_middleware,
    middleware_scope,
)
from agentcore.middleware._pipeline import PipelineCache as PipelineCache
from agentcore.middleware._pipeline import Pipelines as Pipelines
from agentcore.middleware._pipeline import run_pipeline as run_pipeline

__all__ = [
    "AgentMiddlewareFunction",
    "CallNext",
    "ChatMiddlewareFunction",
    "FunctionMiddlewareFunction",
    "Middleware",
    "MiddlewareTermination",
    "Scope",
    "agent_middleware",
    "chat_middleware",
    "function_middleware",
    "middleware_scope",
]
