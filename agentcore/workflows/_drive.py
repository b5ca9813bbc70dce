"""Driving a run: superstep after superstep, to a result, to a stream, or (under
``open_run``) as a task that delivers events to a memory channel as they happen."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio

from agentcore._streams.stream import ResponseStream
from agentcore.errors import RunStateError
from agentcore.workflows._durability import RunClaim, RunFailure, save
from agentcore.workflows._events import ExecutorEvent, WorkflowEvent
from agentcore.workflows._live import live_invocation, live_step
from agentcore.workflows._result import WorkflowRunResult
from agentcore.workflows._runner import Runner
from agentcore.workflows.protocols import SupportsRunClaims

__all__ = ["answers_saved", "claimed", "drive", "final_of", "open_live", "stream_source"]

LIVE_BUFFER = 256
"""Events an ``open_run`` channel holds before a slow consumer slows the run."""


async def claimed(
    store: SupportsRunClaims,
    run_id: str,
    ttl: float,
    setup: Runner | Callable[[RunClaim], Awaitable[Runner]],
) -> Runner:
    """The runner of ``setup`` (a runner, or what takes the claim, loads and prepares
    one) once run ``run_id`` is claimed in ``store`` (``RunStateError`` if another
    call drives it); the claim is released if ``setup`` fails; the drivers release it
    when the call ends, unless the run's last save did."""
    claim = RunClaim(store, run_id, ttl)
    try:
        if isinstance(setup, Runner):
            await claim.take()
            runner = setup
        else:
            runner = await setup(claim)  # it loads in the claim's round trip
    except BaseException:
        await claim.release()  # if it was taken
        raise
    runner.claim = claim
    return runner


async def answers_saved(runner: Runner) -> Runner:
    """``runner`` once the responses it accepted are saved: with a store and durability
    "sync", a ``running`` checkpoint holding them on the inbox, written before any
    response handler runs (design §3.13), so a run that fails or stops in those
    handlers resumes with the answers instead of asking again."""
    if runner.store is not None and runner.durable:
        await save(runner.store, runner.barrier_record(), runner.claim)
    return runner


async def release(runner: Runner) -> None:
    if runner.claim is not None:
        await runner.claim.release()


async def drive(setup: Runner | Awaitable[Runner]) -> WorkflowRunResult[Any]:
    runner = setup if isinstance(setup, Runner) else await setup
    try:
        while runner.has_work:
            await runner.step()
        return await runner.finish()
    except RunFailure as failure:
        raise failure.error from failure.error.__cause__
    finally:
        await release(runner)


async def stream_source(
    setup: Runner | Awaitable[Runner], holder: list[Runner]
) -> AsyncIterator[WorkflowEvent]:
    runner = setup if isinstance(setup, Runner) else await setup
    holder.append(runner)
    try:
        events = runner.events
        sent = 0
        shown: set[int] = set()
        """Updates a live form yielded that its superstep also records (a sub-workflow's
        events): each reaches the reader once, when it happened."""
        while True:
            while sent < len(events):
                if not shown or id(events[sent]) not in shown:
                    yield events[sent]
                sent += 1
            shown.clear()
            if not runner.has_work:
                break
            try:
                live = live_invocation(runner)
                begun = await runner.begin_step()
                while sent < len(events):  # the superstep's start and its invocations'
                    yield events[sent]
                    sent += 1
                if live is None:
                    await runner.step(begun)
                else:  # one invocation with a streaming form: its updates as they come
                    updates = live_step(runner, *live, begun)
                    try:
                        async for update in updates:
                            while sent < len(events):
                                yield events[sent]
                                sent += 1
                            yield update
                            shown.add(id(update))
                    except BaseException as error:  # saved as Runner.step saves its own
                        await updates.aclose()
                        await runner.interrupted(error)
                        raise
                    claim = runner.claim
                    if claim is not None and claim.due():  # a committed superstep renews it
                        await claim.renew()
            except RunFailure as failure:
                while sent < len(events):
                    yield events[sent]
                    sent += 1
                for event in failure.events:
                    yield event
                raise failure.error from failure.error.__cause__
        await runner.finish()
        while sent < len(events):
            yield events[sent]
            sent += 1
    except GeneratorExit as closed:  # the reader closed the stream before the run ended:
        await runner.interrupted(closed)  # a store keeps it cancelled, not running
        raise
    finally:
        await release(runner)


def final_of(holder: list[Runner]) -> WorkflowRunResult[Any]:
    if not holder or holder[0].result is None:
        raise RunStateError("the workflow stream was closed before the run finished")
    return holder[0].result


@asynccontextmanager
async def open_live(
    setup: Runner | Awaitable[Runner],
) -> AsyncGenerator[ResponseStream[WorkflowEvent, WorkflowRunResult[Any]], None]:
    """The stream of a run driven by a task of this context manager: emitted events go
    to the channel at once; the rest at each barrier; a failure ends the stream with
    the run's error."""
    send, receive = anyio.create_memory_object_stream[WorkflowEvent](LIVE_BUFFER)
    holder: list[Runner] = []
    failure: list[BaseException] = []

    async def run() -> None:
        async with send:
            try:
                runner = setup if isinstance(setup, Runner) else await setup
            except Exception as exc:  # a run that cannot start (no such stored run, ...)
                failure.append(exc)
                return
            holder.append(runner)
            sent_live: set[int] = set()

            async def live(event: ExecutorEvent) -> None:
                sent_live.add(id(event))
                await send.send(event)

            runner.live = live
            events = runner.events
            done = 0

            async def flush() -> None:
                nonlocal done
                while done < len(events):
                    event = events[done]
                    done += 1
                    if id(event) not in sent_live:
                        await send.send(event)

            try:
                while True:
                    await flush()
                    if not runner.has_work:
                        break
                    begun = await runner.begin_step()
                    await flush()  # the superstep's start and its invocations', before they run
                    await runner.step(begun)
                await runner.finish()
                await flush()
            except RunFailure as exc:
                await flush()
                for event in exc.events:
                    await send.send(event)
                failure.append(exc.error)
            except BaseException as exc:  # cancelled between supersteps too: a store
                await runner.interrupted(exc)  # keeps the run cancelled, not running
                raise
            finally:
                await release(runner)

    async def read() -> AsyncIterator[WorkflowEvent]:
        async with receive:
            async for event in receive:
                yield event
        if failure:
            raise failure[0]

    raised: Exception | None = None
    async with anyio.create_task_group() as tg:
        tg.start_soon(run)
        stream = ResponseStream(read(), finalizer=lambda _: final_of(holder))
        try:
            yield stream
        except Exception as exc:  # the consumer's error (or the run's, read from the
            raised = exc  # stream) leaves unwrapped, after the run task is cancelled
        finally:
            tg.cancel_scope.cancel()
            with anyio.CancelScope(shield=True):
                await stream.aclose()  # a consumer that broke off left the reader open
    if raised is not None:
        raise raised
