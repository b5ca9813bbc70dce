"""Running an agent either way, and the model turns the scripted clients replay."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from agentcore import (
    Agent,
    AgentResponse,
    AgentResponseUpdate,
    AgentSession,
    ChatOptions,
    ChatResponse,
    FunctionCallContent,
    Message,
    Usage,
)


@attrs.frozen
class Outcome:
    """What a run gave: the final response and, in a streaming run, every update."""

    response: AgentResponse[Any]
    updates: tuple[AgentResponseUpdate, ...] = ()


async def run_agent(
    agent: Agent,
    messages: Any = None,
    *,
    stream: bool,
    session: AgentSession | None = None,
    options: ChatOptions[Any] | None = None,
    tools: Sequence[Any] | None = None,
    deps: Any = None,
) -> Outcome:
    """Run ``agent`` once (with ``deps`` when given); a streaming run is read to the
    end and its updates must fold into exactly the final response (the parsed
    ``value`` aside)."""
    given = {} if deps is None else {"deps": deps}
    if not stream:
        response = await agent.run(messages, session=session, options=options, tools=tools, **given)
        return Outcome(response)
    result = agent.run(
        messages, session=session, stream=True, options=options, tools=tools, **given
    )
    updates = tuple([update async for update in result])
    final = await result.get_final_response()
    assert attrs.evolve(final, value=None) == AgentResponse.from_updates(updates)
    return Outcome(final, updates)


def call_turn(
    name: str, arguments: str, call_id: str = "call_1", *, usage: Usage | None = None
) -> ChatResponse[None]:
    """A model turn that calls one tool."""
    return ChatResponse(
        messages=[Message("assistant", [FunctionCallContent(call_id, name, arguments)])],
        finish_reason="tool_calls",
        usage=usage,
    )


def answer_turn(text: str, *, usage: Usage | None = None, **fields: Any) -> ChatResponse[None]:
    """A model turn that answers in text."""
    return ChatResponse(
        messages=[Message("assistant", text)], finish_reason="stop", usage=usage, **fields
    )
