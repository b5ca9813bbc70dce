"""The middleware onion: one pipeline shape for the agent, chat and function scopes.

The contexts each scope receives live in ``_contexts.py``; scope detection, the
decorators and the pipelines that chain middleware live in ``_pipeline.py``, the types of
a middleware and of ``call_next`` in ``_shapes.py``. This module
is the public face: import middleware names from ``agentcore.middleware`` (or
``agentcore``).
"""

from agentcore.middleware._contexts import AgentContext as AgentContext
from agentcore.middleware._contexts import ChatContext as ChatContext
from agentcore.middleware._contexts import (
    FunctionInvocationContext as FunctionInvocationContext,
)
from agentcore.middleware._pipeline import (
    MiddlewareTermination,
    Scope,
    agent_middleware,
    chat_middleware,
    function_middleware,
    middleware_scope,
)
from agentcore.middleware._shapes import (
    AgentMiddlewareFunction,
    CallNext,
    ChatMiddlewareFunction,
    FunctionMiddlewareFunction,
    LoopMiddleware,
    Middleware,
    SupportsAgentMiddleware,
    SupportsChatMiddleware,
    SupportsFunctionMiddleware,
)

__all__ = [
    "AgentMiddlewareFunction",
    "CallNext",
    "ChatMiddlewareFunction",
    "FunctionMiddlewareFunction",
    "LoopMiddleware",
    "Middleware",
    "MiddlewareTermination",
    "Scope",
    "SupportsAgentMiddleware",
    "SupportsChatMiddleware",
    "SupportsFunctionMiddleware",
    "agent_middleware",
    "chat_middleware",
    "function_middleware",
    "middleware_scope",
]
