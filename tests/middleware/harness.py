"""Scripted model turns, recording middleware, and running an agent either way.

Every behaviour that exists in both modes is run through :func:`run_agent`,
which in a streaming run also checks that the streamed updates fold into the
final response.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal, TypeAlias, TypeVar

from agentcore import (
    Agent,
    AgentResponse,
    AgentResponseUpdate,
    AgentSession,
    ChatOptions,
    ChatResponse,
    FunctionCallContent,
    FunctionResultContent,
    Message,
    agent_middleware,
    chat_middleware,
    function_middleware,
)
from agentcore.middleware import CallNext, Middleware

__all__ = [
    "Scope",
    "one_call",
    "recorder",
    "results",
    "run_agent",
    "scoped",
    "text",
]

Scope: TypeAlias = Literal["agent", "chat", "function"]
F = TypeVar("F")

_DECORATORS: dict[Scope, Callable[[Any], Any]] = {
    "agent": agent_middleware,
    "chat": chat_middleware,
    "function": function_middleware,
}


def one_call(name: str, arguments: str = "{}", call_id: str = "c1") -> ChatResponse[None]:
    """A model turn with a single tool call."""
    return ChatResponse(
        messages=(Message("assistant", (FunctionCallContent(call_id, name, arguments),)),),
        finish_reason="tool_calls",
    )


def text(answer: str) -> ChatResponse[None]:
    """A model turn that answers in text."""
    return ChatResponse(messages=(Message("assistant", answer),), finish_reason="stop")


def results(messages: Sequence[Message]) -> list[Any]:
    """The ``result`` of every function result in ``messages``, in order."""
    return [c.result for m in messages for c in m.contents if isinstance(c, FunctionResultContent)]


def scoped(scope: Scope, middleware: F) -> F:
    """``middleware`` marked with the decorator of ``scope``."""
    marked: F = _DECORATORS[scope](middleware)
    return marked


def recorder(scope: Scope, name: str, log: list[str]) -> Middleware:
    """A middleware of ``scope`` that logs ``"<name> before"`` and ``"<name> after"``."""

    async def record(context: Any, call_next: CallNext) -> None:
        log.append(f"{name} before")
        await call_next()
        log.append(f"{name} after")

    return scoped(scope, record)


async def run_agent(
    agent: Agent,
    messages: Any = "hi",
    *,
    stream: bool,
    session: AgentSession | None = None,
    options: ChatOptions[Any] | None = None,
    tools: Sequence[Any] | None = None,
    middleware: Sequence[Middleware] | None = None,
) -> tuple[AgentResponse[Any], list[AgentResponseUpdate]]:
    """Run ``agent`` once in the given mode: the response and the streamed updates."""
    if not stream:
        response = await agent.run(
            messages, session=session, options=options, tools=tools, middleware=middleware
        )
        return response, []
    run = agent.run(
        messages, session=session, stream=True, options=options, tools=tools, middleware=middleware
    )
    updates = [update async for update in run]
    final = await run.get_final_response()
    assert AgentResponse.from_updates(updates) == final
    return final, updates
