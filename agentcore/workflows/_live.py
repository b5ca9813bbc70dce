"""A superstep with one invocation, streamed live by ``run(stream=True)``.

The stream's source may not yield while a task group or a cancel scope is open
inside it (anyio and trio forbid it), so a superstep with several invocations is
delivered at its barrier. A superstep with one invocation needs no task: when its
executor has a streaming form (``handle_live``, an async generator with the same
effects as ``handle``; agent executors have one), the source reads it in place and
hands each update to the consumer as it arrives. The deadline of a node's
``timeout`` is enforced around each pull, never around the generator. What is
recorded (events, outputs, checkpoints) is what a batched superstep records, in
the same order; the updates themselves are live only.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable
from typing import Any

import anyio

from agentcore.workflows._events import ExecutorEvent
from agentcore.workflows._graph import Node
from agentcore.workflows._runner import Runner
from agentcore.workflows._spec import HandlerSpec
from agentcore.workflows._state import Envelope

__all__ = ["LiveForm", "live_invocation", "live_step"]

LiveForm = Callable[[Any, Any], AsyncGenerator[ExecutorEvent, None]]
"""An executor's ``handle_live(message, ctx)``."""


def live_invocation(runner: Runner) -> tuple[Node, HandlerSpec, LiveForm] | None:
    """The next superstep's one invocation, when it can stream live; else ``None``
    (several invocations, an answer to a request, work to replay, the superstep
    limit reached, or an executor without a streaming form)."""
    state = runner.state
    inbox = state.inbox
    if len(inbox) != 1 or runner.live is not None or state.finished:
        return None
    env = inbox[0]
    if env.request is not None:
        return None
    node = runner.graph.nodes[env.target]
    form = getattr(node.spec.obj, "handle_live", None)
    if form is None:  # most executors: no streaming form
        return None
    handler = node.spec.handler_for(env.message)
    # ``returns_send`` is false only for an executor's ``handle`` (not @handler methods)
    if handler is None or handler.returns_send:
        return None
    return node, handler, form


async def live_step(
    runner: Runner,
    node: Node,
    handler: HandlerSpec,
    form: LiveForm,
    begun: tuple[list[Any], int],
) -> AsyncGenerator[ExecutorEvent, None]:
    """Run the superstep of :func:`live_invocation`, yielding the executor's updates;
    the superstep (``begun`` by ``Runner.begin_step``, which recorded its start and its
    invocation) is committed as :meth:`Runner.step` commits one. Raises ``RunFailure``."""
    contexts, superstep = begun  # Runner.begin_step recorded the superstep's start
    env: Envelope = runner.state.inbox[0]
    state = runner.state.states.get(node.id)
    retry = node.retry
    attempt = 1
    while True:
        ctx = runner.context(node, handler, env, 0, superstep, state)
        updates = form(env.message, ctx)
        deadline = None if node.timeout is None else anyio.current_time() + node.timeout
        try:
            while True:
                try:
                    if deadline is None:
                        update = await updates.__anext__()
                    else:
                        with anyio.fail_after(deadline - anyio.current_time()):
                            update = await updates.__anext__()
                except StopAsyncIteration:
                    break
                yield update
            break
        except Exception as exc:
            if retry is None or attempt >= retry.max_attempts or not retry.retry_on(exc):
                raise runner.failure(node.id, 0, superstep, exc) from None
            await anyio.sleep(retry.delay(attempt, exc))
            attempt += 1
        finally:
            await updates.aclose()
    contexts[0] = ctx
    await runner.commit(contexts, superstep)
