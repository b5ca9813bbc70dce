"""Durable agent runs: the engine-neutral seam.

A durable run survives a crash. The agent loop and all middleware are *workflow
code*, executed again on recovery; every model call and every tool call is one
*step* whose result the engine records and hands back on replay instead of running
it again; loading and appending a session's history are steps too. A crash loses at
most the step in flight.

An engine adapter (``agentcore_dbos``) implements :class:`DurableEngine`;
:func:`durable_agent` wraps an :class:`~agentcore.Agent` so its client, tools and
history store become steps of that engine. What crosses a step boundary is JSON made
by :mod:`agentcore.serialization`: responses, messages, tool results. Clients, tools
and middleware are code, rebuilt by every worker process from the same ``Agent``.

Step names are compatibility data (a renamed step breaks replay of runs in flight):
``<name>.model``, ``<name>.tool.<tool name>``, ``<name>.history.load``,
``<name>.history.append``.

Durable runs need asyncio: every supported engine's async API is asyncio only.
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable, Hashable, Mapping, Sequence
from typing import Any, Literal, TypeVar, cast, overload

from agentcore._agent.agent import _NO_DEPS, Agent  # _NO_DEPS: run(deps=...) not given
from agentcore._agent.tool_providers import AgentTool
from agentcore._loop.tool_calls import result_value
from agentcore._replay import JSON, DurableEngine, DurableRun, StepPolicy, StepSlot
from agentcore._run_context import RunContext
from agentcore._seams import AgentInput
from agentcore._sessions.history import store_key
from agentcore._sessions.session import AgentSession
from agentcore._streams.stream import ResponseStream
from agentcore._types.contents import (
    FunctionApprovalRequestContent,
    FunctionApprovalResponseContent,
    UserInputRequestContent,
    UserInputResponseContent,
)
from agentcore._types.messages import Message
from agentcore._types.responses import AgentResponse, ChatResponse, ChatResponseUpdate
from agentcore.errors import RunAbortedError, ToolCallRefused
from agentcore.middleware import AgentContext
from agentcore.protocols import HistoryStore, SupportsGetResponse
from agentcore.serialization import (
    SerializationError,
    from_dict,
    structure,
    to_dict,
    unstructure,
)
from agentcore.tools import FunctionTool, ToolContext, ToolResult, UserInputRequired

__all__ = [
    "DECISIONS_TOPIC",
    "JSON",
    "PENDING_KEY",
    "DurableChatClient",
    "DurableEngine",
    "DurableExecutionError",
    "DurableHistoryStore",
    "StepPolicy",
    "StepSlot",
    "ToolStepError",
    "decode_requests",
    "durable_agent",
    "durable_tool",
    "encode_decisions",
    "require_asyncio",
    "run_until_answered",
    "step",
]

PENDING_KEY = "agentcore.pending"
"""The key :func:`run_until_answered` publishes a paused run's open requests under."""
DECISIONS_TOPIC = "agentcore.decisions"
"""The topic :func:`run_until_answered` receives the caller's decisions on."""


DepsT = TypeVar("DepsT")


class DurableExecutionError(RunAbortedError):
    """A durable run cannot go on: started outside the engine's workflow context, on
    an event loop the engines do not support, replaying a history that does not
    match the code, or stopped by an error of the engine's own while it took or
    replayed a step (that error is the ``__cause__``). It ends the run; it never
    becomes a tool result."""


class ToolStepError(Exception):
    """A tool failed inside its step; raised again, the same, when the step is replayed.

    The message names the original exception's type and text, which the run
    recorded (an exception object itself does not cross a step boundary).
    """


def _check_workflow(engine: DurableEngine, what: str) -> None:
    if not engine.active():
        raise DurableExecutionError(
            f"{what} runs outside a durable run: call it from {engine.name} workflow code "
            f"(for DBOS, inside a @DBOS.workflow function), not at top level or inside a step. "
            f"A durable agent never falls back to running without durability."
        )


async def _step(
    engine: DurableEngine,
    name: str,
    body: Callable[[], Awaitable[JSON]],
    policy: StepPolicy | None = None,
    slot: StepSlot | None = None,
) -> JSON:
    """Run ``body`` as the step ``name`` (at ``slot`` when one was drawn).

    An exception of the engine's own (``engine.errors``), raised while the engine
    takes or replays the step, becomes :class:`DurableExecutionError`: a
    :class:`~agentcore.errors.RunAbortedError`, which ends the run through the tool
    loop, middleware and agents used as tools, whatever assembled the durable pieces,
    instead of reaching the model as a failed call. The engine's exception is its
    cause. Engine exceptions that are not ``Exception`` (DBOS's cancellation) already
    pass everything and stay as they are, for the engine to see.
    """
    try:
        if slot is not None:
            return await slot.step(name, body, policy=policy)
        return await engine.step(name, body, policy=policy)
    except Exception as exc:
        if not isinstance(exc, tuple(engine.errors)) or isinstance(exc, DurableExecutionError):
            raise
        raise DurableExecutionError(
            f"the {engine.name} engine stopped this durable run at step {name!r}: "
            f"{type(exc).__name__}: {exc}. The run ends: an engine failure is never "
            f"reported to the model as a failed call. If steps were renamed or reordered "
            f"while runs were in flight, finish those runs with the code that started them."
        ) from exc


def require_asyncio() -> None:
    """Raise :class:`DurableExecutionError` unless an asyncio event loop runs here.

    Engine adapters call it at their entry points, so a trio caller gets one clear
    message instead of an engine failure deep inside.
    """
    asyncio = sys.modules.get("asyncio")
    # A trio run may have imported asyncio, but no asyncio loop runs then.
    if asyncio is None or asyncio._get_running_loop() is None:  # pyright: ignore[reportPrivateUsage]  # the cheap check, as anyio does
        raise DurableExecutionError(
            "durable runs need asyncio: the durable engines' APIs are asyncio only. "
            "Run this agent under asyncio (anyio.run(..., backend='asyncio')), or use it "
            "without durable_agent() on trio."
        )


class DurableChatClient:
    """A chat client whose every call is one step of the durable run.

    The response is recorded as JSON; a replay reads it back and the model is not
    called again. A streaming call is consumed inside the step and replayed as a
    stream of the recorded response (live token deltas are not durable). An error
    of the engine's own (``engine.errors``) raises :class:`DurableExecutionError`,
    which ends the run even where the client is used without :func:`durable_agent`.
    """

    def __init__(
        self,
        client: SupportsGetResponse[Any],
        engine: DurableEngine,
        *,
        name: str,
        policy: StepPolicy | None = None,
    ) -> None:
        self.client = client
        self.engine = engine
        self.step_name: str = f"{name}.model"
        self.policy = policy

    @overload
    def get_response(
        self,
        messages: Sequence[Message],
        *,
        options: Mapping[str, Any] | None = None,
        stream: Literal[False] = False,
    ) -> Awaitable[ChatResponse[Any]]: ...

    @overload
    def get_response(
        self,
        messages: Sequence[Message],
        *,
        options: Mapping[str, Any] | None = None,
        stream: Literal[True],
    ) -> ResponseStream[ChatResponseUpdate, ChatResponse[Any]]: ...

    def get_response(
        self,
        messages: Sequence[Message],
        *,
        options: Mapping[str, Any] | None = None,
        stream: bool = False,
    ) -> Awaitable[ChatResponse[Any]] | ResponseStream[ChatResponseUpdate, ChatResponse[Any]]:
        if stream:
            return ResponseStream.from_awaitable(self._replayed(messages, options))
        return self._call(messages, options, stream=False)

    async def _replayed(
        self, messages: Sequence[Message], options: Mapping[str, Any] | None
    ) -> ResponseStream[ChatResponseUpdate, ChatResponse[Any]]:
        return ResponseStream.from_response(await self._call(messages, options, stream=True))

    async def _call(
        self, messages: Sequence[Message], options: Mapping[str, Any] | None, *, stream: bool
    ) -> ChatResponse[Any]:
        _check_workflow(self.engine, "a durable model call")
        client = self.client

        async def model_step() -> JSON:
            if stream:
                response = await client.get_response(
                    messages, options=options, stream=True
                ).get_final_response()
            else:
                response = await client.get_response(messages, options=options)
            return to_dict(response)

        data = await _step(self.engine, self.step_name, model_step, self.policy)
        return from_dict(data, ChatResponse)


def _record_tool(result: Any) -> JSON:
    return {"value": result_value(result)}


def _replay_tool(record: JSON, tool_name: str) -> Any:
    if not isinstance(record, dict):
        raise DurableExecutionError(
            f"the recorded step of tool {tool_name!r} is not a tool outcome ({record!r}); "
            f"was the step renamed or reordered while this run was in flight?"
        )
    entry = cast("dict[str, Any]", record)
    if "value" in entry:
        return entry["value"]
    if "tool_result" in entry:
        return from_dict(entry["tool_result"], ToolResult)
    if "ask" in entry:
        raise UserInputRequired(str(entry["ask"]))
    if "refused" in entry:
        raise ToolCallRefused(str(entry["refused"]))
    if "timeout" in entry:
        raise TimeoutError(str(entry["timeout"]))
    raise ToolStepError(str(entry.get("error")))


class _DurableTool(FunctionTool[..., Any]):
    """A function tool whose call is one step (see :func:`durable_tool`)."""

    _inner: FunctionTool[..., Any]
    _engine: DurableEngine
    _step_name: str
    _policy: StepPolicy | None

    async def invoke(self, arguments: Mapping[str, Any], *, context: ToolContext) -> Any:
        engine = self._engine
        _check_workflow(engine, f"durable tool {self.name!r}")
        inner = self._inner
        errors = tuple(engine.errors)

        async def tool_step() -> JSON:
            # The outcome, whatever it is, is recorded: a replay must tell the model
            # exactly what the first execution told it.
            try:
                result = await inner.invoke(arguments, context=context)
                if isinstance(result, ToolResult):
                    return {"tool_result": to_dict(result)}
                return _record_tool(result)
            except UserInputRequired as exc:
                return {"ask": exc.prompt}
            except ToolCallRefused as exc:
                return {"refused": str(exc)}
            except TimeoutError as exc:
                return {"timeout": str(exc)}
            except RunAbortedError:
                raise
            except Exception as exc:
                if isinstance(exc, errors):
                    raise
                return {"error": f"{type(exc).__name__}: {exc}"}

        durable = context.run.durable
        slot = durable.take_slot(context.call_id) if durable is not None else None
        record = await _step(engine, self._step_name, tool_step, self._policy, slot)
        return _replay_tool(record, self.name)


def durable_tool(
    tool: FunctionTool[..., Any],
    engine: DurableEngine,
    *,
    name: str,
    policy: StepPolicy | None = None,
) -> FunctionTool[..., Any]:
    """``tool`` with each call run as the step ``<name>.tool.<tool name>``.

    The copy keeps the tool's name, schema and metadata. What the call returned (or
    that it failed, timed out, was refused or asked the user something) is recorded
    as JSON and read back on replay, so a finished call never runs again. A call in
    flight when the process died runs again after recovery: give tools with side
    effects an idempotency key (``ToolContext.idempotency_key``). An error of the
    engine's own (``engine.errors``: a replay that meets another step, for one) is
    no tool failure: it raises :class:`DurableExecutionError` and ends the run, also
    in an agent assembled by hand rather than by :func:`durable_agent`.
    """
    if isinstance(tool, _DurableTool):
        return tool
    wrapped = object.__new__(_DurableTool)
    wrapped.__dict__.update(tool.__dict__)
    wrapped._inner = tool
    wrapped._engine = engine
    wrapped._step_name = f"{name}.tool.{tool.name}"
    wrapped._policy = policy
    return wrapped


async def step(run: RunContext, name: str, fn: Callable[[], Awaitable[JSON]]) -> JSON:
    """Run ``fn`` as one step of ``run``: directly in an ordinary run, or as one engine
    step named ``<agent>.<name>`` in a durable run, so a replay reads its recorded
    result instead of running it again (a summarizer's model call, a memory recall).

    ``fn`` returns a JSON value; the same run must take its steps in the same order.
    """
    durable = run.durable
    if durable is None:
        return await fn()
    return await durable.engine.step(f"{durable.name}.{name}", fn)


class DurableHistoryStore:
    """A history store whose load and append are steps of the durable run.

    A replay reads the recorded history instead of the store's current content,
    and does not append a turn whose append step finished. Appending is
    at-least-once: a crash after the store committed but before the engine recorded
    the step appends the turn again on recovery. It has no ``load_view``: the kernel
    replays a compacted view from the recorded ``load``, so runs recorded before
    compaction existed replay the same steps.
    """

    def __init__(self, store: HistoryStore, engine: DurableEngine, *, name: str) -> None:
        self.store = store
        self.engine = engine
        self._load_name = f"{name}.history.load"
        self._append_name = f"{name}.history.append"

    @property
    def store_key(self) -> Hashable:
        """The wrapped store's key: a durable agent and a plain one (or two durable
        agents) on the same store share its sessions."""
        return store_key(self.store)

    async def load(self, session_id: str) -> list[Message]:
        _check_workflow(self.engine, "a durable history load")
        store = self.store

        async def load_step() -> JSON:
            return unstructure(list(await store.load(session_id)))

        return structure(await _step(self.engine, self._load_name, load_step), list[Message])

    async def append(self, session_id: str, messages: Sequence[Message]) -> None:
        _check_workflow(self.engine, "a durable history append")
        store = self.store

        async def append_step() -> JSON:
            await store.append(session_id, messages)
            return None

        await _step(self.engine, self._append_name, append_step)


class _DurableAgent(Agent):
    """An agent whose runs are durable (see :func:`durable_agent`).

    Every run is checked and named when it is created, before anything of it runs
    (observers included): it must start in the engine's workflow code under asyncio;
    its id comes from the engine, so a replay has the same id and issues the same
    request ids; the engine is attached for the loop (``RunContext.durable``).
    """

    _durable: tuple[DurableEngine, str, Mapping[str, StepPolicy]]

    def _context(
        self,
        messages: AgentInput | None,
        session: AgentSession | None,
        stream: bool,
        options: Mapping[str, Any] | None,
        tools: Sequence[AgentTool] | None,
    ) -> AgentContext:
        engine, name, policies = self._durable
        require_asyncio()
        _check_workflow(engine, f"durable agent {name!r}")
        context = super()._context(messages, session, stream, options, tools)
        run = context.run
        run.run_id = f"run_{engine.new_run_key()}"
        run.durable = DurableRun(engine, name)
        if tools:  # tools given to this run only become steps too
            context.tools = [_wrap(item, engine, name, policies) for item in context.tools]
        return context


def _wrap(item: Any, engine: DurableEngine, name: str, policies: Mapping[str, StepPolicy]) -> Any:
    if isinstance(item, FunctionTool):
        tool = cast("FunctionTool[..., Any]", item)
        return durable_tool(tool, engine, name=name, policy=policies.get(tool.name))
    if hasattr(item, "invoke") or hasattr(item, "get_tools"):
        # Its calls (or its listing) would run in workflow code, again on every replay.
        raise TypeError(
            f"a durable agent cannot make {item!r} durable yet: only function tools "
            f"(@tool, FunctionTool) become steps. Tool providers and other tool objects "
            f"(MCP toolsets) would run outside any step; call them from a function tool."
        )
    return item  # hosted tools and provider dicts run at the provider


def durable_agent(
    agent: Agent[DepsT],
    engine: DurableEngine,
    *,
    name: str | None = None,
    model_policy: StepPolicy | None = None,
    tool_policies: Mapping[str, StepPolicy] | None = None,
) -> Agent[DepsT]:
    """A new agent like ``agent`` whose runs are durable on ``engine``.

    It has the same instructions, tools, middleware, options, context providers,
    observers, loop settings and ``deps_type``; its model calls, tool calls and history load and
    append are steps named after ``name`` (default: the agent's name, which is then
    required). Run it only from the engine's workflow code, under asyncio: anywhere
    else ``run`` raises :class:`DurableExecutionError` rather than run undurably.
    """
    step_name = name or agent.name
    if not step_name:
        raise ValueError(
            "a durable agent needs a name: its steps are recorded under it "
            "(durable_agent(agent, engine, name='support'))"
        )
    policies = dict(tool_policies or {})
    history = agent.history
    durable = _DurableAgent(
        DurableChatClient(agent.client, engine, name=step_name, policy=model_policy),
        agent.instructions,
        name=agent.name,
        description=agent.description,
        tools=[_wrap(item, engine, step_name, policies) for item in agent.tools],
        middleware=agent.middleware,
        default_options=agent.default_options,
        context_providers=agent.context_providers,
        history=None if history is None else DurableHistoryStore(history, engine, name=step_name),
        tool_loop=agent.tool_loop,
        observers=tuple(agent._runtime.observers),  # pyright: ignore[reportPrivateUsage]  # the kernel's own agent
        deps_type=agent.deps_type,
    )
    durable._durable = (engine, step_name, policies)
    return durable


def encode_decisions(
    decisions: Sequence[FunctionApprovalResponseContent | UserInputResponseContent],
) -> JSON:
    """Decisions as the JSON to send to a waiting run on :data:`DECISIONS_TOPIC`."""
    return [to_dict(decision) for decision in decisions]


def decode_requests(
    value: JSON,
) -> list[FunctionApprovalRequestContent | UserInputRequestContent]:
    """The open requests a waiting run published under :data:`PENDING_KEY`."""
    return [from_dict(item, _REQUEST_KINDS[item["kind"]]) for item in value or ()]


_REQUEST_KINDS: dict[str, Any] = {
    "FunctionApprovalRequestContent": FunctionApprovalRequestContent,
    "UserInputRequestContent": UserInputRequestContent,
}
_DECISION_KINDS: dict[str, Any] = {
    "FunctionApprovalResponseContent": FunctionApprovalResponseContent,
    "UserInputResponseContent": UserInputResponseContent,
}


def _decode_decisions(value: JSON) -> list[Any]:
    # What a caller sent: anything that is not a decision is left out (it would
    # match no request anyway), so a malformed message never ends the run.
    decisions: list[Any] = []
    items = cast("list[object]", value) if isinstance(value, list) else []
    for item in items:
        kind = (
            _DECISION_KINDS.get(str(cast("dict[str, Any]", item).get("kind")))
            if isinstance(item, dict)
            else None
        )
        if kind is not None:
            try:
                decisions.append(from_dict(cast("dict[str, Any]", item), kind))
            except SerializationError:
                continue
    return decisions


async def run_until_answered(
    agent: Agent[DepsT],
    engine: DurableEngine,
    messages: AgentInput | None = None,
    *,
    session: AgentSession,
    wait: float | None = None,
    deps: DepsT = _NO_DEPS,
) -> AgentResponse[Any]:
    """Run a durable agent's turn to its end, waiting durably for human decisions.

    Whenever the run pauses (approval requests, questions from tools), the open
    requests are published under :data:`PENDING_KEY` (read them with
    :func:`decode_requests`) and the run waits for decisions sent on
    :data:`DECISIONS_TOPIC` (made with :func:`encode_decisions`), then goes on in
    the same session. Request ids are derived from the run, so decisions given after
    a crash and recovery still match. With ``wait`` seconds and no decision by then,
    the open requests are declined by a new message. Call it from workflow code;
    ``session`` must be the same on replay (give it a fixed id). ``deps`` go to every
    run of the turn, as ``agent.run(..., deps=...)``; they are never journaled, so a
    recovered run gets the deps of the call that recovers it.
    """
    response = await agent.run(messages, session=session, deps=deps)
    while True:
        requests = [*response.approval_requests, *response.user_input_requests]
        await engine.publish(PENDING_KEY, [to_dict(r) for r in requests])
        if not requests:
            return response
        received = await engine.receive(DECISIONS_TOPIC, wait=wait)
        if received is None:
            response = await agent.run(
                "No decision was given in time; go on without those calls.",
                session=session,
                deps=deps,
            )
        else:
            response = await agent.run(_decode_decisions(received), session=session, deps=deps)
