"""Cancelling a run keeps anyio's guarantees on asyncio as on trio, in parallel batches too.

A tool's shielded work completes and a tool running in a worker thread is waited
for: when the cancelled run has unwound, both have finished.
"""

from __future__ import annotations

import threading
import time

import anyio
import pytest

from agentcore import Agent, AgentTool, tool
from agentcore.testing import ScriptedChatClient

from .harness import calls, one_call

pytestmark = pytest.mark.anyio


class Batch:
    """Two tools that report when they started and when their protected work ended."""

    def __init__(self, expected: int) -> None:
        self.started = 0
        self.expected = expected
        self.all_started = anyio.Event()
        self.finished: list[str] = []
        self.release_thread = threading.Event()

        async def mark_started() -> None:
            self.started += 1
            if self.started == self.expected:
                self.all_started.set()

        @tool
        async def shielded() -> str:
            """Work that must not be cut short."""
            await mark_started()
            with anyio.CancelScope(shield=True):
                await anyio.sleep(0.02)
                self.finished.append("shielded")
            return "done"

        @tool
        def threaded() -> str:
            """Blocking work in a worker thread."""
            anyio.from_thread.run(mark_started)
            self.release_thread.wait(5)
            time.sleep(0.01)
            self.finished.append("threaded")
            return "done"

        self.tools: list[AgentTool] = [shielded, threaded]


async def _cancel_once_started(agent: Agent, batch: Batch, stream: bool) -> None:
    async def run() -> None:
        if stream:
            async for _ in agent.run("go", stream=True):
                pass
        else:
            await agent.run("go")

    async with anyio.create_task_group() as group:
        group.start_soon(run)
        await batch.all_started.wait()
        group.cancel_scope.cancel()
        batch.release_thread.set()


@pytest.mark.parametrize("stream", [False, True])
async def test_a_cancelled_parallel_batch_lets_shielded_and_thread_work_finish(
    stream: bool,
) -> None:
    batch = Batch(expected=2)
    client = ScriptedChatClient(
        [calls(("a", "shielded", "{}"), ("b", "threaded", "{}")), "not reached, or after"]
    )
    agent = Agent(client, tools=batch.tools)

    await _cancel_once_started(agent, batch, stream)

    assert sorted(batch.finished) == ["shielded", "threaded"]


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("name", ["shielded", "threaded"])
async def test_a_cancelled_single_call_lets_its_protected_work_finish(
    stream: bool, name: str
) -> None:
    batch = Batch(expected=1)
    agent = Agent(ScriptedChatClient([one_call(name), "not reached, or after"]), tools=batch.tools)

    await _cancel_once_started(agent, batch, stream)

    assert batch.finished == [name]


@pytest.mark.parametrize("stream", [False, True])
async def test_a_limited_parallel_batch_keeps_the_guarantees(stream: bool) -> None:
    from agentcore import FunctionInvocationConfiguration

    batch = Batch(expected=2)
    client = ScriptedChatClient(
        [calls(("a", "shielded", "{}"), ("b", "threaded", "{}")), "not reached, or after"]
    )
    agent = Agent(
        client, tools=batch.tools, tool_loop=FunctionInvocationConfiguration(max_concurrency=2)
    )

    await _cancel_once_started(agent, batch, stream)

    assert sorted(batch.finished) == ["shielded", "threaded"]
