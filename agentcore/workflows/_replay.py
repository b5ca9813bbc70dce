"""Pending writes: what a finished invocation staged, kept when its superstep fails or
is cancelled, and turned back into a context on resume instead of running the handler
again (design §6, "pending writes")."""

from __future__ import annotations

from typing import Any

from agentcore.workflows._context import _DELETED, WorkflowContext
from agentcore.workflows._events import ExecutorEvent
from agentcore.workflows._state import Finished, Key

__all__ = ["finished_of", "replayed_context"]


def finished_of(ctx: WorkflowContext[Any, Any], key: Key) -> Finished:
    """The pending write of a finished invocation (``key``: its message's key)."""
    writes: dict[str, Any] = {} if ctx._shared is None else ctx._shared._writes
    return Finished(
        ctx.executor_id,
        key,
        tuple(ctx._sends),
        tuple(ctx._outputs),
        tuple(ctx._requests),
        ctx._state if ctx._state_set else None,
        ctx._state_set,
        {k: v for k, v in writes.items() if v is not _DELETED},
        tuple(k for k, v in writes.items() if v is _DELETED),
        tuple((e.executor_id, e.name, e.data) for e in ctx._events),
        ctx._usage,
    )


def replayed_context(ctx: WorkflowContext[Any, Any], done: Finished) -> WorkflowContext[Any, Any]:
    """``ctx``, a fresh context, holding ``done``'s staged effects, as if the handler
    had just run."""
    if done.state_set:
        ctx._state = done.state
    ctx._state_set = done.state_set
    ctx._sends.extend(done.sends)
    if done.outputs:
        ctx._outputs = list(done.outputs)
    if done.requests:
        ctx._requests = list(done.requests)
    if done.events:
        ctx._events = [ExecutorEvent(ident, name, data) for ident, name, data in done.events]
    ctx._usage = done.usage
    if done.shared or done.deleted:
        writes = ctx.shared._writes
        writes.update(done.shared)
        writes.update(dict.fromkeys(done.deleted, _DELETED))
    return ctx
