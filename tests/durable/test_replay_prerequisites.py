"""What exact replay needs from the kernel, each on its own: request ids derived from
the run and the call, engine exceptions that end the run instead of becoming tool
results, and parallel tool calls whose steps are drawn in call order."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import anyio
import pytest

from agentcore import Agent, AgentContext, AgentSession, ChatResponse, tool
from agentcore._replay import DurableRun, StepPolicy, StepSlot, request_id
from agentcore.middleware import AgentMiddlewareFunction
from agentcore.testing import ScriptedChatClient
from agentcore.tools import ToolContext

from ..loop.harness import calls, one_call, results, text

pytestmark = pytest.mark.anyio


def fixed_run_id(run_id: str) -> AgentMiddlewareFunction:
    """Agent middleware that gives the run a known id (what a durable wrapper does)."""

    async def middleware(context: AgentContext, call_next: Callable[[], Awaitable[None]]) -> None:
        context.run.run_id = run_id
        await call_next()

    return middleware


@tool(approval_mode="always_require")
def charge(amount: int) -> str:
    """Charge the card."""
    return f"charged {amount}"


async def _approval_id(run_id: str, stream: bool) -> str:
    client = ScriptedChatClient([one_call("charge", '{"amount": 5}')])
    agent = Agent(client, tools=[charge], middleware=[fixed_run_id(run_id)])
    if stream:
        response = await agent.run("pay", stream=True).get_final_response()
    else:
        response = await agent.run("pay")
    (request,) = response.approval_requests
    return request.id


@pytest.mark.parametrize("stream", [False, True])
async def test_an_approval_request_id_is_derived_from_the_run_and_the_call(stream: bool) -> None:
    first = await _approval_id("run-a", stream)
    assert first == await _approval_id("run-a", stream)  # a replay issues the same id
    assert first == request_id("run-a", "c1", "approval")
    assert first != await _approval_id("run-b", stream)  # another run: another id


async def test_a_decision_for_the_id_shown_before_a_crash_matches_the_replayed_run() -> None:
    ran: list[int] = []

    @tool(approval_mode="always_require")
    def pay(amount: int) -> str:
        """Pay."""
        ran.append(amount)
        return "paid"

    def make_agent() -> Agent:
        script = [one_call("pay", '{"amount": 5}'), text("done")]
        return Agent(ScriptedChatClient(script), tools=[pay], middleware=[fixed_run_id("wf-1")])

    shown = (await make_agent().run("pay")).approval_requests[0]  # then the process dies
    replayed = make_agent()  # a new process replays the run and pauses again
    session = AgentSession()
    await replayed.run("pay", session=session)
    response = await replayed.run(shown.create_response(True), session=session)
    assert ran == [5]
    assert response.text == "done"


async def test_a_user_input_request_id_is_derived_from_the_run_call_and_prompt() -> None:
    @tool
    def size(context: ToolContext) -> str:
        """Ask for a size."""
        return context.ask("Which size?")

    async def ask(run_id: str) -> str:
        client = ScriptedChatClient([one_call("size")])
        response = await Agent(client, tools=[size], middleware=[fixed_run_id(run_id)]).run("x")
        return response.user_input_requests[0].id

    assert await ask("r1") == await ask("r1") == request_id("r1", "c1", "input", "Which size?")
    assert await ask("r1") != await ask("r2")


class EngineFailure(Exception):
    """Stands for an engine's own exception (DBOS's DBOSUnexpectedStepError, ...)."""


class RecordingEngine:
    """An engine double: records reservations and steps; ``reserves`` toggles reserve()."""

    name = "recording"
    errors: tuple[type[BaseException], ...] = (EngineFailure,)

    def __init__(self, *, reserves: bool) -> None:
        self.reserves = reserves
        self.positions: list[int] = []
        self.next_position = 0

    def active(self) -> bool:
        return True

    def new_run_key(self) -> str:
        return "k"

    async def step(
        self, name: str, body: Callable[[], Awaitable[Any]], *, policy: StepPolicy | None = None
    ) -> Any:
        self.positions.append(self.next_position)
        self.next_position += 1
        return await body()

    def reserve(self, count: int) -> Sequence[StepSlot] | None:
        if not self.reserves:
            return None
        slots = [Slot(self, self.next_position + i) for i in range(count)]
        self.next_position += count
        return slots

    async def receive(self, topic: str, *, wait: float | None = None) -> Any:
        raise AssertionError("not used")

    async def publish(self, key: str, value: Any) -> None:
        raise AssertionError("not used")


class Slot:
    def __init__(self, engine: RecordingEngine, position: int) -> None:
        self.engine = engine
        self.position = position

    async def step(
        self, name: str, body: Callable[[], Awaitable[Any]], *, policy: StepPolicy | None = None
    ) -> Any:
        self.engine.positions.append(self.position)
        return await body()


def attach(engine: RecordingEngine) -> AgentMiddlewareFunction:
    async def middleware(context: AgentContext, call_next: Callable[[], Awaitable[None]]) -> None:
        context.run.durable = DurableRun(engine, "test")
        await call_next()

    return middleware


async def test_an_engine_exception_inside_a_tool_ends_the_run() -> None:
    ran: list[str] = []

    @tool
    def lookup() -> str:
        """Look up."""
        ran.append("lookup")
        raise EngineFailure("step 3 was recorded as 'charge'")

    client = ScriptedChatClient([one_call("lookup"), text("never")])
    agent = Agent(client, tools=[lookup], middleware=[attach(RecordingEngine(reserves=True))])
    with pytest.raises(EngineFailure, match="recorded as 'charge'"):
        await agent.run("go")
    assert ran == ["lookup"]
    assert len(client.requests) == 1  # the model was never told "lookup failed"


async def test_without_a_durable_engine_the_same_exception_is_a_tool_failure() -> None:
    @tool
    def lookup() -> str:
        """Look up."""
        raise EngineFailure("boom")

    client = ScriptedChatClient([one_call("lookup"), text("ok")])
    response = await Agent(client, tools=[lookup]).run("go")
    assert results(response.messages)[0].error == "exception"


async def test_cancellation_inside_a_tool_is_never_a_tool_result() -> None:
    started = anyio.Event()

    @tool
    async def wait_forever() -> str:
        """Wait."""
        started.set()
        await anyio.sleep_forever()
        return "never"

    client = ScriptedChatClient([one_call("wait_forever"), text("never")])
    agent = Agent(client, tools=[wait_forever], middleware=[attach(RecordingEngine(reserves=True))])
    outcome: list[ChatResponse[Any] | Any] = []
    async with anyio.create_task_group() as group:

        async def run() -> None:
            outcome.append(await agent.run("go"))

        group.start_soon(run)
        await started.wait()
        group.cancel_scope.cancel()
    assert outcome == []
    assert len(client.requests) == 1


def _parallel_agent(engine: RecordingEngine, started: list[str]) -> Agent:
    @tool
    async def slow() -> str:
        """Slow."""
        started.append("slow")
        return "s"

    @tool
    async def fast() -> str:
        """Fast."""
        started.append("fast")
        return "f"

    def wrapped(inner: Any) -> Any:
        # A tool whose step is taken from the reserved slot, as the durable wrapper does.
        original = inner.invoke

        async def invoke(arguments: Any, *, context: Any) -> Any:
            if inner.name == "slow":
                await anyio.sleep(0.01)  # reaches the engine after "fast" does
            slot = context.run.durable.take_slot(context.call_id)
            runner = slot.step if slot is not None else engine.step

            async def body() -> Any:
                return await original(arguments, context=context)

            return await runner(inner.name, body)

        inner.invoke = invoke
        return inner

    client = ScriptedChatClient([calls(("c1", "slow", "{}"), ("c2", "fast", "{}")), text("done")])
    return Agent(client, tools=[wrapped(slow), wrapped(fast)], middleware=[attach(engine)])


async def test_parallel_calls_take_the_step_positions_drawn_in_call_order() -> None:
    engine = RecordingEngine(reserves=True)
    started: list[str] = []
    response = await _parallel_agent(engine, started).run("go")
    assert started == ["fast", "slow"]  # they ran concurrently, "fast" first
    assert engine.positions == [1, 0]  # but "slow" (the first call) has the first position
    assert [r.result for r in results(response.messages)] == ["s", "f"]


async def test_without_reservations_parallel_calls_run_one_by_one_in_call_order() -> None:
    engine = RecordingEngine(reserves=False)
    started: list[str] = []
    await _parallel_agent(engine, started).run("go")
    assert started == ["slow", "fast"]
    assert engine.positions == [0, 1]


def test_a_step_policy_refuses_nonsense() -> None:
    with pytest.raises(ValueError, match="max_attempts"):
        StepPolicy(max_attempts=0)
    with pytest.raises(ValueError, match="backoff"):
        StepPolicy(backoff_rate=0.5)


def test_request_ids_look_like_the_random_ones() -> None:
    rid = request_id("r", "c", "approval")
    assert rid.startswith("apr_")
    assert len(rid) == 26


async def test_a_tool_gets_an_idempotency_key_from_the_run_and_the_call() -> None:
    keys: list[str] = []

    @tool
    def pay(context: ToolContext) -> str:
        """Pay."""
        keys.append(context.idempotency_key)
        return "paid"

    for _ in range(2):  # the same run replayed: the same key
        client = ScriptedChatClient([one_call("pay"), text("done")])
        await Agent(client, tools=[pay], middleware=[fixed_run_id("wf-7")]).run("x")
    assert keys == ["wf-7:c1", "wf-7:c1"]
