"""Test doubles for agents and middleware: run everything offline.

:class:`ScriptedChatClient` replays a script; :class:`FunctionChatClient` asks a
callable. Both satisfy :class:`~agentcore.protocols.SupportsGetResponse` by shape
and record every request they receive.
"""

from agentcore.testing._doubles import (
    ChatRequest,
    FunctionChatClient,
    ScriptedChatClient,
    ScriptExhaustedError,
    chunk_response,
)

__all__ = [
    "ChatRequest",
    "FunctionChatClient",
    "ScriptExhaustedError",
    "ScriptedChatClient",
    "chunk_response",
]
