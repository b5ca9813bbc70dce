"""One agent run, in either mode: :class:`AgentRun` prepares, runs the loop, commits and
gives the result.

The :class:`~agentcore.Agent` holds the configuration and builds one ``AgentRun`` per
call of ``run``. Both modes share every step; they differ only in how the tool loop is
read (to its end, or delegated to the caller's stream) and in how the result reaches the
caller, so both record exactly the same turn. The stream's pieces that need no run
(its finalizer, the replay of a finished response) are in ``stream.py``.
"""

from __future__ import annotations

import weakref
from collections.abc import AsyncGenerator, Callable, Mapping, Sequence
from contextlib import aclosing
from operator import is_
from typing import TYPE_CHECKING, Any, Protocol, cast

import attrs

from agentcore._agent.input import split_decisions
from agentcore._agent.input_checks import (
    check_paused_tools,
    check_session_store,
    checked_input,
    live_pause,
)
from agentcore._agent.stream import StreamRecord, reading, stream_finalizer
from agentcore._fastpaths import agent_response
from agentcore._loop.config import FunctionInvocationConfiguration
from agentcore._loop.loop import LoopRun, run_quietly, run_tool_loop
from agentcore._loop.state import ToolIndex
from agentcore._run_context import RunContext
from agentcore._sessions.history import history_view, indexed_history_view
from agentcore._sessions.ledger import TranscriptLedger
from agentcore._sessions.session import bind_history_store, clear_pause, load_pause, save_pause
from agentcore._sessions.turns import SessionTurns, Turn
from agentcore._sessions.view import HistoryView, compacted_view
from agentcore._streams.reader import Delegate, inject
from agentcore._streams.replay import StreamEnd
from agentcore._streams.stream import ResponseStream
from agentcore._types.contents import TextContent
from agentcore._types.messages import Message
from agentcore._types.responses import (
    AgentResponse,
    AgentResponseUpdate,
    ChatResponse,
    CustomEvent,
)
from agentcore.errors import RunStateError
from agentcore.middleware._contexts import AgentContext
from agentcore.middleware._pipeline import MiddlewareTermination, Pipelines, run_pipeline
from agentcore.observers import ObserverSet
from agentcore.structured import parse_answer
from agentcore.tools import normalize_tools
from agentcore.tools._normalize import is_tool_provider, split_tool_providers

if TYPE_CHECKING:
    from agentcore.protocols import ContextProvider, HistoryStore, SupportsGetResponse


class AgentShape(Protocol):
    """What a run reads from its agent. The run is typed against this, not ``Agent``,
    so this module never imports the module that calls it."""

    @property
    def name(self) -> str | None: ...

    @property
    def client(self) -> SupportsGetResponse[Any]: ...

    @property
    def tools(self) -> Sequence[Any]: ...

    @property
    def tool_providers(self) -> Sequence[Any]: ...

    @property
    def context_providers(self) -> Sequence[ContextProvider]: ...

    @property
    def history(self) -> HistoryStore | None: ...


class AgentRuntime:
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
    context.terminated = True
    if termination.has_result:
        # A response in both modes: a streaming run replays it (see AgentRun.stream).
        context.result = to_agent_response(termination.result, context.agent.name)


def final_result(context: AgentContext) -> AgentResponse[Any]:
    """The response a run gives after its agent middleware, in either mode, with every
    event the run emitted. A middleware that ended the run without a result (it did not
    call ``call_next``, or raised ``MiddlewareTermination()`` without ``result``) leaves
    an empty response."""
    result = context.result
    if result is None:
        result = AgentResponse(agent_name=context.agent.name)
    elif not isinstance(result, AgentResponse):
        raise TypeError(
            f"an agent middleware left a result that is not an AgentResponse: {result!r}; "
            "set context.result to an AgentResponse (or a stream in a streaming run)"
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


class AgentRun:
    """One run of an agent: prepare, run the loop, commit, give the result.

    ``result()`` is a non-streaming run and ``stream()`` a streaming one; each puts the
    observers and the agent middleware around the same core (``run_to_end`` /
    ``open_stream``), which prepares, runs the tool loop and commits.
    """

    __slots__ = ("agent", "config", "context", "input", "options", "pipelines", "runtime", "state")

    def __init__(
        self,
        agent: AgentShape,
        runtime: AgentRuntime,
        context: AgentContext,
        pipelines: Pipelines,
        config: FunctionInvocationConfiguration,
    ) -> None:
        self.agent = agent
        self.runtime = runtime
        self.context = context
        self.pipelines = pipelines
        self.config = config
        # Set by prepare(): the messages this run stores, its options and the loop state.
        self.input: list[Message]
        self.options: dict[str, Any]
        self.state: LoopRun

    # -- the two modes -------------------------------------------------------------

    async def result(self) -> AgentResponse[Any]:
        """A non-streaming run: observers and agent middleware around ``run_to_end``."""
        context = self.context
        observers = self.runtime.observers
        run_id, name = context.run.run_id, self.agent.name
        if observers:
            await observers.run_started(run_id, name, context.messages)
        try:
            if self.pipelines.agent:
                await run_pipeline(
                    self.pipelines.agent, context, self._run_core, on_agent_termination
                )
                result = final_result(context)
            else:
                result = await self.run_to_end()
        except BaseException as exc:
            if observers:
                await observers.run_ended(run_id, name, error=exc)
            raise
        if observers:
            await observers.run_ended(run_id, name, result)
        return result

    async def stream(self) -> ResponseStream[AgentResponseUpdate, AgentResponse[Any]]:
        """The setup of a streaming run: observers and agent middleware around
        ``open_stream``. A run they end early replays its response as the stream."""
        context = self.context
        observers = self.runtime.observers
        run_id, name = context.run.run_id, self.agent.name
        if observers:
            await observers.run_started(run_id, name, context.messages)
        try:
            await run_pipeline(self.pipelines.agent, context, self._open_core, on_agent_termination)
        except BaseException as exc:
            if observers:
                await observers.run_ended(run_id, name, error=exc)
            raise
        result = context.result
        if isinstance(result, ResponseStream):
            # Handed to the caller, not left in the context: the stream's source (this
            # run) holds the context, and a stream dropped unread must be freed at once
            # (releasing its session), not when the cycle collector gets to it.
            context.result = None
            return result
        # Short-circuited or terminated, with a response or none: replay it as the stream.
        response = final_result(context)
        replay = ResponseStream.from_response(response)
        if not observers:
            return replay

        async def ended(end: StreamEnd[AgentResponse[Any]]) -> None:
            if end.how == "completed":
                await observers.run_ended(run_id, name, response)

        return replay.on_end(ended)

    # -- the core, shared by both modes ----------------------------------------------

    async def _run_core(self, context: AgentContext) -> None:
        self.context = context
        await self.run_to_end()

    async def _open_core(self, context: AgentContext) -> None:
        self.context = context
        context.result = self.open_stream()

    async def run_to_end(self) -> AgentResponse[Any]:
        """The run itself, not streamed: history, providers, the tool loop, the commit."""
        context = self.context
        session_id = None if context.session is None else context.session.session_id
        turns = self.runtime.turns
        if session_id is not None and not turns.try_enter(session_id):
            await turns.enter(session_id)  # runs of one session take turns
        try:
            await self.prepare()
            await run_quietly(self.state)
            response = context.result = await self.commit()
        finally:
            if session_id is not None:
                turns.leave(session_id)
        if self.agent.context_providers:
            await self.after_run(context)
            return final_result(context)  # after_run may emit events or replace it
        return response

    def open_stream(self) -> ResponseStream[AgentResponseUpdate, AgentResponse[Any]]:
        """The run as a stream: the loop's updates, each made an agent update.

        Read as the run produced them, the updates fold into the response the run
        commits, so that is the final value; transforms stacked by agent middleware
        get the fold of what they produced. The stream keeps the loop's updates, not
        the agent updates made of them, for the fold it needs only if it is closed
        early: the caller's agent updates are freed as soon as the caller drops them.
        """
        record = StreamRecord()
        convert = self.runtime.to_agent_update
        stream: ResponseStream[AgentResponseUpdate, AgentResponse[Any]] = ResponseStream._of(  # pyright: ignore[reportPrivateUsage]  # the agent builds its run's stream
            self._stream_source(weakref.ref(record)),
            finalizer=stream_finalizer(self.context.options.get("response_format"), convert),
            known_final=record.committed,
            transform=convert,
            folds_inputs=True,
        )
        record.core = weakref.ref(stream._core)  # pyright: ignore[reportPrivateUsage]  # the agent builds its run's stream
        return stream

    async def _stream_source(
        self, recorded: weakref.ref[StreamRecord]
    ) -> AsyncGenerator[AgentResponseUpdate | Delegate, None]:
        # The record only weakly: the stream holds it and this generator, so a stream
        # left open and dropped frees its record at once, which releases the session
        # (this generator's own ``finally`` comes later, when the event loop finalizes
        # it). Nothing here leads back to the stream.
        context = self.context
        agent = self.agent
        observers = self.runtime.observers
        run = context.run
        session_id = None if context.session is None else context.session.session_id
        turns = self.runtime.turns
        turn = None
        try:
            if session_id is not None:
                if not turns.try_enter(session_id):
                    await turns.enter(session_id)  # runs of one session take turns
                turn = reading(recorded).turn = Turn(turns, session_id)
            try:
                await self.prepare()
                name = agent.name
                stream_core = reading(recorded).core  # weak as well

                def deliver(event: CustomEvent) -> None:
                    # In order with the rest: before the next update read.
                    core = stream_core()
                    if core is not None:
                        inject(core, AgentResponseUpdate(event=event, agent_name=name))

                # Events agent middleware or context providers emitted before the stream
                # started come first.
                for event in run.events:
                    deliver(event)
                run._sink = deliver  # pyright: ignore[reportPrivateUsage]  # the agent owns the run's event sink
                try:
                    async with aclosing(run_tool_loop(self.state)) as loop_updates:
                        yield Delegate(loop_updates)  # the loop's updates, read in place
                finally:
                    run._sink = None  # pyright: ignore[reportPrivateUsage]  # the agent owns the run's event sink
                response = reading(recorded).response = await self.commit()
            finally:
                if turn is not None:
                    turn.release()
            if agent.context_providers:
                # after_run sees the response; the caller's context keeps the stream.
                await self.after_run(attrs.evolve(context, result=response))
        except BaseException as exc:
            if observers:
                await observers.run_ended(run.run_id, agent.name, error=exc)
            raise
        if observers:
            await observers.run_ended(run.run_id, agent.name, response)

    # -- the steps --------------------------------------------------------------------

    async def prepare(self) -> None:
        """History, context providers, a paused run's decisions and the run's options,
        worked into the tool loop's starting state."""
        agent = self.agent
        context = self.context
        session = context.session
        history: list[Message] = []
        view: HistoryView | None = None
        covered: frozenset[str] = frozenset()
        store: Any = agent.history
        if session is not None:
            check_session_store(session, store, agent.name)
        if store is not None and session is not None and not session.service_conversation_id:
            # The compacted view: what compaction records leave of the log.
            view = await load_view(store, session.session_id)
            history = list(view.messages)
            covered = view.covered_call_ids
        pending = (
            None
            if session is None
            else live_pause(history, load_pause(session), context.messages, covered)
        )
        context.messages = checked_input(
            history,
            context.messages,
            service_history=session is not None and bool(session.service_conversation_id),
            paused=pending is not None,
            covered=covered,
        )
        providers = agent.context_providers
        # Messages a context provider adds are context for this run, not conversation:
        # sent, never stored. The input is kept alive so its ids stay unique.
        original = list(context.messages) if providers else None
        for provider in providers:
            before = getattr(provider, "before_run", None)
            if before is not None:
                await before(context)
        input_messages, decisions = split_decisions(context.messages)
        stored = input_messages
        added: list[Message] = []
        if original is not None:
            own = {id(m) for m in original}
            stored, _ = split_decisions([m for m in context.messages if id(m) in own])
            added = [m for m in context.messages if id(m) not in own]
        if view is not None and (view.next_position or added):
            # Where each transcript message came from, for compaction's edits.
            ledger = TranscriptLedger(view.messages, view.positions, view.next_position)
            ledger.add_context(added)
            context.run._ledger = ledger  # pyright: ignore[reportPrivateUsage]  # the kernel's own ledger
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
            if (
                agent.tool_providers
                or len(run_tools) != len(agent_tools)
                or not all(map(is_, run_tools, agent_tools))
            ):
                # Tool providers, run tools, middleware or a context provider changed
                # the tools: ask the providers, then check everything again.
                run_tools = normalize_tools(await provided_tools(run_tools, context))
                check_unique_names(run_tools, "this run's tools")
            else:
                tool_index = self.runtime.tool_index(agent_tools)
            options["tools"] = run_tools
        if decisions and pending is not None:
            check_paused_tools(pending, run_tools or (), decisions)
        if session is not None and session.service_conversation_id:
            options.setdefault("conversation_id", session.service_conversation_id)
        self.input = stored
        self.options = options
        self.state = LoopRun(
            client=agent.client,
            messages=[*history, *input_messages],
            options=options,
            stream=context.stream,
            run=context.run,
            pipelines=self.pipelines,
            config=self.config,
            return_directly=context.return_directly,
            observers=self.runtime.observers,
            pending=pending,
            decisions=decisions,
            decline_pending=decline_pending,
            own_options=True,
            tool_index=tool_index,
        )

    async def commit(self) -> AgentResponse[Any]:
        """Record the finished run: session state, then history, in one step each."""
        context = self.context
        state = self.state
        chat = state.summary()
        response_format = self.options.get("response_format")
        # Parsed before anything is recorded: output that does not fit fails the run,
        # and a failed run leaves no trace.
        value = (
            parse_answer(response_format, chat.messages, from_tool=state.direct_tool)
            if response_format is not None and state.paused is None
            else None
        )
        session = context.session
        if session is not None:
            conversation_id = chat.conversation_id or session.service_conversation_id
            store: Any = self.agent.history
            if store is not None and not conversation_id:
                # History first: if the store fails, the session still matches it.
                produced = state.produced
                resumed = state.resumed
                if resumed is not None:
                    # The results of a resumed batch answer calls already stored: they go
                    # before this run's input (which may be a new user message).
                    turn = [resumed, *self.input, *(m for m in produced if m is not resumed)]
                else:
                    turn = [*self.input, *produced]
                ledger = context.run._ledger  # pyright: ignore[reportPrivateUsage]  # the kernel's own ledger
                if ledger is not None and ledger.edits:
                    # Compaction edited the transcript: its records go with the turn, in
                    # the same append, so no record exists without its turn.
                    kept, index = indexed_history_view(turn)
                    records = ledger.records(
                        index,
                        len(kept),
                        run_id=context.run.run_id,
                        model=getattr(chat, "model", None),
                    )
                    await store.append(session.session_id, [*kept, *records])
                else:
                    await store.append(session.session_id, history_view(turn))
                bind_history_store(session, store, self.agent.name)
            session.service_conversation_id = conversation_id
            if state.paused is not None:
                save_pause(session, state.paused, context.run.locals_dict())
            else:
                clear_pause(session)
        return agent_response(
            chat.messages,
            chat.response_id,
            self.agent.name,
            chat.finish_reason,
            chat.usage,
            chat.created_at,
            value,
            tuple(context.run.events),
            chat.additional_properties,
        )

    async def after_run(self, context: AgentContext) -> None:
        """The context providers' ``after_run``, in reverse order."""
        for provider in reversed(self.agent.context_providers):
            after = getattr(provider, "after_run", None)
            if after is not None:
                await after(context)


async def load_view(store: Any, session_id: str) -> HistoryView:
    """A session's compacted view: from the store when it reads views itself
    (:class:`~agentcore.protocols.SupportsHistoryView`), else replayed from its log."""
    read_view = getattr(store, "load_view", None)
    if read_view is not None:
        view: HistoryView = await read_view(session_id)
        return view
    return compacted_view(await store.load(session_id))


async def provided_tools(items: Sequence[Any], context: AgentContext) -> list[Any]:
    """``items`` with each tool provider replaced by the tools it gives this run.

    A name two sources share raises ``ValueError`` naming both, before any call.
    """
    own, providers = split_tool_providers(items)
    if not providers:
        return own
    tools = list(own)
    source = dict.fromkeys(_names(own), "the agent's and the run's own tools")
    for provider in providers:
        given = list(await provider.get_tools(context))
        for name in _names(given):
            if name in source:
                raise ValueError(
                    f"two tools named {name!r}: one from {source[name]}, one from "
                    f"{provider!r}; give a toolset a prefix (tool_prefix=...) or filter "
                    f"one of them out"
                )
            source[name] = repr(provider)
        tools.extend(given)
    return tools


def _names(tools: Sequence[Any]) -> list[str]:
    names: list[str] = []
    for item in tools:
        if isinstance(item, Mapping):
            name: object = cast("Mapping[str, Any]", item).get("name")
        elif is_tool_provider(item):
            continue
        else:
            name = getattr(item, "name", None)
        if isinstance(name, str):
            names.append(name)
    return names


def check_unique_names(tools: Sequence[Any], where: str) -> None:
    """Raise ``ValueError`` naming the first tool name used twice in ``tools``
    (tool providers are not tools: what they give is checked when a run asks)."""
    seen: set[str] = set()
    for name in _names(tools):
        if name in seen:
            raise ValueError(
                f"two tools named {name!r} in {where}; tool names must be unique — rename one "
                "with @tool(name=...)"
            )
        seen.add(name)
