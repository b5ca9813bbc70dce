"""The Agent: a chat client, tools, middleware and history composed into runs.

An :class:`Agent` holds configuration only; every run gets its own contexts, so
one instance serves any number of concurrent runs. The request flows inward:
agent middleware, then the run core (history, context providers, options), then
the tool loop, whose model calls pass through chat middleware and whose tool
calls pass through function middleware.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping, Sequence
from contextlib import aclosing
from typing import TYPE_CHECKING, Any, Literal, cast, overload

import attrs
from typing_extensions import TypeVar

from agentcore._contents import (
    TextContent,
    UsageContent,
)
from agentcore._contexts import AgentContext
from agentcore._history import history_view
from agentcore._input import normalize_input, split_decisions
from agentcore._loop_config import DEFAULT_CONFIGURATION, FunctionInvocationConfiguration
from agentcore._messages import Message
from agentcore._observing import ObserverSet
from agentcore._options import ChatOptions, merge_options
from agentcore._responses import (
    AgentResponse,
    AgentResponseUpdate,
    ChatResponse,
    CustomEvent,
    agent_updates,
)
from agentcore._run import RunContext
from agentcore._session_turns import SessionTurns
from agentcore._sessions import (
    AgentSession,
    clear_pause,
    load_pause,
    save_pause,
    saved_locals,
)
from agentcore._stream import Delegate, ResponseStream
from agentcore._tool_loop import (
    LoopState,
    drive,
)
from agentcore.errors import RunStateError
from agentcore.middleware import MiddlewareTermination, PipelineCache, Pipelines, run_pipeline
from agentcore.protocols import ContextProvider, HistoryStore, SupportsGetResponse
from agentcore.structured import parse_answer
from agentcore.tools import normalize_tools

if TYPE_CHECKING:
    from agentcore.structured import JsonSchemaOptions
    from agentcore.tools import FunctionTool

__all__ = ["Agent"]

ResponseT = TypeVar("ResponseT", default=None)


class _Prepared:
    """What the run core worked out before the tool loop starts."""

    __slots__ = ("input", "options", "state")

    def __init__(self, input: list[Message], options: dict[str, Any], state: LoopState) -> None:
        self.input = input
        self.options = options
        self.state = state


def _to_agent_response(value: Any, agent_name: str | None) -> AgentResponse[Any]:
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


async def _replay_agent(response: AgentResponse[Any]) -> AsyncGenerator[AgentResponseUpdate, None]:
    for event in response.events:
        yield AgentResponseUpdate(event=event, agent_name=response.agent_name)
    for message in response.messages:
        yield AgentResponseUpdate(
            contents=message.contents,
            role=message.role,
            author_name=message.author_name,
            message_id=message.message_id,
            agent_name=response.agent_name,
            response_id=response.response_id,
        )
    yield AgentResponseUpdate(
        contents=(UsageContent(response.usage),) if response.usage is not None else (),
        finish_reason=response.finish_reason,
        agent_name=response.agent_name,
    )


def _on_agent_termination(context: AgentContext, termination: MiddlewareTermination) -> None:
    context.metadata["terminated"] = True
    if termination.has_result:
        # A response in both modes: a streaming run replays it (see _run_streaming).
        context.result = _to_agent_response(termination.result, context.agent.name)


def _final_result(context: AgentContext) -> AgentResponse[Any]:
    """The response a non-streaming run returns, with every event the run emitted."""
    result = context.result
    if not isinstance(result, AgentResponse):
        raise TypeError(
            f"an agent middleware left a non-AgentResponse result in a non-streaming run: "
            f"{result!r}"
        )
    return _with_run_events(result, context.run)  # pyright: ignore[reportUnknownArgumentType]  # isinstance on a generic


def _with_run_events(response: AgentResponse[Any], run: RunContext) -> AgentResponse[Any]:
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


class Agent:
    """An LLM agent: a chat client plus instructions, tools, middleware and history.

    ``run(...)`` returns an awaitable :class:`AgentResponse`, or with
    ``stream=True`` a :class:`ResponseStream` of :class:`AgentResponseUpdate`.
    Middleware given here runs outside middleware given to ``run``. With a
    ``history`` store, runs that share a session see each other's messages;
    concurrent runs on one session are serialized (the second waits for the first).
    """

    def __init__(
        self,
        client: SupportsGetResponse[Any],
        instructions: str | None = None,
        *,
        name: str | None = None,
        description: str | None = None,
        tools: Sequence[Any] = (),
        middleware: Sequence[object] = (),
        default_options: Mapping[str, Any] | None = None,
        context_providers: Sequence[ContextProvider] = (),
        history: HistoryStore | None = None,
        tool_loop: FunctionInvocationConfiguration | None = None,
        observers: Sequence[object] = (),
    ) -> None:
        if not isinstance(client, SupportsGetResponse):
            raise TypeError(
                f"Agent needs a chat client with a get_response(messages, *, options, stream) "
                f"method, got {client!r}"
            )
        if instructions is not None and not isinstance(instructions, str):
            raise TypeError(f"instructions must be a str, got {type(instructions).__name__}")
        for provider in context_providers:
            if not (hasattr(provider, "before_run") or hasattr(provider, "after_run")):
                raise TypeError(
                    f"{provider!r} is not a context provider: it needs before_run and/or after_run"
                )
        if history is not None and not (hasattr(history, "load") and hasattr(history, "append")):
            raise TypeError(f"{history!r} is not a history store: it needs load() and append()")
        self.client = client
        self.instructions = instructions
        self._name = name
        self._description = description
        self.tools = tuple(normalize_tools(tools))
        _check_unique_names(self.tools, "the agent's tools")
        self.default_options: dict[str, Any] = merge_options(default_options)
        self.context_providers = tuple(context_providers)
        self.history = history
        self.tool_loop = tool_loop or DEFAULT_CONFIGURATION
        self.middleware = tuple(middleware)
        self._pipelines = Pipelines.build(self.middleware)
        self._pipeline_cache = PipelineCache()
        self._observers = ObserverSet(observers)
        self._session_turns = SessionTurns()
        # Turns each streamed chat update into this agent's update (stateless, shared).
        self._to_agent_update = agent_updates(name)

    @property
    def name(self) -> str | None:
        """The agent's name (used for attribution and as a tool name)."""
        return self._name

    @property
    def description(self) -> str | None:
        """What the agent does (used when it is a tool of another agent)."""
        return self._description

    def create_session(self, *, session_id: str | None = None) -> AgentSession:
        """A new session for a conversation with this agent."""
        return AgentSession() if session_id is None else AgentSession(session_id=session_id)

    # A JSON-schema response_format gives decoded JSON (Any), a type T gives T, and
    # no response_format gives None. Schema overloads first: a type is no Mapping.
    @overload
    def run(
        self,
        messages: Any = None,
        *,
        session: AgentSession | None = None,
        stream: Literal[False] = False,
        options: JsonSchemaOptions,
        tools: Sequence[Any] | None = None,
        middleware: Sequence[object] | None = None,
        tool_loop: FunctionInvocationConfiguration | None = None,
    ) -> Awaitable[AgentResponse[Any]]: ...

    @overload
    def run(
        self,
        messages: Any = None,
        *,
        session: AgentSession | None = None,
        stream: Literal[False] = False,
        options: ChatOptions[ResponseT] | None = None,
        tools: Sequence[Any] | None = None,
        middleware: Sequence[object] | None = None,
        tool_loop: FunctionInvocationConfiguration | None = None,
    ) -> Awaitable[AgentResponse[ResponseT]]: ...

    @overload
    def run(
        self,
        messages: Any = None,
        *,
        session: AgentSession | None = None,
        stream: Literal[True],
        options: JsonSchemaOptions,
        tools: Sequence[Any] | None = None,
        middleware: Sequence[object] | None = None,
        tool_loop: FunctionInvocationConfiguration | None = None,
    ) -> ResponseStream[AgentResponseUpdate, AgentResponse[Any]]: ...

    @overload
    def run(
        self,
        messages: Any = None,
        *,
        session: AgentSession | None = None,
        stream: Literal[True],
        options: ChatOptions[ResponseT] | None = None,
        tools: Sequence[Any] | None = None,
        middleware: Sequence[object] | None = None,
        tool_loop: FunctionInvocationConfiguration | None = None,
    ) -> ResponseStream[AgentResponseUpdate, AgentResponse[ResponseT]]: ...

    @overload
    def run(
        self,
        messages: Any = None,
        *,
        session: AgentSession | None = None,
        stream: bool,
        options: JsonSchemaOptions,
        tools: Sequence[Any] | None = None,
        middleware: Sequence[object] | None = None,
        tool_loop: FunctionInvocationConfiguration | None = None,
    ) -> (
        Awaitable[AgentResponse[Any]] | ResponseStream[AgentResponseUpdate, AgentResponse[Any]]
    ): ...

    @overload
    def run(
        self,
        messages: Any = None,
        *,
        session: AgentSession | None = None,
        stream: bool,
        options: ChatOptions[ResponseT] | None = None,
        tools: Sequence[Any] | None = None,
        middleware: Sequence[object] | None = None,
        tool_loop: FunctionInvocationConfiguration | None = None,
    ) -> (
        Awaitable[AgentResponse[ResponseT]]
        | ResponseStream[AgentResponseUpdate, AgentResponse[ResponseT]]
    ): ...

    def run(
        self,
        messages: Any = None,
        *,
        session: AgentSession | None = None,
        stream: bool = False,
        options: Mapping[str, Any] | None = None,
        tools: Sequence[Any] | None = None,
        middleware: Sequence[object] | None = None,
        tool_loop: FunctionInvocationConfiguration | None = None,
    ) -> Awaitable[AgentResponse[Any]] | ResponseStream[AgentResponseUpdate, AgentResponse[Any]]:
        """Run one turn of the conversation (see the class docstring)."""
        context = self._context(messages, session, stream, options, tools)
        pipelines = (
            self._pipeline_cache.get(self._pipelines, middleware) if middleware else self._pipelines
        )
        config = tool_loop or self.tool_loop
        if stream:
            return ResponseStream.from_awaitable(self._run_streaming(context, pipelines, config))
        if pipelines.agent or self._observers:
            return self._run(context, pipelines, config)
        # Nothing to wrap the run in: the core is the whole run (one coroutine less).
        return self._core(context, pipelines, config)

    # -- run setup ----------------------------------------------------------------

    def _context(
        self,
        messages: Any,
        session: AgentSession | None,
        stream: bool,
        options: Mapping[str, Any] | None,
        tools: Sequence[Any] | None,
    ) -> AgentContext:
        if session is not None and not isinstance(session, AgentSession):
            raise TypeError(
                f"session must be an AgentSession (from agent.create_session()), "
                f"got {type(session).__name__}"
            )
        run_tools = list(self.tools)
        if tools:
            run_tools.extend(normalize_tools(tools))
            _check_unique_names(run_tools, "the agent's and this run's tools")
        locals_ = None if session is None else saved_locals(session)
        # Positional, in field order (agent, messages, session, instructions, tools,
        # options, stream, run): built for every run.
        return AgentContext(
            self,
            normalize_input(messages),
            session,
            self.instructions,
            run_tools,
            merge_options(self.default_options, options),
            stream,
            RunContext(session=session, locals=locals_),
        )

    async def _run(
        self,
        context: AgentContext,
        pipelines: Pipelines,
        config: FunctionInvocationConfiguration,
    ) -> AgentResponse[Any]:
        observers = self._observers
        if observers:
            from agentcore.observers import RunStarted

            await observers.notify(
                "on_run_start",
                RunStarted(context.run.run_id, self._name, tuple(context.messages)),
            )
        try:
            if pipelines.agent:

                async def core(ctx: AgentContext) -> None:
                    await self._core(ctx, pipelines, config)

                await run_pipeline(pipelines.agent, context, core, _on_agent_termination)
                result = _final_result(context)
            else:
                result = await self._core(context, pipelines, config)  # no layer to wrap
        except BaseException as exc:
            if observers:
                from agentcore.observers import RunEnded

                await observers.notify(
                    "on_run_end", RunEnded(context.run.run_id, self._name, error=exc)
                )
            raise
        if observers:
            from agentcore.observers import RunEnded

            await observers.notify("on_run_end", RunEnded(context.run.run_id, self._name, result))
        return result  # pyright: ignore[reportUnknownVariableType]  # isinstance on a generic

    async def _prepare(
        self,
        context: AgentContext,
        pipelines: Pipelines,
        config: FunctionInvocationConfiguration,
    ) -> _Prepared:
        session = context.session
        history: list[Message] = []
        store: Any = self.history
        if store is not None and session is not None and not session.service_conversation_id:
            history = list(await store.load(session.session_id))
        providers = self.context_providers
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
        if run_tools:
            agent_tools = self.tools
            if len(run_tools) != len(agent_tools) or any(
                a is not b for a, b in zip(run_tools, agent_tools, strict=False)
            ):
                # Middleware or a context provider changed the tools: check them again.
                run_tools = normalize_tools(run_tools)
                _check_unique_names(run_tools, "this run's tools")
            options["tools"] = run_tools
        if session is not None and session.service_conversation_id:
            options.setdefault("conversation_id", session.service_conversation_id)
        state = LoopState(
            client=self.client,
            messages=[*history, *input_messages],
            options=options,
            stream=context.stream,
            run=context.run,
            pipelines=pipelines,
            config=config,
            return_directly=context.return_directly,
            observers=self._observers,
            pending=pending,
            decisions=decisions,
            decline_pending=decline_pending,
            own_options=True,
        )
        return _Prepared(stored, options, state)

    async def _commit(self, context: AgentContext, prepared: _Prepared) -> AgentResponse[Any]:
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
            store: Any = self.history
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
                save_pause(session, state.paused, context.run.locals.to_dict())
            else:
                clear_pause(session)
        return AgentResponse(
            messages=chat.messages,
            response_id=chat.response_id,
            agent_name=self._name,
            finish_reason=chat.finish_reason,
            usage=chat.usage,
            created_at=chat.created_at,
            value=value,
            events=tuple(context.run.events),
            additional_properties=chat.additional_properties,
        )

    async def _after(self, context: AgentContext) -> None:
        for provider in reversed(self.context_providers):
            after = getattr(provider, "after_run", None)
            if after is not None:
                await after(context)

    async def _core(
        self,
        context: AgentContext,
        pipelines: Pipelines,
        config: FunctionInvocationConfiguration,
    ) -> AgentResponse[Any]:
        """The run itself: history, providers, the tool loop, the commit."""
        session_id = None if context.session is None else context.session.session_id
        turns = self._session_turns
        if session_id is not None and not turns.try_enter(session_id):
            await turns.enter(session_id)  # runs of one session take turns
        try:
            prepared = await self._prepare(context, pipelines, config)
            async for _ in drive(prepared.state):
                pass  # pragma: no cover  # a non-streaming run yields nothing
            response = context.result = await self._commit(context, prepared)
        finally:
            if session_id is not None:
                turns.leave(session_id)
        if self.context_providers:
            await self._after(context)
            return _final_result(context)  # after_run may emit events or replace it
        return response

    # -- streaming ------------------------------------------------------------------

    async def _run_streaming(
        self,
        context: AgentContext,
        pipelines: Pipelines,
        config: FunctionInvocationConfiguration,
    ) -> ResponseStream[AgentResponseUpdate, AgentResponse[Any]]:
        observers = self._observers
        run = context.run
        if observers:
            from agentcore.observers import RunStarted

            await observers.notify(
                "on_run_start", RunStarted(run.run_id, self._name, tuple(context.messages))
            )

        async def core(ctx: AgentContext) -> None:
            ctx.result = self._open_stream(ctx, pipelines, config)

        try:
            await run_pipeline(pipelines.agent, context, core, _on_agent_termination)
        except BaseException as exc:
            if observers:
                from agentcore.observers import RunEnded

                await observers.notify("on_run_end", RunEnded(run.run_id, self._name, error=exc))
            raise
        result = context.result
        if isinstance(result, ResponseStream):
            return result
        # Short-circuited or terminated with a response: replay it as the stream.
        if result is None:
            result = AgentResponse(agent_name=self._name)
        response = _with_run_events(result, run)
        return ResponseStream(
            self._replay_to_end(response, run), finalizer=lambda _updates: response
        )

    async def _replay_to_end(
        self, response: AgentResponse[Any], run: RunContext
    ) -> AsyncGenerator[AgentResponseUpdate, None]:
        async for update in _replay_agent(response):
            yield update
        if self._observers:
            from agentcore.observers import RunEnded

            await self._observers.notify("on_run_end", RunEnded(run.run_id, self._name, response))

    def _open_stream(
        self,
        context: AgentContext,
        pipelines: Pipelines,
        config: FunctionInvocationConfiguration,
    ) -> ResponseStream[AgentResponseUpdate, AgentResponse[Any]]:
        """The run as a stream: the loop's updates, each made an agent update.

        Read as the run produced them, the updates fold into the response the run
        commits, so that is the final value; transforms stacked by agent
        middleware get the fold of what they produced.
        """
        record = _StreamRecord()
        stream: ResponseStream[AgentResponseUpdate, AgentResponse[Any]] = ResponseStream._of(  # pyright: ignore[reportPrivateUsage]  # the agent builds its run's stream
            self._stream_source(context, pipelines, config, record),
            finalizer=self._stream_finalizer(context),
            direct=record.committed,
            transform=self._to_agent_update,
        )
        record.stream = stream
        return stream

    def _stream_finalizer(
        self, context: AgentContext
    ) -> Callable[[Sequence[AgentResponseUpdate]], AgentResponse[Any]]:
        def finalize(updates: Sequence[AgentResponseUpdate]) -> AgentResponse[Any]:
            folded = AgentResponse.from_updates(updates)
            response_format = context.options.get("response_format")
            if response_format is None or folded.approval_requests:
                return folded
            value = parse_answer(response_format, folded.messages)
            if value is None:
                return folded
            return AgentResponse(
                messages=folded.messages,
                response_id=folded.response_id,
                agent_name=folded.agent_name,
                finish_reason=folded.finish_reason,
                usage=folded.usage,
                created_at=folded.created_at,
                value=value,
                events=folded.events,
                additional_properties=folded.additional_properties,
            )

        return finalize

    async def _stream_source(
        self,
        context: AgentContext,
        pipelines: Pipelines,
        config: FunctionInvocationConfiguration,
        record: _StreamRecord,
    ) -> AsyncGenerator[AgentResponseUpdate | Delegate, None]:
        observers = self._observers
        run = context.run
        session_id = None if context.session is None else context.session.session_id
        turns = self._session_turns
        try:
            if session_id is not None and not turns.try_enter(session_id):
                await turns.enter(session_id)
            try:
                prepared = await self._prepare(context, pipelines, config)
                stream = record.stream
                assert stream is not None
                name = self._name

                def deliver(event: CustomEvent) -> None:
                    # In order with the rest: before the next update read.
                    stream._inject(AgentResponseUpdate(event=event, agent_name=name))  # pyright: ignore[reportPrivateUsage]  # the agent owns its run's stream

                # Events agent middleware or context providers emitted before the
                # stream started come first.
                for event in run.events:
                    deliver(event)
                run._sink = deliver  # pyright: ignore[reportPrivateUsage]  # the agent owns the run's event sink
                try:
                    async with aclosing(drive(prepared.state)) as loop_updates:
                        yield Delegate(loop_updates)  # the loop's updates, read in place
                finally:
                    run._sink = None  # pyright: ignore[reportPrivateUsage]  # the agent owns the run's event sink
                response = record.response = await self._commit(context, prepared)
            finally:
                if session_id is not None:
                    turns.leave(session_id)
            if self.context_providers:
                # after_run sees the response; the caller's context keeps the stream.
                await self._after(attrs.evolve(context, result=response))
        except BaseException as exc:
            if observers:
                from agentcore.observers import RunEnded

                await observers.notify("on_run_end", RunEnded(run.run_id, self._name, error=exc))
            raise
        if observers:
            from agentcore.observers import RunEnded

            await observers.notify("on_run_end", RunEnded(run.run_id, self._name, response))

    # -- composition ----------------------------------------------------------------

    def as_tool(
        self,
        *,
        name: str | None = None,
        description: str | None = None,
    ) -> FunctionTool[..., Any]:
        """This agent as a function tool of another agent.

        The tool takes one ``task`` string, runs this agent on it in a fresh
        session, and returns the answer's text. The inner run's usage is added to
        the outer run's usage.
        """
        from agentcore._agent_tool import agent_as_tool

        return agent_as_tool(self, name=name, description=description)


class _StreamRecord:
    """A streaming run's stream, and the response it committed."""

    __slots__ = ("response", "stream")

    def __init__(self) -> None:
        self.stream: ResponseStream[AgentResponseUpdate, AgentResponse[Any]] | None = None
        self.response: AgentResponse[Any] | None = None

    def committed(self) -> AgentResponse[Any]:
        """The committed response (the stream's final value when read unchanged)."""
        if self.response is None:  # pragma: no cover  # the source ends only after committing
            raise RunStateError("the run ended without committing a response")
        return self.response


def _check_unique_names(tools: Sequence[Any], where: str) -> None:
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
