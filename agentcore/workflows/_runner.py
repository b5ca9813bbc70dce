"""The superstep loop of one ``run()`` call.

A superstep sorts the inbox by (target position, message key), runs the
invocations (inline when there is one; lanes under ``gather_in_order``
otherwise; one invocation at a time per executor unless it allows more), then
commits their staged effects at the barrier in ordinal order: outputs and
requests, executor state, shared state, routing (with a delivery status per
decision), fan-in groups. Nothing depends on which task finished first.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

import anyio

from agentcore._concurrency import gather_in_order
from agentcore.workflows._barrier import Failed, fire_fan_ins, merge_shared, route
from agentcore.workflows._checkpoint import RunStatus, WorkflowCheckpoint
from agentcore.workflows._context import WorkflowContext
from agentcore.workflows._durability import (
    RunClaim,
    RunFailure,
    checkpoint_of,
    convergence_failure,
    executor_failure,
    has_pending_writes,
    save,
    save_pending_write,
)
from agentcore.workflows._events import (
    DeliveryRecord,
    EdgeDelivery,
    ErrorInfo,
    ExecutorCompleted,
    ExecutorEvent,
    ExecutorInvoked,
    ExecutorReplayed,
    IntermediateOutput,
    RequestInfo,
    RunCompleted,
    RunFailed,
    RunPaused,
    RunStarted,
    SuperstepAborted,
    SuperstepCompleted,
    SuperstepStarted,
    WorkflowEvent,
    WorkflowOutput,
    WorkflowWarning,
)
from agentcore.workflows._graph import Graph, Node
from agentcore.workflows._replay import replayed_context
from agentcore.workflows._requests import unique_request
from agentcore.workflows._result import WorkflowRunResult
from agentcore.workflows._spec import HandlerSpec
from agentcore.workflows._state import Buffered, Envelope, PendingEntry, RunState
from agentcore.workflows._typeexpr import describe
from agentcore.workflows.errors import (
    WorkflowStalledError,
    WorkflowTypeError,
)
from agentcore.workflows.protocols import CheckpointStore, SupportsPendingWrites

__all__ = ["Runner"]

if TYPE_CHECKING:
    import logging


def _log() -> logging.Logger:
    """Where a failing delivery observer is logged. ``logging`` (with ``traceback`` and
    ``string``, about 4 ms) loads on the first failure, not with the workflows import."""
    import logging

    return logging.getLogger("agentcore.workflows.observers")


class Runner:
    """Drives one ``run()`` call over a :class:`RunState`."""

    __slots__ = (
        "_delivery_hooks",
        "_done",
        "_pending_writes",
        "_recording",
        "_replayed",
        "_steps",
        "claim",
        "durable",
        "events",
        "graph",
        "intermediate",
        "keep_events",
        "live",
        "max_concurrency",
        "max_supersteps",
        "outputs",
        "parent_id",
        "result",
        "state",
        "store",
        "streaming",
        "verbose",
    )

    def __init__(
        self,
        graph: Graph,
        state: RunState,
        *,
        max_supersteps: int,
        max_concurrency: int | None,
        verbose: bool,
        keep_events: bool,
        streaming: bool,
        observers: Sequence[object],
        parent_id: str | None,
        store: CheckpointStore | None = None,
    ) -> None:
        self.graph = graph
        self.store = store
        self.state = state
        self.max_supersteps = max_supersteps
        self.max_concurrency = max_concurrency
        self.verbose = verbose
        self.keep_events = keep_events
        self.streaming = streaming
        self.parent_id = parent_id
        self.events: list[WorkflowEvent] = []
        self.outputs: list[Any] = []
        self.intermediate: list[Any] = []
        self.result: WorkflowRunResult[Any] | None = None
        self._steps = 0
        self._done: list[WorkflowContext[Any, Any] | None] | None = None
        """The current superstep's contexts (``None`` slots: not finished), so a failed
        or cancelled checkpoint can keep what finished as pending writes."""
        self._replayed: set[int] = set()
        self._pending_writes: tuple[SupportsPendingWrites, str] | None = None
        """Where the current superstep's finished invocations are saved as they finish:
        the store and the checkpoint the superstep started from."""
        self.live: Callable[[ExecutorEvent], Awaitable[None]] | None = None
        """Where ``ctx.emit`` delivers at once (``open_run``); events stay in the run too."""
        self.durable = True  # durability "sync": barrier checkpoints and pending writes
        self.claim: RunClaim | None = None  # this call's claim on the run, if the store has them
        self._delivery_hooks: list[Callable[[DeliveryRecord], Any]] = [
            hook for o in observers if callable(hook := getattr(o, "on_delivery", None))
        ]
        self._recording = verbose or bool(self._delivery_hooks)
        """Whether routing decisions are recorded (verbose events or an observer)."""

    # -- the loop ------------------------------------------------------------------------

    def start(self, resumed_from: str | None, prelude: Sequence[WorkflowEvent] = ()) -> None:
        self.events.append(RunStarted(self.state.run_id, self.graph.name, resumed_from))
        self.events.extend(prelude)

    @property
    def has_work(self) -> bool:
        return bool(self.state.inbox)

    async def step(self) -> None:
        """Run one superstep and commit it; on failure raise :class:`RunFailure` (the
        failed checkpoint saved, as a cancelled one is on cancellation); a committed
        superstep renews the run's claim."""
        try:
            contexts, superstep = self.begin()
            inbox = self.state.inbox
            try:
                if len(inbox) == 1:  # one invocation: inline in the caller's task (§3.5)
                    env = inbox[0]
                    node = self.graph.nodes[env.target]
                    state = self.state.states.get(node.id)
                    await self._invoke(node, env, 0, superstep, state, contexts)
                else:
                    await self._run_invocations(inbox, superstep, contexts)
            except Failed as failed:
                error = failed.error
                raise self.failure(failed.node.id, failed.ordinal, superstep, error) from None
            self.record(contexts, superstep)
            if self.store is not None and self.durable:
                await self.save(self.checkpoint("running"))
        except BaseException as error:
            await self.interrupted(error)
            raise
        if self.claim is not None:  # a superstep that committed renews the run's claim
            await self.claim.renew()

    async def interrupted(self, error: BaseException) -> None:
        """After a superstep raised ``error``: a failure saves the failed checkpoint, a
        cancellation a cancelled one (both shielded), so the run stays resumable from
        the store. Anything else saves nothing."""
        if isinstance(error, RunFailure):
            await self.save(error.checkpoint)
        elif isinstance(error, anyio.get_cancelled_exc_class()) and self.store is not None:
            await self.save(self.checkpoint("cancelled"))

    def begin(self) -> tuple[list[Any], int]:
        """Start the next superstep: its number and one context slot per invocation,
        the inbox sorted in commit order (:class:`RunFailure` at the superstep limit)."""
        state = self.state
        if self._steps >= self.max_supersteps:
            raise convergence_failure(state, self.max_supersteps, self.checkpoint("failed"))
        self._steps += 1
        superstep = state.superstep + 1
        nodes = self.graph.nodes
        inbox = state.inbox
        if len(inbox) > 1:
            inbox.sort(key=lambda e: (nodes[e.target].index, e.key))
        contexts: list[Any] = [None] * len(inbox)
        self._done = contexts
        if self._replayed:
            self._replayed = set()
        return contexts, superstep

    async def commit(self, contexts: list[Any], superstep: int, *, announced: bool = False) -> None:
        """:meth:`record` the superstep, then save its checkpoint (with a store)."""
        self.record(contexts, superstep, announced=announced)
        if self.store is not None and self.durable:
            await self.save(self.checkpoint("running"))

    def record(self, contexts: list[Any], superstep: int, *, announced: bool = False) -> None:
        """Record the superstep's events and commit it at the barrier (``announced``:
        its start and its one invocation were already recorded, as a live step does)."""
        state = self.state
        keep = self.keep_events
        events = self.events
        if keep:
            if not announced:
                events.append(SuperstepStarted(superstep, len(contexts)))
            replayed = self._replayed
            for ctx in contexts:
                if not announced:
                    again = replayed and ctx.ordinal in replayed
                    kind = ExecutorReplayed if again else ExecutorInvoked
                    events.append(kind(ctx.executor_id, superstep, ctx.ordinal, ctx.sources))
                events.extend(ctx._events)
                events.append(
                    ExecutorCompleted(
                        ctx.executor_id,
                        superstep,
                        ctx.ordinal,
                        len(ctx._sends),
                        len(ctx._outputs),
                        len(ctx._requests),
                    )
                )
        else:
            for ctx in contexts:
                events.extend(ctx._events)
        self._barrier(contexts, superstep)
        self._done = None
        if state.finished:
            state.finished = {}

    async def save(self, checkpoint: WorkflowCheckpoint | None) -> None:
        """Write ``checkpoint`` to the run's store (if any), shielded from cancellation."""
        await save(self.store, checkpoint)

    def failure(
        self, executor_id: str, ordinal: int, superstep: int, error: BaseException
    ) -> RunFailure:
        """The run's failure for ``error`` raised by one invocation (wrapped, checkpointed)."""
        run_id, checkpoint = self.state.run_id, self.checkpoint("failed")
        return executor_failure(run_id, executor_id, ordinal, superstep, error, checkpoint)

    async def finish(self) -> WorkflowRunResult[Any]:
        """The result of a call that ran out of messages: paused or completed. The
        checkpoint is saved before the pause or completion is reported."""
        state = self.state
        requests = tuple(e.request for e in state.pending.values())
        status: RunStatus = "paused" if requests else "completed"
        checkpoint = self.checkpoint(status)
        await self.save(checkpoint)
        if requests:
            self.events.append(
                RunPaused(state.run_id, tuple(r.id for r in requests), checkpoint.checkpoint_id)
            )
        else:
            self.events.append(RunCompleted(state.run_id, self._steps, checkpoint.checkpoint_id))
        self.result = WorkflowRunResult(
            state.run_id,
            "paused" if requests else "completed",
            tuple(self.outputs),
            tuple(self.intermediate),
            requests,
            tuple(self.events),
            self._steps,
            checkpoint,
            state.usage,
        )
        return self.result

    def checkpoint(self, status: RunStatus) -> WorkflowCheckpoint:
        """The run's checkpoint now (a failed or cancelled one keeps what finished of the
        current superstep as pending writes); the next one is its child."""
        checkpoint = checkpoint_of(self.state, self.graph, self.parent_id, status, self._done)
        self.parent_id = checkpoint.checkpoint_id
        return checkpoint

    # -- invocations ---------------------------------------------------------------------

    async def _run_invocations(
        self, inbox: list[Envelope], superstep: int, contexts: list[Any]
    ) -> None:
        nodes = self.graph.nodes
        states = self.state.states
        store: object = self.store  # a CheckpointStore that may also keep pending writes
        parent = self.parent_id
        if self.durable and parent is not None and has_pending_writes(store):
            # with several invocations, one may finish long before another: save each
            # as it finishes (a lone invocation's barrier checkpoint follows at once)
            self._pending_writes = (store, parent)
        jobs: list[Callable[[], Awaitable[Any]]] = []
        invoke, lane = self._invoke, self._lane  # bound once: 10,000 jobs share them
        start = 0
        for i in range(1, len(inbox) + 1):
            if i == len(inbox) or inbox[i].target != inbox[start].target:
                node = nodes[inbox[start].target]
                state = states.get(node.id)
                if i - start == 1:
                    jobs.append(
                        partial(invoke, node, inbox[start], start, superstep, state, contexts)
                    )
                else:
                    jobs.append(partial(lane, node, inbox, start, i, superstep, contexts))
                start = i
        try:
            await gather_in_order(jobs, limit=self.max_concurrency)
        finally:
            self._pending_writes = None

    async def _lane(
        self,
        node: Node,
        inbox: list[Envelope],
        lo: int,
        hi: int,
        superstep: int,
        contexts: list[Any],
    ) -> None:
        """The invocations of one executor in one superstep: one at a time, each seeing
        the state the previous one staged, unless the executor allows more at once
        (then answers first, one at a time, and the messages concurrently)."""
        state = self.state.states.get(node.id)
        i = lo
        serial = node.max_concurrency == 1
        while i < hi and (serial or inbox[i].request is not None):
            state = (await self._invoke(node, inbox[i], i, superstep, state, contexts))._state
            i += 1
        if i < hi:
            invoke = self._invoke
            jobs = [
                partial(invoke, node, inbox[k], k, superstep, state, contexts) for k in range(i, hi)
            ]
            await gather_in_order(jobs, limit=node.max_concurrency)

    async def _invoke(
        self,
        node: Node,
        env: Envelope,
        ordinal: int,
        superstep: int,
        state: Any,
        contexts: list[Any],
    ) -> WorkflowContext[Any, Any]:
        """Run (or replay) one invocation and put its context in ``contexts[ordinal]``
        as soon as it finished, so a failure of a sibling keeps it as a pending write."""
        entry = env.request
        if entry is not None:
            request = entry.request
            response_spec = node.spec.response_handler(request.data, request.response_type)
            if response_spec is None:
                raise Failed(
                    node,
                    ordinal,
                    WorkflowTypeError(
                        f"{node.id!r} has no response handler for "
                        f"({type(request.data).__qualname__}, {describe(request.response_type)})"
                    ),
                )
            handler = response_spec.handler
        else:
            found = node.spec.handler_for(env.message)
            if found is None:
                raise Failed(
                    node,
                    ordinal,
                    WorkflowTypeError(
                        f"{node.id!r} has no handler for a {type(env.message).__qualname__}"
                    ),
                )
            handler = found
        finished = self.state.finished
        if finished:
            done = finished.get(ordinal)
            if done is None or done.executor_id != node.id or done.key != env.key:
                # the inbox changed order (answers added): find the same message's work
                done = next(
                    (d for d in finished.values() if d.executor_id == node.id and d.key == env.key),
                    None,
                )
            if done is not None:
                self._replayed.add(ordinal)
                ctx = contexts[ordinal] = replayed_context(
                    node,
                    handler,
                    env,
                    done,
                    run_id=self.state.run_id,
                    superstep=superstep,
                    ordinal=ordinal,
                    state=state,
                    shared=self.state.shared,
                    streaming=self.streaming,
                )
                return ctx
        retry = node.retry
        attempt = 1
        while True:
            ctx = self.context(node, handler, env, ordinal, superstep, state)
            call: Any = handler.call  # (message, ctx), or (request, answer, ctx) for answers
            try:
                if node.timeout is None:
                    if entry is None:
                        result = await call(env.message, ctx)
                    else:
                        result = await call(entry.request.data, env.message, ctx)
                else:
                    with anyio.fail_after(node.timeout):
                        if entry is None:
                            result = await call(env.message, ctx)
                        else:
                            result = await call(entry.request.data, env.message, ctx)
                if result is not None and handler.returns_send:
                    ctx._stage_send(result, None)
            except Exception as exc:
                if retry is None or attempt >= retry.max_attempts or not retry.retry_on(exc):
                    raise Failed(node, ordinal, exc) from exc
                await anyio.sleep(retry.delay(attempt, exc))
                attempt += 1
                continue
            contexts[ordinal] = ctx
            if self._pending_writes is not None:
                store, parent = self._pending_writes
                await save_pending_write(store, self.graph, self.state.run_id, parent, ctx, env.key)
            return ctx

    def context(
        self,
        node: Node,
        handler: HandlerSpec,
        env: Envelope,
        ordinal: int,
        superstep: int,
        state: Any,
    ) -> WorkflowContext[Any, Any]:
        """A fresh context for one attempt of one invocation."""
        entry = env.request
        return WorkflowContext(
            node,
            handler,
            run_id=self.state.run_id,
            superstep=superstep,
            ordinal=ordinal,
            sources=env.sources,
            state=state,
            shared=self.state.shared,
            streaming=self.streaming,
            request_id=None if entry is None else entry.request.id,
            request_context=None if entry is None else entry.context,
            live=self.live,
            call=self.state.call,
        )

    # -- the barrier ---------------------------------------------------------------------

    def _barrier(self, contexts: list[WorkflowContext[Any, Any]], superstep: int) -> None:
        state = self.state
        graph = self.graph
        nodes = graph.nodes
        events = self.events
        deliveries: list[tuple[EdgeDelivery, Any]] = []
        next_inbox: list[Envelope] = []
        appended: dict[str, list[Buffered]] = {}
        new_requests: list[PendingEntry] = []
        delivered = dropped = 0
        try:
            shared = merge_shared(contexts, graph, state.shared)
            # one pass in ordinal order: routing, then the invocation's requests
            for ctx in contexts:
                if ctx._sends:
                    counts = route(
                        ctx,
                        nodes[ctx.executor_id],
                        superstep,
                        self._recording,
                        next_inbox,
                        appended,
                        deliveries,
                        self._notify,
                        self._dead_letter,
                    )
                    delivered += counts[0]
                    dropped += counts[1]
                if ctx._requests:
                    ordinal = ctx.ordinal
                    for n, (request, context) in enumerate(ctx._requests):
                        key = (superstep, ordinal, n)
                        staged = (e.request for e in new_requests)
                        request = unique_request(request, key, state.pending, staged)
                        new_requests.append(PendingEntry(request, key, context))
            buffers = (
                {gid: [*state.buffers.get(gid, ()), *more] for gid, more in appended.items()}
                if appended
                else {}
            )
            if graph.fan_ins:
                fire_fan_ins(
                    graph,
                    state,
                    lambda: self.checkpoint("failed"),
                    next_inbox,
                    buffers,
                    new_requests,
                    superstep,
                    len(contexts),
                )
        except Failed as failed:
            error = failed.error
            raise self.failure(failed.node.id, failed.ordinal, superstep, error) from None
        except WorkflowStalledError as error:
            raise RunFailure(
                [
                    SuperstepAborted(superstep, "failed"),
                    RunFailed(state.run_id, ErrorInfo.of(error), error.checkpoint_id),
                ],
                error,
                error.checkpoint,
            ) from None
        # Nothing below can fail: the superstep is committed.
        output_events = self.keep_events or self.streaming
        for ctx in contexts:
            if ctx._outputs:
                if nodes[ctx.executor_id].is_output:
                    self.outputs.extend(ctx._outputs)
                    if output_events:
                        events.extend(
                            WorkflowOutput(ctx.executor_id, v, superstep) for v in ctx._outputs
                        )
                else:
                    self.intermediate.extend(ctx._outputs)
                    if output_events:
                        events.extend(
                            IntermediateOutput(ctx.executor_id, v, superstep) for v in ctx._outputs
                        )
            if ctx._state_set:
                state.states[ctx.executor_id] = ctx._state
            if ctx._usage is not None:
                state.usage = ctx._usage if state.usage is None else state.usage + ctx._usage
        for entry in new_requests:
            state.pending[entry.request.id] = entry
            events.append(RequestInfo(entry.request))
        if shared is not None:
            state.shared = shared
        if buffers:
            state.buffers.update(buffers)
        state.inbox = next_inbox
        state.superstep = superstep
        if deliveries:
            self._notify(deliveries)
            if self.verbose and output_events:
                events.extend(record for record, _ in deliveries)
        if self.keep_events:
            events.append(SuperstepCompleted(superstep, delivered, dropped))

    def _notify(self, deliveries: Sequence[tuple[EdgeDelivery, Any]]) -> None:
        for hook in self._delivery_hooks:
            for record, message in deliveries:
                try:
                    hook(DeliveryRecord(record, message))
                except Exception:  # an observer never breaks a run: logged and swallowed
                    _log().exception("workflow observer on_delivery failed")

    def _dead_letter(self, node: Node, ordinal: int, declared: Any) -> None:
        mode = self.graph.dead_letters
        if mode == "ignore":
            return
        text = (
            f"a {describe(declared)} sent by {node.id!r} was taken by none of its edge groups "
            f"(every condition was false)"
        )
        if mode == "error":
            raise Failed(node, ordinal, WorkflowTypeError(text))
        self.events.append(WorkflowWarning(text, node.id))
