"""gather_in_order: concurrent jobs, results in order, failures and cancellation
handled the same way on asyncio (plain tasks) and trio (a task group)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import anyio.lowlevel
import pytest

from agentcore._concurrency import gather_in_order

pytestmark = pytest.mark.anyio
LIMIT = 5.0


async def test_results_come_back_in_job_order_whatever_finishes_first() -> None:
    finished: list[int] = []

    def job(position: int, delay_steps: int) -> Callable[[], Awaitable[int]]:
        async def run() -> int:
            for _ in range(delay_steps):
                await anyio.lowlevel.checkpoint()
            finished.append(position)
            return position * 10

        return run

    with anyio.fail_after(LIMIT):
        results = await gather_in_order([job(0, 6), job(1, 3), job(2, 0)])
    assert results == [0, 10, 20]
    assert finished == [2, 1, 0]


async def test_jobs_run_concurrently() -> None:
    first_started = anyio.Event()

    async def waits_for_the_second() -> str:
        first_started.set()
        await second_done.wait()
        return "first"

    second_done = anyio.Event()

    async def unblocks_the_first() -> str:
        await first_started.wait()
        second_done.set()
        return "second"

    with anyio.fail_after(LIMIT):
        assert await gather_in_order([waits_for_the_second, unblocks_the_first]) == [
            "first",
            "second",
        ]


async def test_a_limit_bounds_how_many_run_at_once() -> None:
    running = 0
    peak = 0

    async def job() -> None:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        for _ in range(3):
            await anyio.lowlevel.checkpoint()
        running -= 1

    with anyio.fail_after(LIMIT):
        await gather_in_order([job] * 6, limit=2)
    assert peak == 2


class Boom(Exception):
    pass


async def test_a_failure_cancels_the_siblings_and_propagates_unwrapped() -> None:
    cancelled: list[str] = []

    async def slow() -> None:
        try:
            await anyio.sleep_forever()
        except anyio.get_cancelled_exc_class():
            cancelled.append("slow")
            raise

    async def fails() -> None:
        await anyio.lowlevel.checkpoint()
        raise Boom("broken")

    with anyio.fail_after(LIMIT), pytest.raises(Boom, match="broken"):
        await gather_in_order([slow, fails, slow])
    assert cancelled == ["slow", "slow"]


async def test_cancelling_the_caller_cancels_every_job_and_waits_for_it() -> None:
    cleaned: list[int] = []
    started = anyio.Event()

    def job(position: int) -> Callable[[], Awaitable[None]]:
        async def run() -> None:
            started.set()
            try:
                await anyio.sleep_forever()
            finally:
                with anyio.CancelScope(shield=True):
                    await anyio.lowlevel.checkpoint()  # clean-up that needs a checkpoint
                cleaned.append(position)

        return run

    with anyio.fail_after(LIMIT):
        async with anyio.create_task_group() as group:
            group.start_soon(gather_in_order, [job(0), job(1), job(2)])
            await started.wait()
            group.cancel_scope.cancel()
    assert sorted(cleaned) == [0, 1, 2]


async def test_no_jobs_give_no_results() -> None:
    assert await gather_in_order([]) == []


# -- the jobs are cancelled anyio's way, whatever scopes they are in (issue 27, item 15) --


async def _cancel_the_caller_once(
    jobs: list[Callable[[], Awaitable[None]]], started: anyio.Event
) -> None:
    with anyio.fail_after(LIMIT):
        async with anyio.create_task_group() as group:
            group.start_soon(gather_in_order, jobs)
            await started.wait()
            group.cancel_scope.cancel()


async def test_a_failure_lets_a_siblings_shielded_work_finish() -> None:
    finished: list[str] = []
    shielded_started = anyio.Event()

    async def shielded() -> None:
        with anyio.CancelScope(shield=True):
            shielded_started.set()
            for _ in range(5):
                await anyio.lowlevel.checkpoint()
            finished.append("shielded")
        await anyio.sleep_forever()  # cancelled here, once the shield has ended

    async def fails() -> None:
        await shielded_started.wait()
        raise Boom("broken")

    with anyio.fail_after(LIMIT), pytest.raises(Boom, match="broken"):
        await gather_in_order([shielded, fails])
    assert finished == ["shielded"]


@pytest.mark.parametrize("scopes", ["none", "ended", "plain", "plain around shielded"])
async def test_a_cancelled_job_is_cancelled_in_whatever_scopes_it_is(scopes: str) -> None:
    """A job outside any scope, after its scopes ended, inside a scope of its own, or
    with shielded work inside one: cancelled, shielded work first finished."""
    started = anyio.Event()
    events: list[str] = []

    async def job() -> None:
        if scopes == "ended":
            with anyio.CancelScope():
                await anyio.lowlevel.checkpoint()
        try:
            if scopes == "none" or scopes == "ended":
                started.set()
                await anyio.sleep_forever()
            with anyio.CancelScope():
                if scopes == "plain around shielded":
                    with anyio.CancelScope(shield=True):
                        started.set()  # cancelled while shielded
                        for _ in range(5):
                            await anyio.lowlevel.checkpoint()
                        events.append("shielded work done")
                started.set()
                await anyio.sleep_forever()
        except anyio.get_cancelled_exc_class():
            events.append("cancelled")
            raise

    await _cancel_the_caller_once([job], started)
    expected = ["cancelled"]
    if scopes == "plain around shielded":
        expected = ["shielded work done", "cancelled"]
    assert events == expected


async def test_a_job_that_swallows_the_cancellation_is_cancelled_again() -> None:
    started = anyio.Event()
    seen = 0

    async def stubborn() -> None:
        nonlocal seen
        started.set()
        try:
            await anyio.sleep_forever()
        except anyio.get_cancelled_exc_class():
            seen += 1  # swallowed: the scope cancels again at the next await
        try:
            await anyio.sleep(LIMIT / 2)  # not cancelled again: ends, and seen stays 1
        except anyio.get_cancelled_exc_class():
            seen += 1
            raise

    await _cancel_the_caller_once([stubborn], started)
    assert seen == 2


async def test_a_cancelled_caller_waits_for_shielded_work_without_waking_each_step(
    anyio_backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The caller of a cancelled batch waits once, not once a pass of the event loop
    (asyncio; trio's nursery waits by itself)."""
    if anyio_backend != "asyncio":
        pytest.skip("the asyncio path's own wait; trio's nursery has none")
    import asyncio

    waits = 0
    real_wait = asyncio.wait

    async def counted_wait(*args: Any, **kwargs: Any) -> Any:
        nonlocal waits
        waits += 1
        return await real_wait(*args, **kwargs)

    monkeypatch.setattr(asyncio, "wait", counted_wait)
    started = anyio.Event()

    async def shielded() -> None:
        with anyio.CancelScope(shield=True):
            started.set()
            for _ in range(20):
                await anyio.lowlevel.checkpoint()

    await _cancel_the_caller_once([shielded], started)
    assert waits == 1
