"""SessionTurns: runs of one session take turns in arrival order; others never wait."""

from __future__ import annotations

import anyio
import pytest

from agentcore._sessions.turns import SessionTurns

pytestmark = pytest.mark.anyio
LIMIT = 5.0


async def test_an_uncontended_turn_is_taken_at_once_and_leaves_nothing_behind() -> None:
    turns = SessionTurns()
    await turns.enter("s")
    assert turns.busy("s")
    turns.leave("s")
    assert not turns.busy("s")


async def test_runs_of_one_session_take_turns_in_arrival_order() -> None:
    turns = SessionTurns()
    order: list[str] = []

    async def run(name: str, started: anyio.Event) -> None:
        started.set()
        await turns.enter("s")
        order.append(f"{name} in")
        await anyio.lowlevel.checkpoint()
        order.append(f"{name} out")
        turns.leave("s")

    with anyio.fail_after(LIMIT):
        await turns.enter("s")  # the first run holds the turn
        async with anyio.create_task_group() as group:
            for name in ("b", "c"):
                started = anyio.Event()
                group.start_soon(run, name, started)
                await started.wait()
                await anyio.lowlevel.checkpoint()
            order.append("a out")
            turns.leave("s")
    assert order == ["a out", "b in", "b out", "c in", "c out"]
    assert not turns.busy("s")


async def test_other_sessions_do_not_wait() -> None:
    turns = SessionTurns()
    await turns.enter("s1")
    with anyio.fail_after(LIMIT):
        await turns.enter("s2")
    turns.leave("s2")
    turns.leave("s1")


async def test_a_cancelled_waiter_gives_up_its_place() -> None:
    turns = SessionTurns()
    await turns.enter("s")
    with anyio.fail_after(LIMIT):
        with anyio.move_on_after(0.01):
            await turns.enter("s")  # waits, then is cancelled
        turns.leave("s")
        assert not turns.busy("s")  # nobody holds or waits for the turn any more
        await turns.enter("s")
        turns.leave("s")


async def test_a_cancelled_waiter_does_not_block_the_runs_behind_it() -> None:
    turns = SessionTurns()
    await turns.enter("s")
    reached: list[str] = []

    async def second() -> None:
        with anyio.CancelScope() as scope:
            scope.cancel()
            await turns.enter("s")  # joins the line, then gives up
        reached.append("second gave up")

    async def third() -> None:
        await turns.enter("s")
        reached.append("third in")
        turns.leave("s")

    with anyio.fail_after(LIMIT):
        async with anyio.create_task_group() as group:
            group.start_soon(second)
            await anyio.lowlevel.checkpoint()
            group.start_soon(third)
            await anyio.lowlevel.checkpoint()
            turns.leave("s")
    assert "third in" in reached
    assert not turns.busy("s")
