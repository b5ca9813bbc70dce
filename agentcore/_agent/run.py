"""What one agent run does, in either mode: prepare, run the loop, commit.

The :class:`~agentcore.Agent` holds the configuration; these functions carry out a
run of it. The streaming side (``_agent_stream``) uses the same preparation and
commit, so both modes record exactly the same turn.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from operator import is_
from typing import TYPE_CHECKING, Any, cast

import attrs

from agentcore._agent.input import split_decisions
from agentcore._loop.config import FunctionInvocationConfiguration
from agentcore._loop.loop import LoopState, ToolIndex, drive
from agentcore._observing import ObserverSet
from agentcore._run_context import RunContext
from agentcore._sessions.history import history_view
from agentcore._sessions.session import clear_pause, load_pause, save_pause
from agentcore._sessions.turns import SessionTurns
from agentcore._types.contents import TextContent
from agentcore._types.messages import Message
from agentcore._types.responses import AgentResponse, AgentResponseUpdate, ChatResponse
from agentcore.errors import RunStateError
from agentcore.middleware._contexts import AgentContext
from agentcore.middleware._pipeline import MiddlewareTermination, Pipelines
from agentcore.structured import parse_answer
from agentcore.tools import normalize_tools

if TYPE_CHECKING:
    from agentcore._agent.agent import Agent


class RunSupport:
    """What an agent's runs share besides its configuration: observers, the turn
    queue of its sessions, and the conversion of streamed updates."""

    __slots__ = ("_tool_index", "observers", "to_agent_update", "turns")

    def __init__(
        self,
        observers: ObserverSet,
        turns: SessionTurns,
        to_agent_update: Callable[[Any], AgentResponseUpdate],
    ) -> None:
        self.observers = observers
        self.turns = turns
        self.to_agent_update = to_agent_update
        self._tool_index: tuple[Sequence[Any], ToolIndex] | None = None

    def tool_index(self, tools: Sequence[Any]) -> ToolIndex:
        """The index of the agent's own ``tools``, built once (again if they change)."""
        cached = self._tool_index
        if cached is None or cached[0] is not tools:
            cached = self._tool_index = (tools, ToolIndex(tools))
        return cached[1]


class Prepared:
    """What the run core worked out before the tool loop starts."""

    __slots__ = ("input", "options", "state")

    def __init__(self, input: list[Message], options: dict[str, Any], state: LoopState) -> None:
        self.input = input
        self.options = options
        self.state = state


def to_agent_response(value: Any, agent_name: str | None) -> AgentResponse[Any]:
    """What agent middleware gave as a run's result, as an :class:`AgentResponse`."""
    if isinstance(value, AgentResponse):
        return value  # pyright: ignore[reportUnknownVariableType]  # isinstance on a generic
    if isinstance(value, ChatResponse):
        chat: ChatResponse[Any] = value  # pyright: ignore[reportUnknownVariableType]  # isinstance on a generic
        return AgentResponse(
            messages=chat.messages,
            response_id=chat.response_id,
            agent_name=agent_name,
            finish_reason=chat.finish_reason,
            usage=chat.usage,
            value=chat.value,
        )
    if isinstance(value, Message):
        return AgentResponse(messages=(value,), agent_name=agent_name, finish_reason="stop")
    if value is None:
        return AgentResponse(agent_name=agent_name)
    return AgentResponse(
        messages=(Message("assistant", (TextContent(str(value)),)),),
        agent_name=agent_name,
        finish_reason="stop",
    )


def on_agent_termination(context: AgentContext, termination: MiddlewareTermination) -> None:
    context.metadata["terminated"] = True
    if termination.has_result:
        # A response in both modes: a streaming run replays it (see _agent_stream).
        context.result = to_agent_response(termination.result, context.agent.name)


def final_result(context: AgentContext) -> AgentResponse[Any]:
    """The response a non-streaming run returns, with every event the run emitted."""
    result = context.result
    if not isinstance(result, AgentResponse):
        raise TypeError(
            f"an agent middleware left a non-AgentResponse result in a non-streaming run: "
            f"{result!r}"
        )
    return with_run_events(result, context.run)  # pyright: ignore[reportUnknownArgumentType]  # isinstance on a generic


def with_run_events(response: AgentResponse[Any], run: RunContext) -> AgentResponse[Any]:
    """``response`` with the events the run emitted that it does not hold yet.

    Events emitted by agent middleware after the response was built, or before a
    short-circuit, would otherwise never reach the caller.
    """
    emitted = tuple(run.events)
    known = len(response.events)
    missing = emitted[known:] if response.events == emitted[:known] else emitted
    if not missing:
        return response
    return attrs.evolve(response, events=(*response.events, *missing))


async def prepare(
    agent: Agent,
    support: RunSupport,
    context: AgentContext,
    pipelines: Pipelines,
    config: FunctionInvocationConfiguration,
) -> Prepared:
    """History, context providers, a paused run's decisions and the run's options,
    worked into the tool loop's starting state."""
    session = context.session
    history: list[Message] = []
    store: Any = agent.history
    if store is not None and session is not None and not session.service_conversation_id:
        history = list(await store.load(session.session_id))
    providers = agent.context_providers
    # Messages a context provider adds are context for this run, not conversation:
    # sent, never stored. The input is kept alive so its ids stay unique.
    original = list(context.messages) if providers else None
    for provider in providers:
        before = getattr(provider, "before_run", None)
        if before is not None:
            await before(context)
    pending = None if session is None else load_pause(session)
    input_messages, decisions = split_decisions(context.messages)
    stored = input_messages
    if original is not None:
        own = {id(m) for m in original}
        stored, _ = split_decisions([m for m in context.messages if id(m) in own])
    if decisions and pending is None:
        raise RunStateError(
            "the input holds approval or user-input responses, but no run is waiting for "
            "approval or input in this session; pass the session of the paused run "
            "(session=...)"
        )
    # Without any decision the caller moved on: what is still open is declined,
    # so the conversation stays valid.
    decline_pending = pending is not None and not decisions
    options = dict(context.options)
    agent_instructions = context.instructions
    if agent_instructions:
        run_instructions = options.get("instructions")
        options["instructions"] = (
            f"{agent_instructions}\n\n{run_instructions}"
            if run_instructions
            else agent_instructions
        )
    run_tools = context.tools
    tool_index = None
    if run_tools:
        agent_tools = agent.tools
        if len(run_tools) != len(agent_tools) or not all(map(is_, run_tools, agent_tools)):
            # Run tools, middleware or a context provider changed the tools: check
            # them again.
            run_tools = normalize_tools(run_tools)
            check_unique_names(run_tools, "this run's tools")
        else:
            tool_index = support.tool_index(agent_tools)
        options["tools"] = run_tools
    if session is not None and session.service_conversation_id:
        options.setdefault("conversation_id", session.service_conversation_id)
    state = LoopState(
        client=agent.client,
        messages=[*history, *input_messages],
        options=options,
        stream=context.stream,
        run=context.run,
        pipelines=pipelines,
        config=config,
        return_directly=context.return_directly,
        observers=support.observers,
        pending=pending,
        decisions=decisions,
        decline_pending=decline_pending,
        own_options=True,
        tool_index=tool_index,
    )
    return Prepared(stored, options, state)


async def commit(agent: Agent, context: AgentContext, prepared: Prepared) -> AgentResponse[Any]:
    """Record the finished run: session state, then history, in one step each."""
    state = prepared.state
    chat = state.summary()
    response_format = prepared.options.get("response_format")
    # Parsed before anything is recorded: output that does not fit fails the run,
    # and a failed run leaves no trace.
    value = (
        parse_answer(response_format, chat.messages)
        if response_format is not None and state.paused is None
        else None
    )
    session = context.session
    if session is not None:
        conversation_id = chat.conversation_id or session.service_conversation_id
        store: Any = agent.history
        if store is not None and not conversation_id:
            # History first: if the store fails, the session still matches it.
            produced = state.produced
            resumed = state.resumed
            if resumed is not None:
                # The results of a resumed batch answer calls already stored: they go
                # before this run's input (which may be a new user message).
                turn = [resumed, *prepared.input, *(m for m in produced if m is not resumed)]
            else:
                turn = [*prepared.input, *produced]
            await store.append(session.session_id, history_view(turn))
        session.service_conversation_id = conversation_id
        if state.paused is not None:
            save_pause(session, state.paused, context.run.locals_dict())
        else:
            clear_pause(session)
    # Positional, in field order (messages, response_id, agent_name, finish_reason,
    # usage, created_at, value, events, additional_properties): built for every run.
    return AgentResponse(
        chat.messages,
        chat.response_id,
        agent.name,
        chat.finish_reason,
        chat.usage,
        chat.created_at,
        value,
        tuple(context.run.events),
        chat.additional_properties,
    )


async def after_run(agent: Agent, context: AgentContext) -> None:
    """The context providers' ``after_run``, in reverse order."""
    for provider in reversed(agent.context_providers):
        after = getattr(provider, "after_run", None)
        if after is not None:
            await after(context)


async def run_core(
    agent: Agent,
    support: RunSupport,
    context: AgentContext,
    pipelines: Pipelines,
    config: FunctionInvocationConfiguration,
) -> AgentResponse[Any]:
    """The run itself: history, providers, the tool loop, the commit."""
    session_id = None if context.session is None else context.session.session_id
    turns = support.turns
    if session_id is not None and not turns.try_enter(session_id):
        await turns.enter(session_id)  # runs of one session take turns
    try:
        prepared = await prepare(agent, support, context, pipelines, config)
        async for _ in drive(prepared.state):
            pass  # pragma: no cover  # a non-streaming run yields nothing
        response = context.result = await commit(agent, context, prepared)
    finally:
        if session_id is not None:
            turns.leave(session_id)
    if agent.context_providers:
        await after_run(agent, context)
        return final_result(context)  # after_run may emit events or replace it
    return response


def check_unique_names(tools: Sequence[Any], where: str) -> None:
    """Raise ``ValueError`` naming the first tool name used twice in ``tools``."""
    seen: set[str] = set()
    for item in tools:
        name: object = (
            cast("Mapping[str, Any]", item).get("name")
            if isinstance(item, Mapping)
            else getattr(item, "name", None)
        )
        if not isinstance(name, str):
            continue
        if name in seen:
            raise ValueError(
                f"two tools named {name!r} in {where}; tool names must be unique — rename one "
                "with @tool(name=...)"
            )
        seen.add(name)
