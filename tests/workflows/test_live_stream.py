"""``run(stream=True)`` delivers an agent executor's updates live when it is the only
invocation of its superstep, and batches at the barrier otherwise; either way the
recorded events, outputs and result are those of a plain run."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

import anyio
import pytest
from typing_extensions import Never

from agentcore import (
    Agent,
    AgentResponseUpdate,
    ChatResponse,
    ChatResponseUpdate,
    Message,
    ResponseStream,
)
from agentcore._types.contents import TextContent
from agentcore.adapters import GetResponseResult, get_response_method
from agentcore.testing import ScriptedChatClient
from agentcore.workflows import (
    AGENT_UPDATE,
    AgentTurn,
    ExecutorEvent,
    ExecutorTimeoutError,
    InMemoryCheckpointStore,
    RetryPolicy,
    Workflow,
    WorkflowBuilder,
    WorkflowContext,
    WorkflowEvent,
    executor,
)

pytestmark = pytest.mark.anyio
DEADLOCK_GUARD = 30  # seconds; only stops a hang if updates were not live (never asserted on)


class GatedClient:
    """Streams "Hel", then waits for ``gate`` (set by whoever read "Hel"), then "lo";
    a plain request answers "Hello". ``gate=None`` streams without waiting."""

    def __init__(self, gate: anyio.Event | None = None, *, hang: bool = False) -> None:
        self.gate = gate
        self.hang = hang

    def _get_response(
        self,
        messages: Sequence[Message],
        *,
        options: Mapping[str, Any] | None = None,
        stream: bool = False,
    ) -> GetResponseResult:
        if not stream:
            return self._whole()
        return ResponseStream(self._parts(), finalizer=ChatResponse.from_updates)

    get_response = get_response_method(_get_response)

    async def _whole(self) -> ChatResponse[Any]:
        if self.hang:
            await anyio.sleep_forever()
        return ChatResponse(messages=(Message("assistant", "Hello"),), finish_reason="stop")

    async def _parts(self) -> AsyncIterator[ChatResponseUpdate]:
        yield ChatResponseUpdate(contents=(TextContent("Hel"),), role="assistant")
        if self.hang:
            await anyio.sleep_forever()
        if self.gate is not None:
            await self.gate.wait()
        yield ChatResponseUpdate(contents=(TextContent("lo"),), role="assistant")
        yield ChatResponseUpdate(contents=(), finish_reason="stop")


def pipeline(client: Any, **add: Any) -> Workflow[str, Any]:
    @executor
    async def brief(topic: str) -> str:
        return f"Write about {topic}."

    writer = Agent(client, "Write.", name="writer")
    return WorkflowBuilder(brief, name="live").add(writer, **add).add_edge(brief, writer).build()


def shape(events: Sequence[WorkflowEvent]) -> list[tuple[str, object]]:
    """Events without their random parts (checkpoint ids)."""
    return [(e.type, getattr(e, "executor_id", getattr(e, "superstep", None))) for e in events]


async def test_agent_updates_stream_live_in_single_invocation_superstep() -> None:
    gate = anyio.Event()
    seen: list[WorkflowEvent] = []
    stream = pipeline(GatedClient(gate)).run("kettles", stream=True)
    with anyio.fail_after(DEADLOCK_GUARD):
        async for event in stream:
            seen.append(event)
            if isinstance(event, ExecutorEvent) and event.name == AGENT_UPDATE:
                gate.set()  # the agent can only finish once its first update was read
    result = await stream.get_final_response()
    updates = [e for e in seen if isinstance(e, ExecutorEvent) and e.name == AGENT_UPDATE]
    assert all(isinstance(u.data, AgentResponseUpdate) for u in updates)
    assert "".join(u.data.text for u in updates) == "Hello"
    assert [u.executor_id for u in updates] == ["writer"] * len(updates)
    # the updates sit between the agent's invocation and its completion
    kinds = [(e.type, getattr(e, "executor_id", None)) for e in seen]
    assert kinds.index(("executor_invoked", "writer")) < seen.index(updates[0])
    assert seen.index(updates[-1]) < kinds.index(("executor_completed", "writer"))
    # live only: the recorded events are the stream's without the updates
    assert [e for e in seen if e not in updates] == list(result.events)
    assert result.output.text == "Hello"


async def test_live_and_plain_runs_agree() -> None:
    streamed = pipeline(GatedClient()).run("kettles", stream=True)
    seen = [e async for e in streamed]
    live = await streamed.get_final_response()
    plain = await pipeline(GatedClient()).run("kettles")
    assert shape(live.events) == shape(plain.events)
    assert shape([e for e in seen if not isinstance(e, ExecutorEvent)]) == shape(plain.events)
    assert [o.text for o in live.outputs] == [o.text for o in plain.outputs] == ["Hello"]
    assert live.status == plain.status == "completed"
    assert live.supersteps == plain.supersteps == 2


async def test_several_invocations_are_batched_at_the_barrier() -> None:
    def build() -> Workflow[str, Any]:
        market = Agent(ScriptedChatClient(["Large market."]), "Assess.", name="market")
        legal = Agent(ScriptedChatClient(["Few risks."]), "List risks.", name="legal")

        @executor
        async def brief(idea: str) -> str:
            return f"Idea: {idea}"

        return WorkflowBuilder(brief, name="assess").add_fan_out(brief, [market, legal]).build()

    stream = build().run("a kettle", stream=True)
    seen = [e async for e in stream]
    result = await stream.get_final_response()
    assert not any(isinstance(e, ExecutorEvent) for e in seen)  # no live updates
    plain = await build().run("a kettle")
    assert shape(seen) == shape(result.events) == shape(plain.events)
    assert [o.text for o in result.outputs] == ["Large market.", "Few risks."]


async def test_live_step_timeout_fails_the_run_like_a_plain_one() -> None:
    workflow = pipeline(GatedClient(hang=True), timeout=0.05)
    seen: list[str] = []
    stream = workflow.run("kettles", stream=True)

    async def read() -> None:
        async for event in stream:
            seen.append(event.type)

    with pytest.raises(ExecutorTimeoutError) as streamed:
        await read()
    with pytest.raises(ExecutorTimeoutError) as plain:
        await pipeline(GatedClient(hang=True), timeout=0.05).run("kettles")
    assert streamed.value.executor_id == plain.value.executor_id == "writer"
    assert seen[-3:] == ["executor_failed", "superstep_aborted", "run_failed"]


async def test_a_failed_live_attempt_is_retried() -> None:
    client = ScriptedChatClient([RuntimeError("boom"), "Hello"])
    retry = RetryPolicy(max_attempts=2, initial_delay=0, retry_on=lambda _: True)
    stream = pipeline(client, retry=retry).run("kettles", stream=True)
    seen = [e async for e in stream]
    result = await stream.get_final_response()
    assert result.output.text == "Hello"
    assert "".join(e.data.text for e in seen if isinstance(e, ExecutorEvent)) == "Hello"


async def test_breaking_off_a_live_step_leaves_a_healthy_loop_and_a_resumable_run() -> None:
    store = InMemoryCheckpointStore()
    gate = anyio.Event()  # never set: the agent waits in its stream when we leave
    workflow = pipeline(GatedClient(gate))
    stream = workflow.run("kettles", stream=True, run_id="r1", checkpoints=store)
    async with stream:
        async for event in stream:
            if isinstance(event, ExecutorEvent):  # the agent's first update
                break
    with anyio.move_on_after(0.01):
        async for _ in pipeline(GatedClient(anyio.Event())).run("x", stream=True):
            pass
    latest = await store.load("r1")
    assert latest is not None
    assert latest.superstep == 1  # the barrier before the agent
    done = await pipeline(GatedClient()).run(run_id="r1", checkpoints=store)
    assert done.output.text == "Hello"


@pytest.mark.parametrize("stream", [False, True])
async def test_conditions_see_only_the_final_turn_not_chunks(stream: bool) -> None:
    seen: list[object] = []

    def long_answer(turn: object) -> bool:
        seen.append(turn)
        return True

    @executor
    async def brief(topic: str) -> str:
        return f"Write about {topic}."

    @executor(id="publish")
    async def publish(turn: AgentTurn, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(turn.text)

    writer = Agent(GatedClient(), "Write.", name="writer")
    workflow = (
        WorkflowBuilder(brief, name="cond")
        .add_edge(brief, writer)
        .add_edge(writer, publish, when=long_answer)
        .build()
    )
    if stream:
        running = workflow.run("kettles", stream=True)
        updates = [e async for e in running if isinstance(e, ExecutorEvent)]
        assert len(updates) > 1  # the agent streamed in parts
        result = await running.get_final_response()
    else:
        result = await workflow.run("kettles")
    assert result.output == "Hello"
    [turn] = seen  # called once, with the whole turn
    assert isinstance(turn, AgentTurn)
    assert turn.text == "Hello"
