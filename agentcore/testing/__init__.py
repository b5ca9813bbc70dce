"""Test doubles for agents and middleware: run everything offline.

:class:`ScriptedChatClient` replays a script; :class:`FunctionChatClient` asks a
callable. Both satisfy :class:`~agentcore.protocols.SupportsGetResponse` by shape
and record every request they receive. :func:`check_request` lists what a provider would
refuse in a request, and :class:`ValidatingChatClient` fails on such a request.
"""

from agentcore.testing._doubles import (
    ChatRequest,
    FunctionChatClient,
    ScriptedChatClient,
    ScriptExhaustedError,
    chunk_response,
)
from agentcore.testing._requests import (
    Dialect,
    RequestValidationError,
    ValidatingChatClient,
    check_history_store,
    check_request,
)

__all__ = [
    "ChatRequest",
    "Dialect",
    "FunctionChatClient",
    "RequestValidationError",
    "ScriptExhaustedError",
    "ScriptedChatClient",
    "ValidatingChatClient",
    "check_history_store",
    "check_request",
    "chunk_response",
]
