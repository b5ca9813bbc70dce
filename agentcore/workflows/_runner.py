"""The superstep loop of one ``run()`` call.

A superstep sorts the inbox by (target position, message key), runs the
invocations (``_invoke``: inline when there is one; lanes under
``gather_in_order`` otherwise; one invocation at a time per executor unless it
allows more), then commits their staged effects at the barrier in ordinal order: outputs and
requests, executor state, shared state, routing (with a delivery status per
decision), fan-in groups. Nothing depends on which task finished first.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import anyio

from agentcore.workflows._barrier import Failed, fire_fan_ins, merge_shared, route
from agentcore.workflows._checkpoint import CheckpointRecord, RunStatus, WorkflowCheckpoint
from agentcore.workflows._context import ChildOutput, WorkflowContext
from agentcore.workflows._durability import (
    RunClaim,
    RunFailure,
    checkpoint_of,
    convergence_failure,
    executor_failure,
    save,
    save_last,
)
from agentcore.workflows._events import (
    DeliveryRecord,
    EdgeDelivery,
    ErrorInfo,
    ExecutorReplayed,
    RequestInfo,
    RunFailed,
    RunPaused,
    SuperstepAborted,
    WorkflowEvent,
    WorkflowWarning,
)
from agentcore.workflows._fastpaths import (
    RecordWriter,
    executor_completed,
    executor_invoked,
    intermediate_output,
    run_completed,
    run_result,
    run_started,
    superstep_completed,
    superstep_started,
    workflow_output,
)
from agentcore.workflows._graph import Graph, Node
from agentcore.workflows._invoke import Invocations
from agentcore.workflows._requests import GENERATED_PREFIX, unique_request
from agentcore.workflows._result import WorkflowRunResult
from agentcore.workflows._spec import HandlerSpec
from agentcore.workflows._state import Buffered, Envelope, PendingEntry, RunState
from agentcore.workflows._typeexpr import describe, with_article
from agentcore.workflows._value import utc_now
from agentcore.workflows.errors import (
    CheckpointError,
    WorkflowStalledError,
    WorkflowTypeError,
)
from agentcore.workflows.protocols import CheckpointStore

__all__ = ["Runner"]

_TYPE_NAMES: dict[Any, str] = {}
"""``describe`` of the types invocations were sent as (``ExecutorInvoked.message_type``):
declared types live as long as their definitions, so this holds a few per program."""

if TYPE_CHECKING:
    import logging


def _fields(
    checkpoint: WorkflowCheckpoint,
) -> tuple[str, str | None, int, RunStatus, str]:
    """What a record takes of ``checkpoint`` besides the run's fields and its state."""
    return (
        checkpoint.checkpoint_id,
        checkpoint.parent_id,
        checkpoint.superstep,
        checkpoint.status,
        checkpoint.created_at,
    )


def _log() -> logging.Logger:
    """Where a failing delivery observer is logged. ``logging`` (with ``traceback`` and
    ``string``, about 4 ms) loads on the first failure, not with the workflows import."""
    import logging

    return logging.getLogger("agentcore.workflows.observers")


class Runner(Invocations):
    """Drives one ``run()`` call over a :class:`RunState`: superstep after superstep,
    each committed at its barrier."""

    __slots__ = (
        "_delivery_hooks",
        "_done",
        "_last",
        "_recording",
        "_steps",
        "_stopped",
        "_writer",
        "claim",
        "events",
        "intermediate",
        "keep_events",
        "max_supersteps",
        "outputs",
        "result",
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
        self._stopped = False
        """Whether an interruption saved the run's failed or cancelled checkpoint."""
        self._handlers = None
        self._pending_writes = None
        self._last: WorkflowCheckpoint | None = None
        """The run's last checkpoint (paused or completed) once it is written."""
        self.live = None
        self.durable = True
        self.claim: RunClaim | None = None  # this call's claim on the run, if the store has them
        self._writer: RecordWriter | None = None
        """Writes the run's records (made with the first: a run without a store has none)."""
        self._delivery_hooks: list[Callable[[DeliveryRecord], Any]] = [
            hook for o in observers if callable(hook := getattr(o, "on_delivery", None))
        ]
        self._recording = verbose or bool(self._delivery_hooks)
        """Whether routing decisions are recorded (verbose events or an observer)."""

    # -- the loop ------------------------------------------------------------------------

    def start(self, resumed_from: str | None, prelude: Sequence[WorkflowEvent] = ()) -> None:
        self.events.append(run_started(self.state.run_id, self.graph.name, resumed_from))
        self.events.extend(prelude)

    @property
    def has_work(self) -> bool:
        return bool(self.state.inbox)

    async def begin_step(self) -> tuple[list[Any], int]:
        """:meth:`begin`, saving the failed checkpoint when the superstep limit is
        reached (a driver that streams the superstep's start calls it, then :meth:`step`)."""
        try:
            return self.begin()
        except BaseException as error:
            await self.interrupted(error)
            raise

    async def step(self, begun: tuple[list[Any], int] | None = None) -> None:
        """Run one superstep (``begun``: already begun by :meth:`begin_step`) and commit
        it; on failure raise :class:`RunFailure` (the failed checkpoint saved, as a
        cancelled one is on cancellation); a committed superstep renews the run's claim."""
        try:
            contexts, superstep = self.begin() if begun is None else begun
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
            await self.close_barrier()
        except BaseException as error:
            await self.interrupted(error)
            raise
        claim = self.claim
        if claim is not None and claim.due():  # a committed superstep renews the claim
            await claim.renew()

    async def interrupted(self, error: BaseException) -> None:
        """After a superstep raised ``error``: a failure saves the failed checkpoint, a
        cancellation a cancelled one (both shielded), so the run stays resumable from
        the store. Anything else, or anything after :meth:`end`, saves nothing."""
        if self._last is not None or self._stopped:
            return
        if isinstance(error, RunFailure):
            self._stopped = True
            await self.save(error.checkpoint)
        elif (
            isinstance(error, (anyio.get_cancelled_exc_class(), GeneratorExit))
            and self.store is not None
        ):  # cancelled, or a stream closed by its reader before the run ended
            self._stopped = True
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
        self._handlers = None
        if self.keep_events:
            self._announce(inbox, superstep)
        return contexts, superstep

    def _announce(self, inbox: Sequence[Envelope], superstep: int) -> None:
        """Record the superstep's start and each invocation's, before any runs (a stream
        delivers them then): ``ExecutorReplayed`` for work a failed superstep finished
        (``_invoke`` replays the same ones), else ``ExecutorInvoked`` with the type the
        message was sent as and the handler it goes to."""
        events = self.events
        events.append(superstep_started(superstep, len(inbox)))
        finished = self.state.finished
        done = {(d.executor_id, d.key) for d in finished.values()} if finished else ()
        nodes = self.graph.nodes
        names = _TYPE_NAMES
        handlers: list[HandlerSpec | None] = [None] * len(inbox)
        self._handlers = handlers
        for ordinal, env in enumerate(inbox):
            if done and (env.target, env.key) in done:
                events.append(ExecutorReplayed(env.target, superstep, ordinal, env.sources))
                continue
            spec = nodes[env.target].spec
            entry = env.request
            declared: Any
            if entry is None:
                found = handlers[ordinal] = spec.handler_for(env.message)
                name = "" if found is None else found.name
                declared = env.declared
            else:
                request = entry.request
                answered = spec.response_handler(request.data, request.response_type)
                name = "" if answered is None else answered.name
                declared = request.response_type
            if declared is None:
                declared = env.message.__class__
            text = names.get(declared)
            if text is None:
                text = names[declared] = describe(declared)  # once per type, per process
            events.append(executor_invoked(env.target, superstep, ordinal, env.sources, text, name))

    async def commit(self, contexts: list[Any], superstep: int) -> None:
        """:meth:`record` the superstep, then :meth:`close_barrier`."""
        self.record(contexts, superstep)
        await self.close_barrier()

    async def close_barrier(self) -> None:
        """Save the committed superstep's checkpoint (durability ``"sync"``). If it
        left no message, the run ends here: :meth:`end` writes that checkpoint with
        the run's last one in one step (no code of the run or its caller could run
        between the two writes, so a crash leaves the same states, design §3.13)."""
        if not self.state.inbox:
            await self.end(self.store is not None and self.durable)
        elif self.store is not None and self.durable:
            await save(self.store, self.barrier_record(), self.claim)

    async def end(self, barrier: bool) -> WorkflowCheckpoint:
        """Write the run's last checkpoint (paused or completed; after its last
        barrier's if ``barrier``) and release the claim: :func:`save_last`."""
        state = self.state
        status: RunStatus = "paused" if state.pending else "completed"
        store = self.store
        if barrier:  # the same state twice, made at the same moment: its text made once
            writer = self.writer()
            text = writer.state(state)
            first = self.barrier_record(text)
            last = self.checkpoint(status, first.created_at)
            records = [first, writer.record(*_fields(last), text)]
        else:
            last = self.checkpoint(status)
            records = [] if store is None else [self.writer().of(last)]
        await save_last(store, records, self.claim)
        self._last = last
        return last

    def writer(self) -> RecordWriter:
        """The run's record writer (made on first use)."""
        writer = self._writer
        if writer is None:
            graph = self.graph
            writer = RecordWriter(self.state.run_id, graph.name, graph.version, graph.registry)
            self._writer = writer
        return writer

    def barrier_record(self, text: str | None = None) -> CheckpointRecord:
        """The record of the run's ``running`` checkpoint now, written from the live
        state (``text``: its state's, if written already): the checkpoint value itself
        (a frozen copy of the state) is never needed; the next checkpoint is its child."""
        state = self.state
        writer = self.writer()
        if text is None:
            text = writer.state(state)
        checkpoint_id = state.call.checkpoint_id(state.superstep)
        parent_id, self.parent_id = self.parent_id, checkpoint_id
        return writer.record(checkpoint_id, parent_id, state.superstep, "running", utc_now(), text)

    def record(self, contexts: list[Any], superstep: int) -> None:
        """Record the superstep's events (its start and invocations were, by
        :meth:`begin`) and commit it at the barrier."""
        state = self.state
        keep = self.keep_events
        events = self.events
        if keep:
            for ctx in contexts:
                events.extend(ctx._events)
                events.append(
                    executor_completed(
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
                if ctx._events:
                    events.extend(ctx._events)
        self._barrier(contexts, superstep)
        self._done = None
        if state.finished:
            state.finished = {}

    async def save(self, checkpoint: WorkflowCheckpoint | None) -> None:
        """Write ``checkpoint`` to the run's store (if any), shielded from cancellation."""
        if self.store is not None and checkpoint is not None:
            await save(self.store, self.writer().of(checkpoint), self.claim)

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
        checkpoint = self._last if self._last is not None else await self.end(False)
        if requests:
            self.events.append(
                RunPaused(state.run_id, tuple(r.id for r in requests), checkpoint.checkpoint_id)
            )
        else:
            self.events.append(run_completed(state.run_id, self._steps, checkpoint.checkpoint_id))
        self.result = run_result(
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

    def checkpoint(self, status: RunStatus, created_at: str | None = None) -> WorkflowCheckpoint:
        """The run's checkpoint now (or at ``created_at``; a failed or cancelled one keeps
        what finished of the current superstep as pending writes); the next one is its
        child."""
        state, graph, done = self.state, self.graph, self._done
        checkpoint = checkpoint_of(state, graph, self.parent_id, status, done, created_at)
        self.parent_id = checkpoint.checkpoint_id
        return checkpoint

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
        try:
            if self.store is not None:
                self._check_storable(contexts)
            shared = merge_shared(contexts, graph, state.shared)
            delivered, dropped = route(
                contexts,
                nodes,
                superstep,
                self._recording,
                next_inbox,
                appended,
                deliveries,
                self._notify,
                self._dead_letter,
            )
            for ctx in contexts:
                if ctx._requests:
                    ordinal = ctx.ordinal
                    for n, (request, context) in enumerate(ctx._requests):
                        key = (superstep, ordinal, n)
                        if not request.id.startswith(GENERATED_PREFIX):  # an agent's own
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
                if type(ctx._outputs[0]) is ChildOutput:  # a sub-workflow node's: only those
                    for child in ctx._outputs:
                        self.intermediate.append(child.event.data)
                        if output_events:
                            events.append(child.event)
                elif nodes[ctx.executor_id].is_output:
                    self.outputs.extend(ctx._outputs)
                    if output_events:
                        events.extend(
                            workflow_output(ctx.executor_id, v, superstep) for v in ctx._outputs
                        )
                else:
                    self.intermediate.extend(ctx._outputs)
                    if output_events:
                        events.extend(
                            intermediate_output(ctx.executor_id, v, superstep) for v in ctx._outputs
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
            events.append(superstep_completed(superstep, delivered, dropped))

    def _check_storable(self, contexts: Sequence[WorkflowContext[Any, Any]]) -> None:
        """Before the barrier commits: every message, request and state the superstep
        staged must go into the checkpoint its store saves. One that cannot fails the
        superstep as its executor's failure (``Failed``), and the invocations holding
        one are left out of the failed checkpoint's pending writes, so it saves and they
        run again on resume. The messages are encoded once: the barrier's record reuses
        the text (``RecordWriter.message``)."""
        writer = self.writer()
        first: tuple[Node, int, Exception] | None = None
        for ctx in contexts:
            what = "a message"
            try:
                for message, declared, _ in ctx._sends:
                    writer.message(message, declared)
                what = "a request"
                for request, _ in ctx._requests:
                    writer.value(request.data, None)
                what = "its state"
                state: Any = ctx._state
                if ctx._state_set and state is not None:
                    writer.value(state, state.__class__)
            except (CheckpointError, TypeError, ValueError) as exc:
                if self._done is not None:
                    self._done[ctx.ordinal] = None
                if first is None:
                    error = CheckpointError(
                        f"{ctx.executor_id!r} staged {what} that cannot be stored in a "
                        f"checkpoint: {exc}. Use values the checkpoint converter knows "
                        f"(attrs classes, dataclasses, str, int, float, bool, bytes, "
                        f"tuples, mappings, datetime, date, time, timedelta, UUID, Decimal, "
                        f"enums, paths), or teach agentcore.serialization.converter the type"
                    )
                    first = (self.graph.nodes[ctx.executor_id], ctx.ordinal, error)
        if first is not None:
            raise Failed(*first)

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
            f"{with_article(describe(declared))} sent by {node.id!r} was taken by none of its "
            f"edge groups "
            f"(every condition was false)"
        )
        if mode == "error":
            raise Failed(node, ordinal, WorkflowTypeError(text))
        self.events.append(WorkflowWarning(text, node.id))
