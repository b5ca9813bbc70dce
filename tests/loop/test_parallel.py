"""Parallel calls of one turn: concurrent, bounded, in call order, isolated, cancellable."""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any

import anyio
import pytest

from agentcore import (
    Agent,
    FunctionInvocationConfiguration,
    FunctionResultContent,
    FunctionTool,
    InMemoryHistoryStore,
    tool,
)
from agentcore.testing import ScriptedChatClient

from .harness import assert_history_valid, calls, results, run_agent, text

pytestmark = pytest.mark.anyio

LIMIT = 5.0
"""Seconds before a test that would deadlock fails instead (never reached when it passes)."""


@pytest.mark.parametrize("stream", [False, True])
async def test_calls_of_one_turn_run_at_the_same_time(stream: bool) -> None:
    # ``first`` can only finish once ``second`` has started: run one after the other,
    # the batch would wait forever.
    second_started = anyio.Event()

    @tool
    async def first() -> str:
        """Wait for the second tool."""
        await second_started.wait()
        return "first done"

    @tool
    async def second() -> str:
        """Let the first tool finish."""
        second_started.set()
        return "second done"

    client = ScriptedChatClient([calls(("a", "first", "{}"), ("b", "second", "{}")), text("ok")])
    agent = Agent(client, tools=[first, second])

    with anyio.fail_after(LIMIT):
        response, _ = await run_agent(agent, "go", stream=stream)

    assert results(response.messages) == [
        FunctionResultContent("a", result="first done"),
        FunctionResultContent("b", result="second done"),
    ]
    assert_history_valid(client.requests)


@pytest.mark.parametrize("stream", [False, True])
async def test_max_concurrency_bounds_the_calls_running_at_once(stream: bool) -> None:
    running = 0
    peak = 0
    # Each call waits until ``limit`` calls run together, so the test also proves the
    # bound is reached (a batch capped lower would wait forever).
    full = anyio.Event()
    limit = 2

    @tool
    async def work(n: int) -> int:
        """Do some work."""
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        if running == limit:
            full.set()
        await full.wait()
        await anyio.lowlevel.checkpoint()
        running -= 1
        return n

    batch = calls(*((f"c{n}", "work", f'{{"n": {n}}}') for n in range(5)))
    client = ScriptedChatClient([batch, text("ok")])
    agent = Agent(
        client, tools=[work], tool_loop=FunctionInvocationConfiguration(max_concurrency=2)
    )

    with anyio.fail_after(LIMIT):
        response, _ = await run_agent(agent, "go", stream=stream)

    assert peak == limit
    assert [r.result for r in results(response.messages)] == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("stream", [False, True])
async def test_without_max_concurrency_every_call_of_the_turn_runs_at_once(stream: bool) -> None:
    running = 0
    peak = 0
    everyone = anyio.Event()
    size = 6

    @tool
    async def work(n: int) -> int:
        """Do some work."""
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        if running == size:
            everyone.set()
        await everyone.wait()
        return n

    batch = calls(*((f"c{n}", "work", f'{{"n": {n}}}') for n in range(size)))
    client = ScriptedChatClient([batch, text("ok")])

    with anyio.fail_after(LIMIT):
        await run_agent(Agent(client, tools=[work]), "go", stream=stream)

    assert peak == size


@pytest.mark.parametrize("stream", [False, True])
async def test_results_keep_call_order_when_calls_finish_in_reverse(stream: bool) -> None:
    finished: list[str] = []
    slow_may_finish = anyio.Event()

    @tool
    async def slow() -> str:
        """Finish last."""
        await slow_may_finish.wait()
        finished.append("slow")
        return "slow result"

    @tool
    async def fast() -> str:
        """Finish first."""
        finished.append("fast")
        slow_may_finish.set()
        return "fast result"

    client = ScriptedChatClient([calls(("s", "slow", "{}"), ("f", "fast", "{}")), text("ok")])

    with anyio.fail_after(LIMIT):
        response, _ = await run_agent(Agent(client, tools=[slow, fast]), "go", stream=stream)

    assert finished == ["fast", "slow"]
    assert results(response.messages) == [
        FunctionResultContent("s", result="slow result"),
        FunctionResultContent("f", result="fast result"),
    ]
    assert results(client.requests[1].messages) == results(response.messages)


@pytest.mark.parametrize("stream", [False, True])
async def test_a_failing_call_does_not_cancel_its_siblings(stream: bool) -> None:
    failed = anyio.Event()

    @tool
    async def breaks() -> str:
        """Fail."""
        failed.set()
        raise RuntimeError("broken")

    @tool
    async def outlives() -> str:
        """Finish after the sibling failed."""
        await failed.wait()
        await anyio.lowlevel.checkpoint()
        return "still here"

    client = ScriptedChatClient([calls(("x", "breaks", "{}"), ("y", "outlives", "{}")), text("ok")])

    with anyio.fail_after(LIMIT):
        response, _ = await run_agent(Agent(client, tools=[breaks, outlives]), "go", stream=stream)

    broken, alive = results(response.messages)
    assert broken.call_id == "x"
    assert broken.error is not None
    assert alive == FunctionResultContent("y", result="still here")
    assert response.text == "ok"
    assert_history_valid(client.requests)


@pytest.mark.parametrize("stream", [False, True])
async def test_cancelling_the_run_cancels_the_running_tools(stream: bool) -> None:
    started: list[str] = []
    cancelled: list[str] = []
    both_started = anyio.Event()

    def waiter(name: str) -> FunctionTool[[], Coroutine[Any, Any, str]]:
        async def wait_forever() -> str:
            started.append(name)
            if len(started) == 2:
                both_started.set()
            try:
                await anyio.sleep_forever()
            except anyio.get_cancelled_exc_class():
                cancelled.append(name)
                raise
            return "unreachable"

        return FunctionTool(wait_forever, name=name, description="Wait forever.")

    client = ScriptedChatClient([calls(("a", "one", "{}"), ("b", "two", "{}"))])
    agent = Agent(client, tools=[waiter("one"), waiter("two")])

    with anyio.fail_after(LIMIT):
        async with anyio.create_task_group() as group:

            async def run() -> None:
                await run_agent(agent, "go", stream=stream)

            group.start_soon(run)
            await both_started.wait()
            group.cancel_scope.cancel()

    assert sorted(cancelled) == ["one", "two"]
    assert len(client.requests) == 1


@pytest.mark.parametrize("stream", [False, True])
async def test_a_cancelled_run_leaves_the_session_history_valid(stream: bool) -> None:
    entered = anyio.Event()

    @tool
    async def hang() -> str:
        """Never finish."""
        entered.set()
        await anyio.sleep_forever()
        return "unreachable"

    client = ScriptedChatClient([calls(("a", "hang", "{}")), text("fresh start")])
    agent = Agent(client, tools=[hang], history=InMemoryHistoryStore())
    session = agent.create_session()

    with anyio.fail_after(LIMIT):
        async with anyio.create_task_group() as group:

            async def run() -> None:
                await run_agent(agent, "go", stream=stream, session=session)

            group.start_soon(run)
            await entered.wait()
            group.cancel_scope.cancel()
        response, _ = await run_agent(agent, "again", stream=stream, session=session)

    assert response.text == "fresh start"
    assert_history_valid(client.requests)
