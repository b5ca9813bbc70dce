"""Running one superstep's invocations, the part of a superstep before its barrier.

One invocation runs inline in the caller's task (§3.5); several run under
``gather_in_order``, in one lane per executor (one invocation at a time unless the
executor allows more). Each attempt gets a fresh context; retries and timeouts are
the node's; work a failed or cancelled superstep finished is replayed, not redone;
with a store that keeps pending writes, each finished invocation is saved at once.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

import anyio

from agentcore._concurrency import gather_in_order
from agentcore.workflows._barrier import Failed
from agentcore.workflows._context import WorkflowContext
from agentcore.workflows._durability import has_pending_writes, save_pending_write
from agentcore.workflows._events import ExecutorEvent
from agentcore.workflows._graph import Graph, Node
from agentcore.workflows._replay import replayed_context
from agentcore.workflows._spec import HandlerSpec
from agentcore.workflows._state import Envelope, RunState
from agentcore.workflows._typeexpr import describe, with_article
from agentcore.workflows.errors import WorkflowTypeError
from agentcore.workflows.protocols import CheckpointStore, SupportsPendingWrites

__all__ = ["Invocations"]


class Invocations:
    """What a run needs to run its invocations (:class:`Runner` is the rest)."""

    __slots__ = (
        "_handlers",
        "_pending_writes",
        "durable",
        "graph",
        "live",
        "max_concurrency",
        "parent_id",
        "state",
        "store",
        "streaming",
    )

    graph: Graph
    state: RunState
    store: CheckpointStore | None
    streaming: bool
    max_concurrency: int | None
    parent_id: str | None
    durable: bool
    """Durability "sync": barrier checkpoints and pending writes."""
    live: Callable[[ExecutorEvent], Awaitable[None]] | None
    """Where ``ctx.emit`` delivers at once (``open_run``); events stay in the run too."""
    _handlers: list[HandlerSpec | None] | None
    """The current superstep's message handlers by ordinal, as announced (``None``: not
    resolved there, an answer or a replay), so an invocation does not look twice."""
    _pending_writes: tuple[SupportsPendingWrites, str] | None
    """Where the current superstep's finished invocations are saved as they finish:
    the store and the checkpoint the superstep started from."""

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
            handlers = self._handlers
            found = None if handlers is None else handlers[ordinal]
            if found is None:
                found = node.spec.handler_for(env.message)
            if found is None:
                raise Failed(
                    node,
                    ordinal,
                    WorkflowTypeError(
                        f"{node.id!r} has no handler for "
                        f"{with_article(type(env.message).__qualname__)}"
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
                ctx = contexts[ordinal] = replayed_context(
                    self.context(node, handler, env, ordinal, superstep, state), done
                )
                return ctx
        retry = node.retry
        attempt = 1
        while True:
            ctx = WorkflowContext(node, handler, self, env, superstep, ordinal, state)
            call: Any = handler.call  # (message[, ctx]), or (request, answer, ctx) for answers
            try:
                if node.timeout is None:
                    if entry is not None:
                        result = await call(entry.request.data, env.message, ctx)
                    elif handler.with_ctx:
                        result = await call(env.message, ctx)
                    else:
                        result = await call(env.message)
                else:
                    with anyio.fail_after(node.timeout):
                        if entry is not None:
                            result = await call(entry.request.data, env.message, ctx)
                        elif handler.with_ctx:
                            result = await call(env.message, ctx)
                        else:
                            result = await call(env.message)
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
        return WorkflowContext(node, handler, self, env, superstep, ordinal, state)
