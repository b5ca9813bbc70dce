"""``Workflow``: an immutable definition, and how ``run()`` starts, continues and
resumes runs of it.

The argument rules of ``run()``:

========================================  ===================================================
call                                      meaning
========================================  ===================================================
``run(msg)``                              a new run (fresh ``run_id``, or the one given)
``run(responses=[...], checkpoint=c)``    answer requests of the paused run held in ``c``
``run(checkpoint=c)``                     resume a failed run (or one past its superstep limit)
``run(msg, checkpoint=c)``                a new turn of the completed run in ``c`` (states kept)
========================================  ===================================================

Anything else raises ``TypeError`` before work starts.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from functools import partial
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Generic, Literal, overload

from typing_extensions import TypeVar

from agentcore._streams.stream import ResponseStream
from agentcore.errors import RunStateError
from agentcore.workflows._checkpoint import (
    CheckpointRecord,
    Durability,
    WorkflowCheckpoint,
    read_checkpoint,
)
from agentcore.workflows._drive import answers_saved, claimed, drive, final_of, stream_source
from agentcore.workflows._durability import (
    check_durability,
    has_run_claims,
    with_pending_writes,
)
from agentcore.workflows._events import RequestCancelled, WorkflowEvent
from agentcore.workflows._ids import NO_DEPS, RANDOM_IDS, IdSource, RunCall, check_source
from agentcore.workflows._requests import WorkflowResponse, check_response_value
from agentcore.workflows._result import RunSnapshot, WorkflowRunResult
from agentcore.workflows._runner import Runner
from agentcore.workflows._state import Envelope, FrozenState, PendingEntry, RunState
from agentcore.workflows._typeexpr import describe
from agentcore.workflows.errors import CheckpointIncompatibleError, UnknownRequestError
from agentcore.workflows.protocols import CheckpointStore

if TYPE_CHECKING:
    from agentcore._types.messages import Message
    from agentcore.tools import FunctionTool
    from agentcore.workflows._graph import Graph
    from agentcore.workflows._workflow_agent import WorkflowAgent

__all__ = ["Workflow"]

InT = TypeVar("InT", default=Any)
OutT = TypeVar("OutT", default=Any)


class Workflow(Generic[InT, OutT]):
    """An immutable, validated definition (made by ``WorkflowBuilder.build()``).

    Any number of runs may use one definition at once: a run's data lives in the
    run and its checkpoints, never here.
    """

    __slots__ = ("_graph", "_observers")

    def __init__(self, graph: Graph, observers: Sequence[object] = ()) -> None:
        self._graph = graph
        self._observers = tuple(observers)

    @property
    def name(self) -> str:
        return self._graph.name

    @property
    def version(self) -> str | None:
        return self._graph.version

    @property
    def description(self) -> str | None:
        return self._graph.description

    @property
    def input_types(self) -> tuple[Any, ...]:
        """What the start executor accepts."""
        return self._graph.input_types

    @property
    def output_types(self) -> tuple[Any, ...]:
        """What the final-output executors yield."""
        return self._graph.output_types

    @property
    def checkpoint_types(self) -> Mapping[Any, str]:
        """The types this definition's checkpoints can hold, with their keys (fixed at
        ``build()``; a parent with this workflow as a sub-workflow node adds them)."""
        return MappingProxyType(self._graph.registry.keys())

    @property
    def asks_outside(self) -> bool:
        """Whether some executor may ask for a response (it has a response handler)."""
        return any(node.spec.responses for node in self._graph.nodes.values())

    @property
    def request_pairs(self) -> tuple[tuple[Any, Any], ...]:
        """The (request, response) type pairs its executors have response handlers for."""
        pairs: list[tuple[Any, Any]] = []
        for node in self._graph.nodes.values():
            for r in node.spec.responses:
                if (r.request, r.response) not in pairs:
                    pairs.append((r.request, r.response))
        return tuple(pairs)

    @property
    def executor_ids(self) -> tuple[str, ...]:
        """The executors' ids, in commit order."""
        return tuple(self._graph.nodes)

    def __repr__(self) -> str:
        return f"Workflow(name={self.name!r}, executors={list(self.executor_ids)!r})"

    # -- running -------------------------------------------------------------------------

    @overload
    def run(
        self,
        message: InT | None = None,
        *,
        stream: Literal[False] = False,
        run_id: str | None = None,
        responses: Sequence[WorkflowResponse[Any]] | None = None,
        checkpoint: WorkflowCheckpoint | str | None = None,
        checkpoints: CheckpointStore | None = None,
        cancel_pending: bool = False,
        max_supersteps: int | None = None,
        max_concurrency: int | None = None,
        durability: Durability | None = None,
        verbose_events: bool = False,
        keep_events: bool = True,
        ids: IdSource | None = None,
        deps: Any = ...,
    ) -> Awaitable[WorkflowRunResult[OutT]]: ...
    @overload
    def run(
        self,
        message: InT | None = None,
        *,
        stream: Literal[True],
        run_id: str | None = None,
        responses: Sequence[WorkflowResponse[Any]] | None = None,
        checkpoint: WorkflowCheckpoint | str | None = None,
        checkpoints: CheckpointStore | None = None,
        cancel_pending: bool = False,
        max_supersteps: int | None = None,
        max_concurrency: int | None = None,
        durability: Durability | None = None,
        verbose_events: bool = False,
        keep_events: bool = True,
        ids: IdSource | None = None,
        deps: Any = ...,
    ) -> ResponseStream[WorkflowEvent, WorkflowRunResult[OutT]]: ...
    def run(
        self,
        message: InT | None = None,
        *,
        stream: bool = False,
        run_id: str | None = None,
        responses: Sequence[WorkflowResponse[Any]] | None = None,
        checkpoint: WorkflowCheckpoint | str | None = None,
        checkpoints: CheckpointStore | None = None,
        cancel_pending: bool = False,
        max_supersteps: int | None = None,
        max_concurrency: int | None = None,
        durability: Durability | None = None,
        verbose_events: bool = False,
        keep_events: bool = True,
        ids: IdSource | None = None,
        deps: Any = NO_DEPS,
    ) -> (
        Awaitable[WorkflowRunResult[OutT]] | ResponseStream[WorkflowEvent, WorkflowRunResult[OutT]]
    ):
        """Start, continue or resume a run (the argument rules are in the module docs).

        A plain ``def``: the work starts when the result is awaited or the stream is
        read. Raises (from the await, or from reading the stream)
        ``ExecutorFailedError``, ``WorkflowConvergenceError``, ``WorkflowStalledError``;
        refuses bad arguments (``TypeError``, ``UnknownRequestError``,
        ``RunStateError``) at once, before anything runs.

        ``ids``: where the run id and checkpoint ids come from (random by default);
        a deterministic source such as ``SeededIds(seed)`` makes every id of the call
        (child runs', agent sessions' and agent approvals' included) depend only on
        the seed, so equal inputs give byte-equal checkpoints but for ``created_at``.

        ``deps`` reaches every handler as ``ctx.deps`` (and the agents, sub-workflows
        and workflow agents of the run) in this call only: never saved, so a run
        resumed later has the ``deps`` of the call that resumes it.
        """
        setup = self._setup(
            message,
            stream=stream,
            run_id=run_id,
            responses=responses,
            checkpoint=checkpoint,
            checkpoints=checkpoints,
            cancel_pending=cancel_pending,
            max_supersteps=max_supersteps,
            max_concurrency=max_concurrency,
            durability=durability,
            verbose_events=verbose_events,
            keep_events=keep_events,
            ids=ids,
            deps=deps,
        )
        holder: list[Runner] = []
        if stream:
            return ResponseStream(
                stream_source(setup, holder), finalizer=lambda _: final_of(holder)
            )
        return drive(setup)

    def open_run(
        self,
        message: InT | None = None,
        *,
        run_id: str | None = None,
        responses: Sequence[WorkflowResponse[Any]] | None = None,
        checkpoint: WorkflowCheckpoint | str | None = None,
        checkpoints: CheckpointStore | None = None,
        cancel_pending: bool = False,
        max_supersteps: int | None = None,
        max_concurrency: int | None = None,
        durability: Durability | None = None,
        verbose_events: bool = False,
        ids: IdSource | None = None,
        deps: Any = NO_DEPS,
    ) -> AbstractAsyncContextManager[ResponseStream[WorkflowEvent, WorkflowRunResult[OutT]]]:
        """``async with workflow.open_run(msg) as stream:`` the same stream as
        ``run(stream=True)`` (same arguments), but the run is a task of the context
        manager, so what handlers ``ctx.emit`` reaches the consumer at once, concurrent
        invocations included (interleaved); framework events still come at the barriers.
        Leaving the block before the stream ends cancels the run (a store keeps it
        resumable). Bad arguments raise at the call; a stored run that cannot be found
        ends the stream with ``RunStateError``."""
        from agentcore.workflows._drive import open_live

        return open_live(
            self._setup(
                message,
                stream=True,
                run_id=run_id,
                responses=responses,
                checkpoint=checkpoint,
                checkpoints=checkpoints,
                cancel_pending=cancel_pending,
                max_supersteps=max_supersteps,
                max_concurrency=max_concurrency,
                durability=durability,
                verbose_events=verbose_events,
                keep_events=True,
                ids=ids,
                deps=deps,
            )
        )

    def _setup(
        self,
        message: Any,
        *,
        stream: bool,
        run_id: str | None,
        responses: Sequence[WorkflowResponse[Any]] | None,
        checkpoint: WorkflowCheckpoint | str | None,
        checkpoints: CheckpointStore | None,
        cancel_pending: bool,
        max_supersteps: int | None,
        max_concurrency: int | None,
        durability: Durability | None,
        verbose_events: bool,
        keep_events: bool,
        ids: IdSource | None,
        deps: Any,
    ) -> Runner | Awaitable[Runner]:
        store = checkpoints if checkpoints is not None else self._graph.store
        mode = self._graph.durability if durability is None else check_durability(durability)
        call = RunCall(RANDOM_IDS if ids is None else check_source(ids), deps)

        def prepare(found: WorkflowCheckpoint | None) -> Runner:
            runner = self._prepare(
                message,
                run_id=run_id,
                responses=responses,
                checkpoint=found,
                cancel_pending=cancel_pending,
                max_supersteps=max_supersteps,
                max_concurrency=max_concurrency,
                verbose=verbose_events,
                keep_events=keep_events or stream,
                streaming=stream,
                store=store,
                call=call,
            )
            runner.durable = mode == "sync"
            return runner

        if isinstance(checkpoint, str) or (
            checkpoint is None and run_id is not None and store is not None
        ):
            if store is None or run_id is None:
                raise TypeError(
                    "a checkpoint id names a stored checkpoint: pass run_id= and a store "
                    "(checkpoints= here or on the builder)"
                )
            load = partial(
                self._load_and_prepare, store, run_id, checkpoint, message, responses, prepare
            )
            if has_run_claims(store):  # claimed before the latest is loaded
                return claimed(store, run_id, self._graph.claim_ttl, load)
            return load()
        runner = prepare(checkpoint)
        setup = partial(answers_saved, runner) if responses else runner
        if has_run_claims(store):
            return claimed(store, runner.state.run_id, self._graph.claim_ttl, setup)
        return setup if isinstance(setup, Runner) else setup()

    async def _load_and_prepare(
        self,
        store: CheckpointStore,
        run_id: str,
        checkpoint_id: str | None,
        message: Any,
        responses: Sequence[WorkflowResponse[Any]] | None,
        prepare: Callable[[WorkflowCheckpoint | None], Runner],
    ) -> Runner:
        record = await store.load(run_id, checkpoint_id)
        if record is None:
            if checkpoint_id is not None:
                raise RunStateError(f"run {run_id!r} has no checkpoint {checkpoint_id!r}")
            if responses or message is None:
                raise RunStateError(f"the store holds no run {run_id!r} to resume")
            return prepare(None)
        runner = prepare(await with_pending_writes(store, self.restore(record)))
        return await answers_saved(runner) if responses else runner

    def as_agent(
        self,
        *,
        name: str | None = None,
        description: str | None = None,
        input_adapter: Callable[[tuple[Message, ...]], InT] | None = None,
        output_adapter: Callable[[OutT], Sequence[Message]] | None = None,
        checkpoints: CheckpointStore | None = None,
    ) -> WorkflowAgent:
        """This workflow as an agent (``SupportsAgentRun``): pending requests come back as
        ``request_info`` calls, an inner agent's approval and user-input requests as
        themselves. ``TypeError`` when the input or output types are not
        messages and no adapter is given. With ``checkpoints=`` a session keeps only its
        run's id and the store keeps the run; without, the session keeps the checkpoint."""
        from agentcore.workflows._workflow_agent import WorkflowAgent

        return WorkflowAgent(
            self,
            name=name,
            description=description,
            input_adapter=input_adapter,
            output_adapter=output_adapter,
            checkpoints=checkpoints,
        )

    def as_tool(
        self,
        *,
        name: str | None = None,
        description: str | None = None,
        input_adapter: Callable[[tuple[Message, ...]], InT] | None = None,
        output_adapter: Callable[[OutT], Sequence[Message]] | None = None,
    ) -> FunctionTool[..., Any]:
        """This workflow as a function tool of another agent: ``as_agent(...).as_tool()``
        (pending requests pause the calling agent; see ``WorkflowAgent.as_tool``)."""
        agent = self.as_agent(
            name=name,
            description=description,
            input_adapter=input_adapter,
            output_adapter=output_adapter,
        )
        return agent.as_tool()

    def restore(self, record: CheckpointRecord | str) -> WorkflowCheckpoint:
        """Read a stored checkpoint (a store's record, or the JSON of ``to_json``) with
        this definition's types; :class:`CheckpointIncompatibleError` when it cannot
        resume here. Reading never imports a module named by the data."""
        checkpoint = read_checkpoint(self._graph.registry, self._graph.name, record)
        self._check_compatible(_state_of(checkpoint))
        return checkpoint

    def _check_compatible(self, state: FrozenState) -> None:
        graph = self._graph
        nodes = graph.nodes
        problems: list[str] = []
        for env in state.inbox:
            node = nodes.get(env.target)
            if node is None:
                problems.append(f"a message waits for executor {env.target!r}, which is gone")
            elif env.request is None and node.spec.handler_for(env.message) is None:
                problems.append(
                    f"{env.target!r} no longer accepts the waiting {type(env.message).__qualname__}"
                )
        for ident, value in state.states.items():
            node = nodes.get(ident)
            if node is None:
                problems.append(f"executor {ident!r} holds state but is gone")
            elif node.state_type is None or not isinstance(value, node.state_type):
                problems.append(
                    f"{ident!r} holds a {type(value).__qualname__} state, which it no longer "
                    f"declares"
                )
        for entry in (*state.pending.values(), *(e.request for e in state.inbox if e.request)):
            request = entry.request
            node = nodes.get(request.executor_id)
            if (
                node is None
                or node.spec.response_handler(request.data, request.response_type) is None
            ):
                problems.append(
                    f"request {request.id!r} of {request.executor_id!r} has no response handler "
                    f"for ({type(request.data).__qualname__}, {describe(request.response_type)})"
                )
        groups = {g.id: g for g in graph.groups}
        for gid, buffered in state.buffers.items():
            group = groups.get(gid)
            if group is None or group.kind != "fan_in":
                problems.append(f"fan-in {gid} holds messages but is gone")
                continue
            stray = sorted({b.source for b in buffered} - set(group.sources))
            if stray:
                problems.append(f"fan-in {gid} holds messages from {stray}, no longer its sources")
        if problems:
            raise CheckpointIncompatibleError(problems)

    async def inspect(
        self, run_id: str, *, checkpoints: CheckpointStore | None = None
    ) -> RunSnapshot:
        """A stored run's status, pending requests and latest checkpoint: what another
        process needs to present the questions before answering them."""
        store = checkpoints if checkpoints is not None else self._graph.store
        if store is None:
            raise TypeError("inspect() reads a store: pass checkpoints= or build with one")
        record = await store.load(run_id)
        if record is None:
            raise RunStateError(f"the store holds no run {run_id!r}")
        checkpoint = self.restore(record)
        return RunSnapshot(
            run_id,
            checkpoint.status,
            checkpoint.superstep,
            checkpoint.requests,
            checkpoint.checkpoint_id,
            checkpoint.workflow_version,
        )

    def _prepare(
        self,
        message: Any,
        *,
        run_id: str | None,
        responses: Sequence[WorkflowResponse[Any]] | None,
        checkpoint: WorkflowCheckpoint | None,
        cancel_pending: bool,
        max_supersteps: int | None,
        max_concurrency: int | None,
        verbose: bool,
        keep_events: bool,
        streaming: bool,
        store: CheckpointStore | None,
        call: RunCall,
    ) -> Runner:
        graph = self._graph
        prelude: list[WorkflowEvent] = []
        if checkpoint is None:
            if responses:
                raise TypeError(
                    "responses answer a paused run: pass the paused run's checkpoint too "
                    "(run(responses=[...], checkpoint=result.checkpoint))"
                )
            if message is None:
                raise TypeError("run() needs a message to start a run, or a checkpoint to resume")
            state = RunState(run_id or call.run_id(), call=call)
            parent = None
        else:
            if not isinstance(checkpoint, WorkflowCheckpoint):
                raise TypeError(f"checkpoint must be a WorkflowCheckpoint, got {checkpoint!r}")
            if checkpoint.workflow != graph.name:
                raise RunStateError(
                    f"the checkpoint belongs to workflow {checkpoint.workflow!r}, "
                    f"not {graph.name!r}"
                )
            if run_id is not None and run_id != checkpoint.run_id:
                raise RunStateError(
                    f"the checkpoint belongs to run {checkpoint.run_id!r}, not {run_id!r}"
                )
            if checkpoint.registry is not self._graph.registry:
                self._check_compatible(_state_of(checkpoint))
            state = RunState.thaw(_state_of(checkpoint), call)
            parent = checkpoint.checkpoint_id
            if cancel_pending:
                for entry in state.pending.values():
                    prelude.append(
                        RequestCancelled(
                            entry.request.id, entry.request.executor_id, "cancel_pending"
                        )
                    )
                state.pending.clear()
            if message is not None and state.pending and not responses:
                raise RunStateError(
                    f"run {state.run_id!r} is paused on {len(state.pending)} request(s); answer "
                    f"them with responses=[...], or pass cancel_pending=True to drop them"
                )
            if message is not None and state.inbox:
                raise RunStateError(
                    f"run {state.run_id!r} has unfinished work ({checkpoint.status}); resume "
                    f"it with run(checkpoint=...) before sending a new message"
                )
            if responses:
                self._accept(state, responses)
            elif message is None and not state.inbox:
                raise RunStateError(
                    f"run {state.run_id!r} has nothing to resume (status {checkpoint.status!r}): "
                    f"give it a message for a new turn, or responses for its pending requests"
                )
        if message is not None:
            start = graph.nodes[graph.start]
            handler = start.spec.handler_for(message)
            if handler is None:
                raise TypeError(
                    f"the start executor {graph.start!r} accepts "
                    f"{' | '.join(describe(t) for t in start.spec.inputs)}, not a "
                    f"{type(message).__qualname__}"
                )
            declared = handler.declared_input(message)
            state.inbox.append(
                Envelope(graph.start, (state.superstep, 0, 0), message, (), declared)
            )
        runner = Runner(
            graph,
            state,
            max_supersteps=max_supersteps or graph.max_supersteps,
            max_concurrency=max_concurrency or graph.max_concurrency,
            verbose=verbose,
            keep_events=keep_events,
            streaming=streaming,
            observers=self._observers,
            parent_id=parent,
            store=store,
        )
        runner.start(parent, prelude)
        return runner

    @staticmethod
    def _accept(state: RunState, responses: Sequence[WorkflowResponse[Any]]) -> None:
        """Check every response before any is used; put them on the inbox ordered by
        their requests' keys (never by argument order)."""
        seen: set[str] = set()
        entries: list[tuple[PendingEntry, WorkflowResponse[Any]]] = []
        for response in responses:
            if not isinstance(response, WorkflowResponse):
                raise TypeError(
                    f"responses must be WorkflowResponse values (request.create_response(...)), "
                    f"got {response!r}"
                )
            entry = state.pending.get(response.request_id)
            if entry is None or response.request_id in seen:
                raise UnknownRequestError(response.request_id, list(state.pending))
            check_response_value(response.data, entry.request.response_type, response.request_id)
            seen.add(response.request_id)
            entries.append((entry, response))
        entries.sort(key=lambda pair: pair[0].key)
        for n, (entry, response) in enumerate(entries):
            del state.pending[entry.request.id]
            state.answered.append(entry.request.id)
            state.inbox.append(
                Envelope(
                    entry.request.executor_id,
                    (state.superstep, -1, n),
                    response.data,
                    (),
                    entry.request.response_type,
                    entry,
                )
            )


def _state_of(checkpoint: WorkflowCheckpoint) -> FrozenState:
    if checkpoint.state is None:
        raise RunStateError(
            "this WorkflowCheckpoint holds no run state; use one a run returned, or "
            "workflow.restore(saved_json)"
        )
    return checkpoint.state
