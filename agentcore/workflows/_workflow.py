"""``Workflow``: an immutable definition, the runs it starts, and what it makes of
itself (an agent, a tool); how a ``run()`` call's arguments begin a run is ``_start``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Generic, Literal, overload

from typing_extensions import TypeVar

from agentcore._streams.stream import ResponseStream
from agentcore.errors import RunStateError
from agentcore.workflows._checkpoint import (
    CheckpointRecord,
    Durability,
    WorkflowCheckpoint,
)
from agentcore.workflows._drive import drive, final_of, open_live, stream_source
from agentcore.workflows._events import WorkflowEvent
from agentcore.workflows._ids import NO_DEPS, IdSource
from agentcore.workflows._requests import WorkflowResponse
from agentcore.workflows._result import WorkflowRunResult
from agentcore.workflows._runner import Runner
from agentcore.workflows._start import restore
from agentcore.workflows._start import setup as start_call
from agentcore.workflows.protocols import CheckpointStore

if TYPE_CHECKING:
    from agentcore._types.messages import Message
    from agentcore.tools import FunctionTool
    from agentcore.workflows._describe import WorkflowDescription
    from agentcore.workflows._graph import Graph
    from agentcore.workflows._snapshot import RunSnapshot
    from agentcore.workflows._workflow_agent import WorkflowAgent

__all__ = ["Workflow"]

InT = TypeVar("InT", default=Any)
OutT = TypeVar("OutT", default=Any)


class Workflow(Generic[InT, OutT]):
    """An immutable, validated definition (made by ``WorkflowBuilder.build()``).

    Any number of runs may use one definition at once: a run's data lives in the
    run and its checkpoints, never here.
    """

    __slots__ = ("_description", "_graph", "_observers")

    def __init__(self, graph: Graph, observers: Sequence[object] = ()) -> None:
        self._graph = graph
        self._observers = tuple(observers)
        self._description: WorkflowDescription | None = None

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
    def checkpoint_store(self) -> CheckpointStore | None:
        """The checkpoint store given to the builder (``checkpoints=``; a path becomes
        its ``SqliteCheckpointStore``), or ``None``: where this workflow's runs are kept
        unless a call names another."""
        store: CheckpointStore | None = self._graph.store
        return store

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

    # -- describing ----------------------------------------------------------------------

    def describe(self) -> WorkflowDescription:
        """This definition's graph as a frozen, JSON-serializable value: nodes, edge
        groups, start, outputs, shared keys, sub-workflows nested (computed once)."""
        if self._description is None:
            from agentcore.workflows._describe import describe_graph

            self._description = describe_graph(self._graph)
        return self._description

    def to_mermaid(
        self,
        *,
        direction: Literal["TD", "TB", "BT", "LR", "RL"] = "TD",
        types: bool = True,
        subworkflows: Literal["collapse", "expand"] = "collapse",
    ) -> str:
        """``describe().to_mermaid(...)``: the graph as a Mermaid flowchart."""
        return self.describe().to_mermaid(
            direction=direction, types=types, subworkflows=subworkflows
        )

    def to_dot(
        self,
        *,
        rankdir: Literal["TB", "BT", "LR", "RL"] = "TB",
        types: bool = True,
        subworkflows: Literal["collapse", "expand"] = "collapse",
    ) -> str:
        """``describe().to_dot(...)``: the graph as a Graphviz digraph."""
        return self.describe().to_dot(rankdir=rankdir, types=types, subworkflows=subworkflows)

    def to_svg(
        self,
        *,
        rankdir: Literal["TB", "BT", "LR", "RL"] = "TB",
        types: bool = True,
        subworkflows: Literal["collapse", "expand"] = "collapse",
        timeout: float = 30.0,
    ) -> str:
        """``describe().to_svg(...)``: the DOT drawn by Graphviz's ``dot`` (which must be
        installed: ``FileNotFoundError`` saying how otherwise)."""
        return self.describe().to_svg(
            rankdir=rankdir, types=types, subworkflows=subworkflows, timeout=timeout
        )

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
        setup = start_call(
            self._graph,
            self._observers,
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
        return open_live(
            start_call(
                self._graph,
                self._observers,
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
        return restore(self._graph, record)

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
        from agentcore.workflows._snapshot import RunSnapshot

        return RunSnapshot(
            run_id,
            checkpoint.status,
            checkpoint.superstep,
            checkpoint.requests,
            checkpoint.checkpoint_id,
            checkpoint.workflow_version,
        )
