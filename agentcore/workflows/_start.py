"""How one ``run()`` call begins: its arguments read against the table below, a
stored run loaded and checked against this definition, responses checked, and the
:class:`Runner` that drives the call made ready.

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

from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from typing import Any

from agentcore.errors import RunStateError
from agentcore.workflows._checkpoint import (
    CheckpointRecord,
    Durability,
    WorkflowCheckpoint,
    read_checkpoint,
)
from agentcore.workflows._drive import answers_saved, claimed
from agentcore.workflows._durability import (
    RunClaim,
    check_durability,
    first_save_claims,
    has_run_claims,
    load_run,
    with_pending_writes,
)
from agentcore.workflows._events import RequestCancelled, WorkflowEvent
from agentcore.workflows._graph import Graph
from agentcore.workflows._ids import RANDOM_IDS, IdSource, RunCall, check_source
from agentcore.workflows._requests import WorkflowResponse, check_response_value
from agentcore.workflows._runner import Runner
from agentcore.workflows._state import Envelope, FrozenState, PendingEntry, RunState
from agentcore.workflows._typeexpr import describe, with_article
from agentcore.workflows.errors import CheckpointIncompatibleError, UnknownRequestError
from agentcore.workflows.protocols import CheckpointStore

__all__ = ["check_compatible", "restore", "setup"]


def setup(
    graph: Graph,
    observers: Sequence[object],
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
    """The runner of one call, or (a stored run to load, or a run to claim first)
    what makes it when awaited. Bad arguments raise here, before anything runs."""
    store = checkpoints if checkpoints is not None else graph.store
    mode = graph.durability if durability is None else check_durability(durability)
    call = RunCall(RANDOM_IDS if ids is None else check_source(ids), deps)

    def ready(found: WorkflowCheckpoint | None) -> Runner:
        runner = prepare(
            graph,
            observers,
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
            _load_and_prepare, graph, store, run_id, checkpoint, message, responses, ready
        )
        if has_run_claims(store):  # claimed before (or as) the latest is loaded
            return claimed(store, run_id, graph.claim_ttl, load)
        return load(None)
    runner = ready(checkpoint)
    if not has_run_claims(store):
        return answers_saved(runner) if responses else runner
    if not responses:
        joins = first_save_claims(store) if checkpoint is None and runner.durable else None
        if joins is not None:  # a new run with a generated id: see first_save_claims
            runner.claim = RunClaim(store, runner.state.run_id, graph.claim_ttl, joins=joins)
            return runner
        return claimed(store, runner.state.run_id, graph.claim_ttl, runner)

    async def begin(claim: RunClaim) -> Runner:  # the answers are saved once claimed
        await claim.take()
        return await answers_saved(runner)

    return claimed(store, runner.state.run_id, graph.claim_ttl, begin)


async def _load_and_prepare(
    graph: Graph,
    store: CheckpointStore,
    run_id: str,
    checkpoint_id: str | None,
    message: Any,
    responses: Sequence[WorkflowResponse[Any]] | None,
    ready: Callable[[WorkflowCheckpoint | None], Runner],
    claim: RunClaim | None,
) -> Runner:
    if claim is None:
        record, writes = await load_run(store, run_id, checkpoint_id)
    else:  # one round trip with a store that has SupportsCombinedClaims
        record, writes = await claim.take_and_load(store, checkpoint_id)
    if record is None:
        if checkpoint_id is not None:
            raise RunStateError(f"run {run_id!r} has no checkpoint {checkpoint_id!r}")
        if responses or message is None:
            raise RunStateError(f"the store holds no run {run_id!r} to resume")
        return ready(None)
    runner = ready(with_pending_writes(restore(graph, record), writes))
    return await answers_saved(runner) if responses else runner


def restore(graph: Graph, record: CheckpointRecord | str) -> WorkflowCheckpoint:
    """``Workflow.restore``: a stored checkpoint read with ``graph``'s types and
    checked against it."""
    checkpoint = read_checkpoint(graph.registry, graph.name, record)
    check_compatible(graph, state_of(checkpoint))
    return checkpoint


def check_compatible(graph: Graph, state: FrozenState) -> None:
    """:class:`CheckpointIncompatibleError` listing every part of ``state`` that
    ``graph`` can no longer resume."""
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
                f"{ident!r} holds {with_article(type(value).__qualname__)} state, which it no "
                f"longer declares"
            )
    for entry in (*state.pending.values(), *(e.request for e in state.inbox if e.request)):
        request = entry.request
        node = nodes.get(request.executor_id)
        if node is None or node.spec.response_handler(request.data, request.response_type) is None:
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


def prepare(
    graph: Graph,
    observers: Sequence[object],
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
    """The runner of a call whose stored run (if any) is loaded: the table's rules
    checked, responses accepted, the message on the inbox."""
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
                f"the checkpoint belongs to workflow {checkpoint.workflow!r}, not {graph.name!r}"
            )
        if run_id is not None and run_id != checkpoint.run_id:
            raise RunStateError(
                f"the checkpoint belongs to run {checkpoint.run_id!r}, not {run_id!r}"
            )
        if checkpoint.registry is not graph.registry:
            check_compatible(graph, state_of(checkpoint))
        state = RunState.thaw(state_of(checkpoint), call)
        parent = checkpoint.checkpoint_id
        if cancel_pending:
            for entry in state.pending.values():
                prelude.append(
                    RequestCancelled(entry.request.id, entry.request.executor_id, "cancel_pending")
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
            accept(state, responses)
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
                f"{' | '.join(describe(t) for t in start.spec.inputs)}, not "
                f"{with_article(type(message).__qualname__)}"
            )
        declared = handler.declared_input(message)
        state.inbox.append(Envelope(graph.start, (state.superstep, 0, 0), message, (), declared))
    runner = Runner(
        graph,
        state,
        max_supersteps=max_supersteps or graph.max_supersteps,
        max_concurrency=max_concurrency or graph.max_concurrency,
        verbose=verbose,
        keep_events=keep_events,
        streaming=streaming,
        observers=observers,
        parent_id=parent,
        store=store,
    )
    runner.start(parent, prelude)
    return runner


def accept(state: RunState, responses: Sequence[WorkflowResponse[Any]]) -> None:
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


def state_of(checkpoint: WorkflowCheckpoint) -> FrozenState:
    if checkpoint.state is None:
        raise RunStateError(
            "this WorkflowCheckpoint holds no run state; use one a run returned, or "
            "workflow.restore(saved_json)"
        )
    return checkpoint.state
