"""The Agent: a chat client, tools, middleware and history composed into runs.

An :class:`Agent` holds configuration only; every run gets its own contexts, so
one instance serves any number of concurrent runs. The request flows inward:
agent middleware, then the run core (history, context providers, options), then
the tool loop, whose model calls pass through chat middleware and whose tool
calls pass through function middleware.
"""

from __future__ import annotations

from collections.abc import Awaitable, Mapping, Sequence
from contextlib import AsyncExitStack
from typing import TYPE_CHECKING, Any, Generic, Literal, cast, overload

from typing_extensions import Self, TypeVar

from agentcore._agent.input import normalize_input
from agentcore._agent.run import AgentRun, AgentRuntime, check_unique_names
from agentcore._agent.tool_providers import AgentTool
from agentcore._fastpaths import agent_context, agent_updates
from agentcore._loop.config import (
    DEFAULT_CONFIGURATION,
    FunctionInvocationConfiguration,
    as_configuration,
)
from agentcore._run_context import RunContext, bind_deps
from agentcore._seams import AgentInput
from agentcore._sessions.session import AgentSession, saved_locals
from agentcore._sessions.turns import SessionTurns
from agentcore._streams.stream import ResponseStream
from agentcore._types.options import ChatOptions, merge_options
from agentcore._types.responses import AgentResponse, AgentResponseUpdate
from agentcore.middleware._contexts import AgentContext
from agentcore.middleware._pipeline import PipelineCache, Pipelines, middleware_list
from agentcore.middleware._shapes import Middleware
from agentcore.observers import ObserverSet
from agentcore.protocols import ContextProvider, HistoryStore, SupportsGetResponse
from agentcore.tools import normalize_tools
from agentcore.tools._normalize import split_tool_providers

if TYPE_CHECKING:
    from agentcore.structured import JsonSchemaOptions
    from agentcore.tools import FunctionTool

__all__ = ["Agent"]

ResponseT = TypeVar("ResponseT", default=None)
DepsT = TypeVar("DepsT", default=Any)

_NO_DEPS: Any = object()  # run(deps=...) not given


class Agent(Generic[DepsT]):
    """An LLM agent: a chat client plus instructions, tools, middleware and history.

    ``run(...)`` returns an awaitable :class:`AgentResponse`, or with
    ``stream=True`` a :class:`ResponseStream` of :class:`AgentResponseUpdate`.
    Middleware given here runs outside middleware given to ``run``. With a
    ``history`` store, runs that share a session see each other's messages;
    concurrent runs on one session are serialized (the second waits for the first).

    ``deps_type=Deps`` makes it an ``Agent[Deps]``: ``run(..., deps=...)`` must then
    be a ``Deps``, which tools read as ``ToolContext[Deps].deps`` and middleware as
    ``context.deps``. Deps are never saved with a session or a paused run.
    """

    def __init__(
        self,
        client: SupportsGetResponse[Any],
        instructions: str | None = None,
        *,
        name: str | None = None,
        description: str | None = None,
        tools: Sequence[AgentTool] = (),
        middleware: Sequence[Middleware] = (),
        default_options: Mapping[str, Any] | None = None,
        context_providers: Sequence[ContextProvider] = (),
        history: HistoryStore | None = None,
        tool_loop: FunctionInvocationConfiguration | None = None,
        observers: Sequence[object] = (),
        deps_type: type[DepsT] | None = None,
    ) -> None:
        if not isinstance(client, SupportsGetResponse):
            raise TypeError(_not_a_client(client))
        if instructions is not None and not isinstance(instructions, str):
            raise TypeError(f"instructions must be a str, got {type(instructions).__name__}")
        for provider in context_providers:
            if not (hasattr(provider, "before_run") or hasattr(provider, "after_run")):
                raise TypeError(
                    f"{provider!r} is not a context provider: it needs before_run and/or after_run"
                )
        if history is not None and not (hasattr(history, "load") and hasattr(history, "append")):
            raise TypeError(f"{history!r} is not a history store: it needs load() and append()")
        if deps_type is not None and not isinstance(deps_type, type):
            raise TypeError(
                f"deps_type must be a class (the type of run(..., deps=...)), got {deps_type!r}"
            )
        self.deps_type = deps_type
        self.client = client
        self.instructions = instructions
        self._name = name
        self._description = description
        self._entered = 0
        self._exit_stack: AsyncExitStack | None = None
        self._tool_providers: tuple[Any, ...] = ()
        self.tools = tools
        self.default_options: dict[str, Any] = merge_options(default_options)
        self.context_providers: tuple[ContextProvider, ...] = tuple(context_providers)
        self.history = history
        self.tool_loop: FunctionInvocationConfiguration = (
            DEFAULT_CONFIGURATION if tool_loop is None else as_configuration(tool_loop, "tool_loop")
        )
        self.middleware = middleware
        # Shared by every run: observers, the turn queue of sessions, and the
        # conversion of streamed chat updates into this agent's updates.
        self._runtime = AgentRuntime(ObserverSet(observers), SessionTurns(), agent_updates(name))

    @property
    def tools(self) -> tuple[Any, ...]:
        """The agent's tools. Assigning a new sequence checks it and applies to later runs."""
        return self._tools

    @tools.setter
    def tools(self, tools: Sequence[AgentTool]) -> None:
        own_tools, providers = split_tool_providers(tools)
        if self._entered and tuple(providers) != self._tool_providers:
            raise RuntimeError(
                "the agent's tool providers cannot change inside `async with agent:` (the "
                "new ones would never be entered); assign the tools before entering the agent"
            )
        # Providers stay in the list, in no particular place: each run asks them.
        normalized = (*normalize_tools(own_tools), *providers)
        check_unique_names(normalized, "the agent's tools")
        self._tools = normalized
        self._tool_providers = tuple(providers)

    @property
    def middleware(self) -> tuple[Middleware, ...]:
        """The agent's middleware. Assigning a new list checks it and applies to later runs."""
        return self._middleware

    @middleware.setter
    def middleware(self, middleware: Sequence[Middleware]) -> None:
        items = middleware_list(middleware, "middleware")
        self._pipelines = Pipelines.build(items)
        self._pipeline_cache = PipelineCache()
        self._middleware: tuple[Middleware, ...] = cast("tuple[Middleware, ...]", items)

    @property
    def name(self) -> str | None:
        """The agent's name (used for attribution and as a tool name)."""
        return self._name

    @property
    def description(self) -> str | None:
        """What the agent does (used when it is a tool of another agent)."""
        return self._description

    @property
    def tool_providers(self) -> tuple[Any, ...]:
        """The tool providers among the agent's tools: each run asks them for tools."""
        return self._tool_providers

    async def __aenter__(self) -> Self:
        """Enter the tool providers that need a lifecycle (an MCP connection, say).

        Nested and repeated ``async with agent:`` blocks share one entry: the
        providers are left when the outermost block ends.
        """
        if self._entered == 0:
            stack = AsyncExitStack()
            try:
                for provider in self._tool_providers:
                    if hasattr(provider, "__aenter__") and hasattr(provider, "__aexit__"):
                        await stack.enter_async_context(provider)
            except BaseException:
                await stack.aclose()
                raise
            self._exit_stack = stack
        self._entered += 1
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self._entered -= 1
        if self._entered == 0 and self._exit_stack is not None:
            stack, self._exit_stack = self._exit_stack, None
            await stack.aclose()

    def create_session(self, *, session_id: str | None = None) -> AgentSession:
        """A new session for a conversation with this agent."""
        return AgentSession() if session_id is None else AgentSession(session_id=session_id)

    # A JSON-schema response_format gives decoded JSON (Any), a type T gives T, and
    # no response_format gives None. Schema overloads first: a type is no Mapping.
    @overload
    def run(
        self,
        messages: AgentInput | None = None,
        *,
        session: AgentSession | None = None,
        stream: Literal[False] = False,
        options: JsonSchemaOptions,
        tools: Sequence[AgentTool] | None = None,
        middleware: Sequence[Middleware] | None = None,
        tool_loop: FunctionInvocationConfiguration | None = None,
        deps: DepsT = ...,
    ) -> Awaitable[AgentResponse[Any]]: ...

    @overload
    def run(
        self,
        messages: AgentInput | None = None,
        *,
        session: AgentSession | None = None,
        stream: Literal[False] = False,
        options: ChatOptions[ResponseT] | None = None,
        tools: Sequence[AgentTool] | None = None,
        middleware: Sequence[Middleware] | None = None,
        tool_loop: FunctionInvocationConfiguration | None = None,
        deps: DepsT = ...,
    ) -> Awaitable[AgentResponse[ResponseT]]: ...

    @overload
    def run(
        self,
        messages: AgentInput | None = None,
        *,
        session: AgentSession | None = None,
        stream: Literal[True],
        options: JsonSchemaOptions,
        tools: Sequence[AgentTool] | None = None,
        middleware: Sequence[Middleware] | None = None,
        tool_loop: FunctionInvocationConfiguration | None = None,
        deps: DepsT = ...,
    ) -> ResponseStream[AgentResponseUpdate, AgentResponse[Any]]: ...

    @overload
    def run(
        self,
        messages: AgentInput | None = None,
        *,
        session: AgentSession | None = None,
        stream: Literal[True],
        options: ChatOptions[ResponseT] | None = None,
        tools: Sequence[AgentTool] | None = None,
        middleware: Sequence[Middleware] | None = None,
        tool_loop: FunctionInvocationConfiguration | None = None,
        deps: DepsT = ...,
    ) -> ResponseStream[AgentResponseUpdate, AgentResponse[ResponseT]]: ...

    @overload
    def run(
        self,
        messages: AgentInput | None = None,
        *,
        session: AgentSession | None = None,
        stream: bool,
        options: JsonSchemaOptions,
        tools: Sequence[AgentTool] | None = None,
        middleware: Sequence[Middleware] | None = None,
        tool_loop: FunctionInvocationConfiguration | None = None,
        deps: DepsT = ...,
    ) -> (
        Awaitable[AgentResponse[Any]] | ResponseStream[AgentResponseUpdate, AgentResponse[Any]]
    ): ...

    @overload
    def run(
        self,
        messages: AgentInput | None = None,
        *,
        session: AgentSession | None = None,
        stream: bool,
        options: ChatOptions[ResponseT] | None = None,
        tools: Sequence[AgentTool] | None = None,
        middleware: Sequence[Middleware] | None = None,
        tool_loop: FunctionInvocationConfiguration | None = None,
        deps: DepsT = ...,
    ) -> (
        Awaitable[AgentResponse[ResponseT]]
        | ResponseStream[AgentResponseUpdate, AgentResponse[ResponseT]]
    ): ...

    def run(
        self,
        messages: AgentInput | None = None,
        *,
        session: AgentSession | None = None,
        stream: bool = False,
        options: Mapping[str, Any] | None = None,
        tools: Sequence[AgentTool] | None = None,
        middleware: Sequence[Middleware] | None = None,
        tool_loop: FunctionInvocationConfiguration | None = None,
        deps: DepsT = _NO_DEPS,
    ) -> Awaitable[AgentResponse[Any]] | ResponseStream[AgentResponseUpdate, AgentResponse[Any]]:
        """Run one turn of the conversation (see the class docstring).

        ``deps`` reaches tools (``ToolContext.deps``) and middleware
        (``context.deps``) of this call only; a paused run resumed later gets the
        ``deps`` of the call that resumes it.
        """
        context = self._context(messages, session, stream, options, tools)
        if deps is not _NO_DEPS:
            self._bind_deps(context.run, deps)
        pipelines = (
            self._pipeline_cache.get(self._pipelines, middleware) if middleware else self._pipelines
        )
        config = self.tool_loop if tool_loop is None else as_configuration(tool_loop, "tool_loop")
        run = AgentRun(self, self._runtime, context, pipelines, config)
        if stream:
            if not pipelines.agent and not self._runtime.observers:
                # Nothing runs before the stream opens: the run's stream is the result.
                return run.open_stream()
            return ResponseStream.from_awaitable(run.stream())
        if pipelines.agent or self._runtime.observers:
            return run.result()
        # Nothing to wrap the run in: the core is the whole run.
        return run.run_to_end()

    @overload
    def run_sync(
        self,
        messages: AgentInput | None = None,
        *,
        session: AgentSession | None = None,
        options: JsonSchemaOptions,
        tools: Sequence[AgentTool] | None = None,
        middleware: Sequence[Middleware] | None = None,
        tool_loop: FunctionInvocationConfiguration | None = None,
        deps: DepsT = ...,
    ) -> AgentResponse[Any]: ...

    @overload
    def run_sync(
        self,
        messages: AgentInput | None = None,
        *,
        session: AgentSession | None = None,
        options: ChatOptions[ResponseT] | None = None,
        tools: Sequence[AgentTool] | None = None,
        middleware: Sequence[Middleware] | None = None,
        tool_loop: FunctionInvocationConfiguration | None = None,
        deps: DepsT = ...,
    ) -> AgentResponse[ResponseT]: ...

    def run_sync(
        self,
        messages: AgentInput | None = None,
        *,
        session: AgentSession | None = None,
        options: Mapping[str, Any] | None = None,
        tools: Sequence[AgentTool] | None = None,
        middleware: Sequence[Middleware] | None = None,
        tool_loop: FunctionInvocationConfiguration | None = None,
        deps: DepsT = _NO_DEPS,
        stream: Literal[False] = False,
    ) -> AgentResponse[Any]:
        """``run(...)`` for scripts and notebooks: blocks until the response is ready.

        Each call runs on a new asyncio event loop (through anyio), so its limits are
        those of ``asyncio.run``: it cannot be called where an event loop is already
        running (an ``async def``, a Jupyter cell: use ``await agent.run(...)``
        there; it raises ``RuntimeError`` saying so); it does not stream
        (``stream=True`` raises ``TypeError``); and anything bound to one event loop
        does not carry over to the next call (an MCP connection from
        ``async with agent:``, a pooled connection of an async SDK client), so a
        program that makes many runs should be async and ``await agent.run(...)``.
        """
        from agentcore._agent.sync import run_blocking

        return run_blocking(
            lambda: self.run(
                messages,
                session=session,
                # The overloads above typed it; the implementation takes any mapping.
                options=cast("ChatOptions[Any] | None", options),
                tools=tools,
                middleware=middleware,
                tool_loop=tool_loop,
                deps=deps,
            ),
            stream=stream,
        )

    def _bind_deps(self, run: RunContext, deps: object) -> None:
        deps_type = self.deps_type
        if deps_type is not None and not _is_instance(deps, deps_type):
            raise TypeError(
                f"deps must be a {deps_type.__qualname__} (this agent's deps_type), got "
                f"{type(deps).__qualname__}; pass run(..., deps={deps_type.__qualname__}(...))"
            )
        bind_deps(run, deps)

    def _context(
        self,
        messages: AgentInput | None,
        session: AgentSession | None,
        stream: bool,
        options: Mapping[str, Any] | None,
        tools: Sequence[AgentTool] | None,
    ) -> AgentContext:
        if session is not None and not isinstance(session, AgentSession):
            raise TypeError(
                f"session must be an AgentSession (from agent.create_session()), "
                f"got {type(session).__name__}"
            )
        run_tools = list(self.tools)
        if tools:
            extra, providers = split_tool_providers(tools)
            run_tools.extend(normalize_tools(extra))
            run_tools.extend(providers)
            check_unique_names(run_tools, "the agent's and this run's tools")
        locals_ = None if session is None else saved_locals(session)
        return agent_context(
            self,
            normalize_input(messages),
            session,
            self.instructions,
            run_tools,
            merge_options(self.default_options, options),
            stream,
            RunContext(session=session, locals=locals_),
        )

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
        from agentcore._agent.as_tool import agent_as_tool

        return agent_as_tool(self, name=name, description=description)


def _is_instance(value: object, cls: type[Any]) -> bool:
    try:
        return isinstance(value, cls)
    except TypeError:  # a class isinstance cannot check (a Protocol, say): trust the types
        return True


def _not_a_client(client: object) -> str:
    """Why ``client`` is no chat client, and what to pass instead."""
    problem = (
        "Agent needs a chat client with a get_response(messages, *, options, stream) "
        f"method, got {client!r}"
    )
    if isinstance(client, str):
        return (
            f"{problem}: a model name is not enough; pass an adapter built with it, for "
            f"example OpenAIChatClient({client.rpartition(':')[2]!r}) from agentcore_openai"
        )
    package = type(client).__module__.split(".")[0]
    adapters = {
        "openai": "agentcore_openai.OpenAIChatClient",
        "anthropic": "agentcore_anthropic.AnthropicChatClient",
    }
    if package in adapters:
        return (
            f"{problem}: that is the {package} SDK's own client; wrap it in an adapter: "
            f"{adapters[package]}(model, client=...)"
        )
    return problem
