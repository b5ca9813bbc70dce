"""Running several coroutines at once, under structured concurrency, cheaply.

Tool calls of one turn run concurrently. anyio's task group is the portable way;
on asyncio it costs several times what plain tasks cost, so there the same
guarantees are kept by hand: every task has finished when :func:`gather_in_order`
returns or raises, a failure cancels the siblings and propagates unwrapped, and
cancelling the caller cancels the tasks and waits for them. The tasks are cancelled
as anyio cancels a task group's: a task's shielded work and the worker threads it
waits for finish first. That costs nothing until a batch is cancelled (see
:func:`_adopt`, the one place that knows anyio's asyncio internals).
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from typing import Any, TypeVar, cast

import anyio

__all__ = ["gather_in_order"]

T = TypeVar("T")


def _running_asyncio_loop() -> Any:
    asyncio = sys.modules.get("asyncio")
    # asyncio is never imported here: if nobody imported it, no asyncio loop runs.
    return None if asyncio is None else asyncio._get_running_loop()


async def gather_in_order(
    jobs: Sequence[Callable[[], Awaitable[T]]], *, limit: int | None = None
) -> list[T]:
    """Run every job concurrently (at most ``limit`` at a time) and return their
    results in job order.

    The first job to raise cancels the others, and its exception propagates as
    is (not wrapped in an exception group).
    """
    if not jobs:
        return []
    limiter = anyio.CapacityLimiter(limit) if limit is not None else None
    loop = _running_asyncio_loop()
    if loop is not None:
        return await _gather_asyncio(loop, jobs, limiter)
    return await _gather_anyio(jobs, limiter)


async def _run(job: Callable[[], Awaitable[T]], limiter: anyio.CapacityLimiter | None) -> T:
    if limiter is None:
        return await job()
    async with limiter:
        return await job()


async def _gather_asyncio(
    loop: Any, jobs: Sequence[Callable[[], Awaitable[T]]], limiter: anyio.CapacityLimiter | None
) -> list[T]:
    import asyncio

    # Plain tasks: nothing anyio-specific is paid while the batch runs (a cancel scope
    # per task cost about 30,000 instructions each, a fifth of a five-call run; see
    # docs/performance.md). Should the batch be cancelled, :func:`_cancel_and_wait`
    # cancels the tasks the way anyio would.
    tasks: list[asyncio.Task[T]] = [loop.create_task(_run(job, limiter)) for job in jobs]
    # Set once every task is done or one has failed: what asyncio.wait(FIRST_EXCEPTION)
    # does, without its sets and callback removals (measured: 45,000 instructions less
    # per five-call batch, 6 % of that run).
    settled = loop.create_future()
    left = len(tasks)

    def on_done(task: asyncio.Task[T]) -> None:
        nonlocal left
        left -= 1
        if not settled.done() and (
            left == 0 or (not task.cancelled() and task.exception() is not None)
        ):
            settled.set_result(None)

    for task in tasks:
        task.add_done_callback(on_done)
    try:
        await settled
    except BaseException:
        await _cancel_and_wait(asyncio, tasks)
        raise
    for task in tasks:
        if task.done() and not task.cancelled() and task.exception() is not None:
            await _cancel_and_wait(asyncio, tasks)
            error = task.exception()
            assert error is not None
            raise error
    return [task.result() for task in tasks]


async def _cancel_and_wait(asyncio: Any, tasks: Sequence[Any]) -> None:
    """Cancel the ``tasks`` as a task group's cancel scope would, and wait for them all.

    A bare ``Task.cancel()`` would cut through the shielded scopes inside a task (a
    tool's shielded work, a worker thread being waited for); here the tasks are put
    under one cancel scope, which delivers the cancellation anyio's way: not into
    shielded scopes, and again while a task goes on. The caller waits shielded, so the
    scope cancelling its tasks does not wake it again and again.
    """
    with anyio.CancelScope() as batch:
        _adopt(batch, [task for task in tasks if not task.done()])
        batch.cancel()
        with anyio.CancelScope(shield=True):
            # The tasks must finish before we leave. A native Task.cancel() of the
            # caller still gets through the shield: keep waiting, and never await once
            # everything is done, or that await would be cancelled.
            while not all(task.done() for task in tasks):
                try:
                    await asyncio.wait([task for task in tasks if not task.done()])
                except asyncio.CancelledError:
                    continue
    for task in tasks:
        if not task.cancelled():
            task.exception()  # retrieved: a sibling's failure is not "never retrieved"


def _adopt(batch: anyio.CancelScope, tasks: Sequence[Any]) -> None:
    """Put each running task under the cancel scope ``batch``, as anyio's task group
    puts the tasks it starts under its own.

    The one place that reaches into anyio's asyncio backend (its per-task state and
    the scope tree, as ``TaskGroup._spawn`` and ``CancelScope.__enter__`` set them;
    tests/test_concurrency.py checks every case against the installed anyio). It runs
    only when a batch is cancelled: a task outside any cancel scope gets ``batch`` as
    its scope, a task inside scopes of its own gets ``batch`` as the parent of the
    outermost, so a shielded one among them keeps the cancellation out until it ends.
    """
    from anyio._backends import _asyncio as backend

    task_states = cast("MutableMapping[Any, Any]", backend._task_states)  # pyright: ignore[reportPrivateUsage, reportUnknownMemberType]
    scope: Any = batch
    parent_id = id(scope._host_task)
    for task in tasks:
        state = task_states.get(task)
        if state is None:
            task_states[task] = backend.TaskState(parent_id, scope)
            scope._tasks.add(task)
        elif state.cancel_scope is None:  # its scopes have all ended
            state.cancel_scope = scope
            scope._tasks.add(task)
        else:
            outermost: Any = state.cancel_scope
            while outermost._parent_scope is not None:
                outermost = outermost._parent_scope
            outermost._parent_scope = scope
            scope._child_scopes.add(outermost)


async def _gather_anyio(
    jobs: Sequence[Callable[[], Awaitable[T]]], limiter: anyio.CapacityLimiter | None
) -> list[T]:
    results: list[Any] = [None] * len(jobs)
    failures: list[Exception] = []

    async with anyio.create_task_group() as group:

        async def run_one(position: int, job: Callable[[], Awaitable[T]]) -> None:
            try:
                results[position] = await _run(job, limiter)
            except Exception as exc:  # cancellation is not an Exception: it passes
                failures.append(exc)
                group.cancel_scope.cancel()

        for position, job in enumerate(jobs):
            group.start_soon(run_one, position, job)
    if failures:
        raise failures[0]
    return results
