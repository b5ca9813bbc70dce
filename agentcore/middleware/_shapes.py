"""What a middleware is, as types: the ``call_next`` it gets and the shapes it may take.

A middleware is an object with ``async def process(self, context, call_next)`` (one of
the three ``Supports*Middleware`` protocols) or an ``async def (context, call_next)``.
``CallNext`` returns a coroutine, so both strict checkers flag a bare ``call_next()``
that was never awaited (mypy's ``unused-coroutine``, pyright's ``reportUnusedCoroutine``).
The protocols are public in :mod:`agentcore.protocols`; they live here, below it, so the
middleware parameters of agents and tool loops can name them.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any, Protocol, TypeAlias, runtime_checkable

from agentcore.middleware._contexts import AgentContext, ChatContext, FunctionInvocationContext

__all__ = [
    "AgentMiddlewareFunction",
    "CallNext",
    "ChatMiddlewareFunction",
    "FunctionMiddlewareFunction",
    "LoopMiddleware",
    "Middleware",
    "SupportsAgentMiddleware",
    "SupportsChatMiddleware",
    "SupportsFunctionMiddleware",
]

CallNext: TypeAlias = Callable[[], Coroutine[Any, Any, None]]
"""Runs the rest of the onion: ``await call_next()``. Not awaiting it skips the rest."""

AgentMiddlewareFunction: TypeAlias = Callable[[AgentContext, CallNext], Coroutine[Any, Any, None]]
"""An ``async def (context: AgentContext, call_next)``: around a whole run."""

ChatMiddlewareFunction: TypeAlias = Callable[[ChatContext, CallNext], Coroutine[Any, Any, None]]
"""An ``async def (context: ChatContext, call_next)``: around every model call."""

FunctionMiddlewareFunction: TypeAlias = Callable[
    [FunctionInvocationContext, CallNext], Coroutine[Any, Any, None]
]
"""An ``async def (context: FunctionInvocationContext, call_next)``: around every tool call."""


@runtime_checkable
class SupportsAgentMiddleware(Protocol):
    """Middleware around a whole agent run."""

    async def process(self, context: AgentContext, call_next: CallNext) -> None: ...


@runtime_checkable
class SupportsChatMiddleware(Protocol):
    """Middleware around every model call of a run."""

    async def process(self, context: ChatContext, call_next: CallNext) -> None: ...


@runtime_checkable
class SupportsFunctionMiddleware(Protocol):
    """Middleware around every tool call of a run."""

    async def process(self, context: FunctionInvocationContext, call_next: CallNext) -> None: ...


LoopMiddleware: TypeAlias = (
    SupportsChatMiddleware
    | SupportsFunctionMiddleware
    | ChatMiddlewareFunction
    | FunctionMiddlewareFunction
)
"""A middleware a :class:`~agentcore.ToolLoop` can run: chat or function scope."""

Middleware: TypeAlias = SupportsAgentMiddleware | AgentMiddlewareFunction | LoopMiddleware
"""A middleware of any scope: an object with ``async def process(self, context,
call_next)`` or an ``async def (context, call_next)``, its context typed
``AgentContext``, ``ChatContext`` or ``FunctionInvocationContext``."""
