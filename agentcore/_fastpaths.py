"""The kernel's fast paths: constructions written for speed rather than for reading.

Everything here would read better written the plain way, and each was measured the
plain way before it stayed (callgrind instructions per run, ``PYTHONHASHSEED=0``, the
scenarios of ``benchmarks/``; 2026-11-26, see docs/performance.md "Fast paths that stay,
and why"). Each runs once per run, per model call or per streamed chunk, and its plain
twin cost enough to decide whether a budget of ``docs/performance.md`` is met:

- :func:`agent_updates` (per streamed chunk): an agent update made by filling a twin
  class (a subclass with the frozen guards off) and assigning ``__class__``, instead of
  ``AgentResponseUpdate(...)``. Plain: the 200-chunk agent stream costs 85 % more
  instructions (3.22 M -> 5.97 M per run).
- The constructors below, which build the per-run and per-call values positionally,
  in their classes' field order (keywords: plain run +7 %, tool round +5 %, tool
  round with 3 middleware per scope +6 %). A field added or moved in those classes
  must be added or moved here; ``tests/test_fastpaths.py`` builds each both ways and
  compares.
- :class:`LoopSummary` (per run of more than one model call): the fields of the
  loop's response without building a ``ChatResponse`` that the agent would only read
  and drop. Plain (a ``ChatResponse``): a tool round +5 %.

Nothing here is public; the public types stay plain attrs classes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from agentcore._types.responses import (
    AgentResponse,
    AgentResponseUpdate,
    ChatResponseUpdate,
    CustomEvent,
    FinishReason,
)
from agentcore.middleware._contexts import AgentContext, ChatContext, FunctionInvocationContext

if TYPE_CHECKING:
    from agentcore._run_context import RunContext
    from agentcore._sessions.session import AgentSession
    from agentcore._types.messages import Message
    from agentcore._types.usage import Usage
    from agentcore.protocols import SupportsGetResponse
    from agentcore.tools import SupportsToolCall

__all__ = [
    "LoopSummary",
    "agent_context",
    "agent_response",
    "agent_updates",
    "chat_context",
    "function_context",
]


# -- positional constructions ----------------------------------------------------------


def agent_context(
    agent: Any,
    messages: list[Message],
    session: AgentSession | None,
    instructions: str | None,
    tools: list[Any],
    options: dict[str, Any],
    stream: bool,
    run: RunContext,
) -> AgentContext:
    """An :class:`AgentContext`, once per run."""
    return AgentContext(agent, messages, session, instructions, tools, options, stream, run)


def chat_context(
    client: SupportsGetResponse[Any],
    messages: list[Message],
    options: dict[str, Any],
    stream: bool,
    run: RunContext,
    transcript: list[Message],
) -> ChatContext:
    """A :class:`ChatContext`, once per model call through chat middleware."""
    return ChatContext(client, messages, options, stream, run, transcript)


def function_context(
    function: SupportsToolCall, arguments: dict[str, Any], call_id: str, run: RunContext
) -> FunctionInvocationContext:
    """A :class:`FunctionInvocationContext`, once per call through function middleware."""
    return FunctionInvocationContext(function, arguments, call_id, run)


def agent_response(
    messages: tuple[Message, ...],
    response_id: str | None,
    agent_name: str | None,
    finish_reason: FinishReason | None,
    usage: Usage | None,
    created_at: str | None,
    value: Any,
    events: tuple[CustomEvent, ...],
    additional_properties: Mapping[str, Any] | None,
) -> AgentResponse[Any]:
    """The :class:`AgentResponse` a run commits, once per run."""
    return AgentResponse(
        messages,
        response_id,
        agent_name,
        finish_reason,
        usage,
        created_at,
        value,
        events,
        additional_properties,
    )


class LoopSummary(NamedTuple):
    """The fields of a loop's response, in ``ChatResponse``'s constructor order
    (``ChatResponse(*summary)`` builds it when a caller needs the object)."""

    messages: tuple[Message, ...]
    response_id: str | None
    conversation_id: str | None
    model: str | None
    finish_reason: FinishReason | None
    usage: Usage | None
    created_at: str | None
    value: None
    additional_properties: Mapping[str, Any] | None


# -- agent updates, per streamed chunk -------------------------------------------------


class _FillableAgentUpdate(AgentResponseUpdate):
    """An :class:`AgentResponseUpdate` with its frozen guards off, to fill by hand.

    :func:`agent_updates` makes each agent update as one of these (the class call
    runs no ``__init__``: ``object.__init__`` does nothing), fills its slots with
    plain attribute stores, which the interpreter specializes (the frozen
    ``__setattr__`` it inherits would refuse them, and a store through
    ``object.__setattr__`` costs a call each), then makes it an
    :class:`AgentResponseUpdate` by assigning ``__class__``. A subclass that adds no
    slots has its base's layout, so CPython's check of that assignment passes at
    once, without comparing the two classes' slots. ``__delattr__`` is switched off
    as well because CPython serves both from one type slot: with the frozen one left,
    stores would not be specialized. Instances of this class never leave
    ``agent_updates``.
    """

    __slots__ = ()
    __init__ = object.__init__  # pyright: ignore[reportAssignmentType]  # filled by stores, not by attrs
    __setattr__ = object.__setattr__
    __delattr__ = object.__delattr__


def agent_updates(agent_name: str | None) -> Callable[[Any], AgentResponseUpdate]:
    """The per-chunk conversion of one agent's stream: chat updates to agent updates.

    It runs for every streamed chunk, so a :class:`ChatResponseUpdate` becomes a
    new agent update without going through attrs' ``__init__``, whose frozen
    stores cost about six times as much (see :class:`_FillableAgentUpdate`). Its
    contents are a tuple already, so the converter has nothing to do. Agent
    updates (custom events) pass through unchanged.
    """
    fillable = _FillableAgentUpdate
    agent_update = AgentResponseUpdate

    def convert(update: Any) -> AgentResponseUpdate:
        if type(update) is ChatResponseUpdate:
            converted: Any = fillable()
            converted.contents = update.contents
            converted.role = update.role
            converted.author_name = update.author_name
            converted.agent_name = agent_name
            converted.response_id = update.response_id
            converted.message_id = update.message_id
            converted.finish_reason = update.finish_reason
            converted.created_at = update.created_at
            converted.event = None
            converted.additional_properties = update.additional_properties
            converted.__class__ = agent_update
            return converted  # type: ignore[no-any-return]  # an AgentResponseUpdate now
        if isinstance(update, AgentResponseUpdate):
            return update
        return AgentResponseUpdate(  # a subclass of ChatResponseUpdate, or a look-alike
            contents=update.contents,
            role=update.role,
            author_name=update.author_name,
            agent_name=agent_name,
            response_id=update.response_id,
            message_id=update.message_id,
            finish_reason=update.finish_reason,
            created_at=update.created_at,
            additional_properties=update.additional_properties,
        )

    return convert
