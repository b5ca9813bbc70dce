"""``open_run``: the run is a task of the context manager, so what concurrent handlers
emit reaches the consumer as it happens; the final value equals a plain run; failures
end the stream with the run's error; leaving early cancels the run (resumable)."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any

import anyio
import pytest
from typing_extensions import Never

from agentcore import Agent, AgentResponseUpdate, ResponseStream
from agentcore.errors import RunStateError
from agentcore.testing import ScriptedChatClient
from agentcore.workflows import (
    AGENT_UPDATE,
    ExecutorEvent,
    ExecutorFailedError,
    InMemoryCheckpointStore,
    Workflow,
    WorkflowBuilder,
    WorkflowContext,
    WorkflowEvent,
    executor,
)

pytestmark = pytest.mark.anyio
DEADLOCK_GUARD = 30  # seconds; only stops a hang if events were not live (never asserted on)


class Talk:
    """Two executors in one superstep that can only finish if each sees the other's
    emitted event while both are still running."""

    def __init__(self) -> None:
        self.a_go = anyio.Event()
        self.b_go = anyio.Event()

    def workflow(self, store: InMemoryCheckpointStore | None = None) -> Workflow[int, str]:
        talk = self

        @executor
        async def start(n: int, ctx: WorkflowContext[int]) -> None:
            await ctx.send(n)

        @executor(id="a")
        async def a(n: int, ctx: WorkflowContext[str]) -> None:
            await ctx.emit("a1")
            await talk.a_go.wait()
            await ctx.emit("a2")
            await ctx.send(f"a{n}")

        @executor(id="b")
        async def b(n: int, ctx: WorkflowContext[str]) -> None:
            await talk.b_go.wait()
            await ctx.emit("b1")
            await ctx.send(f"b{n}")

        @executor
        async def join(parts: Sequence[str], ctx: WorkflowContext[Never, str]) -> None:
            await ctx.yield_output("+".join(parts))

        return (
            WorkflowBuilder(start, name="talk", checkpoints=store)
            .add_fan_out(start, [a, b])
            .add_fan_in([a, b], join)
            .build()
        )

    def react(self, event: WorkflowEvent) -> None:
        if isinstance(event, ExecutorEvent):
            if event.data == "a1":
                self.b_go.set()
            elif event.data == "b1":
                self.a_go.set()


async def read_all(
    opened: AbstractAsyncContextManager[ResponseStream[WorkflowEvent, Any]], types: list[str]
) -> None:
    async with opened as stream:
        async for event in stream:
            types.append(event.type)


async def test_concurrent_emits_reach_the_consumer_live_and_the_result_matches() -> None:
    talk = Talk()
    seen: list[str] = []
    with anyio.fail_after(DEADLOCK_GUARD):
        async with talk.workflow().open_run(1) as stream:
            async for event in stream:
                talk.react(event)
                if isinstance(event, ExecutorEvent):
                    seen.append(str(event.data))
            result = await stream.get_final_response()
    assert seen == ["a1", "b1", "a2"]
    assert result.output == "a1+b1"
    assert result.status == "completed"
    emitted = [e.data for e in result.events if isinstance(e, ExecutorEvent)]
    assert emitted == ["a1", "a2", "b1"]  # the run's own record keeps commit order

    plain = Talk()
    plain.a_go.set()
    plain.b_go.set()
    assert (await plain.workflow().run(1)).output == result.output


async def test_a_failure_ends_the_stream_with_the_runs_error() -> None:
    @executor
    async def boom(n: int, ctx: WorkflowContext[Never, int]) -> None:
        await ctx.emit("before")
        raise ValueError(f"bad {n}")

    workflow = WorkflowBuilder(boom, name="boom").build()
    types: list[str] = []
    with pytest.raises(ExecutorFailedError) as info:
        await read_all(workflow.open_run(3), types)
    assert isinstance(info.value.__cause__, ValueError)
    assert types[-3:] == ["executor_failed", "superstep_aborted", "run_failed"]
    assert types.count("executor_event") == 1


async def test_leaving_early_cancels_the_run_and_it_resumes() -> None:
    store = InMemoryCheckpointStore()
    talk = Talk()
    async with talk.workflow(store).open_run(2, run_id="early") as stream:
        async for event in stream:
            if isinstance(event, ExecutorEvent):
                break  # a1 arrived; b is still waiting: the run is cancelled on exit
    latest = await store.load("early")
    assert latest is not None
    assert latest.status == "cancelled"
    talk.a_go.set()
    talk.b_go.set()
    assert (await talk.workflow(store).run(run_id="early")).output == "a2+b2"


async def test_bad_arguments_are_refused_and_a_missing_run_ends_the_stream() -> None:
    workflow = Talk().workflow()
    with pytest.raises(TypeError, match="needs a message"):
        workflow.open_run()  # refused at the call, before anything runs
    store = InMemoryCheckpointStore()
    with pytest.raises(RunStateError, match="no run 'nope'"):
        await read_all(Talk().workflow(store).open_run(run_id="nope"), [])


async def test_agent_executors_stream_their_updates_live() -> None:
    def build() -> Workflow[str, Any]:
        market = Agent(ScriptedChatClient(["Large market."]), "Assess.", name="market")
        legal = Agent(ScriptedChatClient(["Few risks."]), "List risks.", name="legal")

        @executor
        async def brief(idea: str) -> str:
            return f"Idea: {idea}"

        return WorkflowBuilder(brief, name="assess").add_fan_out(brief, [market, legal]).build()

    order: list[str] = []
    texts: dict[str, str] = {}
    async with build().open_run("a kettle") as stream:
        async for event in stream:
            if isinstance(event, ExecutorEvent) and event.name == AGENT_UPDATE:
                assert isinstance(event.data, AgentResponseUpdate)
                texts[event.executor_id] = texts.get(event.executor_id, "") + event.data.text
                order.append("update")
            elif event.type == "output":
                order.append("output")
        result = await stream.get_final_response()
    assert texts == {"market": "Large market.", "legal": "Few risks."}
    assert order.index("output") > max(i for i, o in enumerate(order) if o == "update")
    assert [o.text for o in result.outputs] == ["Large market.", "Few risks."]
    assert not any(isinstance(e, ExecutorEvent) for e in result.events)  # live only
    plain = await build().run("a kettle")
    assert [o.text for o in plain.outputs] == [o.text for o in result.outputs]
