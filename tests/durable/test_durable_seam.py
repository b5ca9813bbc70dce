"""The engine-neutral seam: model and tool calls are steps, history load and append
are steps, the loop and middleware replay; checked with an in-memory engine that
replays a journal, crashing runs with an exception that nothing catches."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, cast

import anyio
import attrs
import pytest

from agentcore import (
    Agent,
    AgentSession,
    ChatResponse,
    FunctionApprovalRequestContent,
    FunctionCallContent,
    FunctionInvocationContext,
    InMemoryHistoryStore,
    Message,
    SqliteHistoryStore,
    UserInputRequestContent,
    tool,
)
from agentcore.durable import (
    DECISIONS_TOPIC,
    PENDING_KEY,
    DurableChatClient,
    DurableEngine,
    DurableExecutionError,
    decode_requests,
    durable_agent,
    durable_tool,
    encode_decisions,
    run_until_answered,
)
from agentcore.errors import RunStateError, ToolCallRefused
from agentcore.observers import RunStarted
from agentcore.protocols import SupportsGetResponse
from agentcore.testing import FunctionChatClient, ScriptedChatClient
from agentcore.tools import FunctionTool, ToolContext, ToolResult

from ..loop.harness import calls, results, text
from .journal_engine import Journal, JournalEngine, StepMismatch

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # durable runs are asyncio only (the trio refusal is tested below)


class Crash(BaseException):
    """The process dies: nothing in the run catches it."""


class World:
    """Effects outside the run, kept across 'processes'."""

    def __init__(self) -> None:
        self.effects: list[str] = []
        self.crash_at: str | None = None

    def maybe_crash(self, point: str) -> None:
        if self.crash_at == point:
            self.crash_at = None
            raise Crash(point)

    def client(self) -> FunctionChatClient:
        async def respond(messages: Sequence[Message], options: Any) -> ChatResponse[Any]:
            self.effects.append(f"model {len(messages)}")
            if any(m.role == "tool" for m in messages):
                found = results(messages)
                return text("done: " + ", ".join(str(r.result) for r in found))
            return calls(("c1", "lookup", '{"item": "tea"}'), ("c2", "charge", '{"amount": 5}'))

        return FunctionChatClient(respond)

    def agent(self, **extra: Any) -> Agent:
        @tool
        async def lookup(item: str) -> str:
            """Look up a price."""
            self.effects.append("lookup")
            self.maybe_crash("lookup")
            return f"{item}: 2.2"

        @tool
        async def charge(amount: int) -> str:
            """Charge the card."""
            self.effects.append("charge start")
            self.maybe_crash("charge")
            self.effects.append("charge end")
            return f"charged {amount}"

        return Agent(self.world_client(), "Sell tea.", name="cafe", tools=[lookup, charge], **extra)

    def world_client(self) -> FunctionChatClient:
        return self.client()


async def run_and_recover(world: World, journal: Journal, crash_at: str, **extra: Any) -> Any:
    world.crash_at = crash_at
    first = durable_agent(world.agent(**extra), JournalEngine(journal))
    with pytest.raises(Crash):
        await first.run("one tea", session=AgentSession(session_id="s1"))
    recovered = durable_agent(world.agent(**extra), JournalEngine(journal))
    return await recovered.run("one tea", session=AgentSession(session_id="s1"))


async def test_a_crash_mid_tool_repeats_no_model_call_and_no_finished_tool() -> None:
    world, journal = World(), Journal()
    response = await run_and_recover(world, journal, "charge")
    assert response.text == "done: tea: 2.2, charged 5"
    assert world.effects.count("model 1") == 1  # the first model call is not repeated
    assert world.effects.count("lookup") == 1  # the finished tool does not run again
    assert world.effects.count("charge start") == 2  # the call in flight runs again
    assert world.effects.count("charge end") == 1
    assert [n for n in journal.executed if n.endswith(".model")] == ["cafe.model", "cafe.model"]


async def test_history_load_and_append_are_steps_and_a_replay_appends_once() -> None:
    world, journal = World(), Journal()
    store = InMemoryHistoryStore()
    await run_and_recover(world, journal, "charge", history=store)
    assert journal.executed.count("cafe.history.load") == 1
    assert journal.executed.count("cafe.history.append") == 1
    stored = await store.load("s1")
    assert [m.role for m in stored] == ["user", "assistant", "tool", "assistant"]
    # A later replay of the whole finished run changes nothing.
    again = durable_agent(world.agent(history=store), JournalEngine(journal))
    await again.run("one tea", session=AgentSession(session_id="s1"))
    assert len(await store.load("s1")) == 4


async def test_durable_and_plain_agents_on_one_sqlite_file_share_a_session(
    tmp_path: Path,
) -> None:
    # An agent made durable per request, and a plain one, each opening the file.
    world, journal = World(), Journal()
    stores = [SqliteHistoryStore(tmp_path / "h.db") for _ in range(3)]
    try:
        session = AgentSession(session_id="s1")
        for store in stores[:2]:
            agent = durable_agent(world.agent(history=store), JournalEngine(journal))
            await agent.run("one tea", session=session)
            journal.steps.clear()  # a new durable run for each turn
        plain = Agent(ScriptedChatClient([text("ok")]), name="plain", history=stores[2])
        await plain.run("thanks", session=session)
        stored = await stores[0].load("s1")
        assert [m.text for m in stored if m.role == "user"] == ["one tea", "one tea", "thanks"]
        assert len(stored) == 4 + 2 + 2  # the second turn's model saw the first's results
        with pytest.raises(RunStateError, match="would not see the conversation"):
            await durable_agent(
                world.agent(history=InMemoryHistoryStore()), JournalEngine(journal)
            ).run("x", session=session)
    finally:
        for store in stores:
            store.close()


async def test_parallel_tools_replay_whatever_order_they_start_in() -> None:
    world, journal = World(), Journal()
    world.crash_at = "charge"
    with pytest.raises(Crash):
        await durable_agent(world.agent(), JournalEngine(journal)).run("x")

    # Recovery where "charge" reaches the engine first: it must not get lookup's step.
    async def slow_first(
        context: FunctionInvocationContext, call_next: Callable[[], Awaitable[None]]
    ) -> None:
        if context.function.name == "lookup":
            await anyio.sleep(0.01)
        await call_next()

    response = await durable_agent(
        world.agent(middleware=[slow_first]), JournalEngine(journal)
    ).run("x")
    assert response.text == "done: tea: 2.2, charged 5"
    assert world.effects.count("lookup") == 1


async def test_without_reservations_the_calls_run_in_call_order() -> None:
    world, journal = World(), Journal()
    await durable_agent(world.agent(), JournalEngine(journal, reserves=False)).run("x")
    assert [n for n in journal.executed if ".tool." in n] == [
        "cafe.tool.lookup",
        "cafe.tool.charge",
    ]


async def test_a_replay_that_meets_another_step_stops_the_run() -> None:
    world, journal = World(), Journal()
    await durable_agent(world.agent(), JournalEngine(journal)).run("x")
    renamed = durable_agent(world.agent(), JournalEngine(journal), name="kiosk")
    with pytest.raises(DurableExecutionError, match=r"recorded as 'cafe\.model'") as raised:
        await renamed.run("x")
    assert isinstance(raised.value.__cause__, StepMismatch)  # the engine's own error


async def test_a_tool_failure_is_recorded_and_replayed_the_same() -> None:
    journal = Journal()
    ran: list[str] = []

    @tool
    def flaky() -> str:
        """Fail once."""
        ran.append("flaky")
        raise ValueError("card declined")

    async def respond(messages: Sequence[Message], options: Any) -> ChatResponse[Any]:
        if any(m.role == "tool" for m in messages):
            return text(str(results(messages)[0].result))
        return calls(("c1", "flaky", "{}"))

    def build() -> Agent:
        from agentcore import FunctionInvocationConfiguration

        config = FunctionInvocationConfiguration(include_detailed_errors=True)
        agent = Agent(FunctionChatClient(respond), name="a", tools=[flaky], tool_loop=config)
        return durable_agent(agent, JournalEngine(journal))

    first = await build().run("x")
    second = await build().run("x")
    assert first.text == second.text
    assert "ValueError: card declined" in first.text
    assert ran == ["flaky"]


class DiesWaiting(BaseException):
    """The process dies while the run waits for the human."""


async def test_an_approval_given_after_a_crash_matches_the_replayed_run() -> None:
    journal = Journal()
    effects: list[str] = []

    @tool(approval_mode="always_require")
    async def charge(amount: int) -> str:
        """Charge the card."""
        effects.append("charge")
        return f"charged {amount}"

    async def respond(messages: Sequence[Message], options: Any) -> ChatResponse[Any]:
        effects.append("model")
        if any(m.role == "tool" for m in messages):
            return text("paid")
        return calls(("c1", "charge", '{"amount": 5}'))

    async def process(engine: JournalEngine) -> Any:
        agent = durable_agent(
            Agent(FunctionChatClient(respond), name="pay", tools=[charge]), engine
        )
        return await run_until_answered(agent, engine, "pay", session=AgentSession(session_id="s"))

    first = JournalEngine(journal)

    async def die(topic: str, *, wait: float | None = None) -> Any:
        raise DiesWaiting

    first.receive = die  # type: ignore[method-assign]  # this process dies waiting
    with pytest.raises(DiesWaiting):
        await process(first)
    (shown,) = decode_requests(journal.events[PENDING_KEY])
    assert effects == ["model"]
    # The human answers the request shown before the crash; a new process recovers.
    assert isinstance(shown, FunctionApprovalRequestContent)
    journal.messages[DECISIONS_TOPIC] = [
        ["not a decision", *encode_decisions([shown.create_response(True)])]
    ]
    response = await process(JournalEngine(journal))
    assert response.text == "paid"
    assert effects == ["model", "charge", "model"]  # the first model call was not repeated
    assert journal.events[PENDING_KEY] == []


async def test_no_decision_in_time_declines_the_open_requests() -> None:
    journal = Journal()

    @tool(approval_mode="always_require")
    async def charge(amount: int) -> str:
        """Charge the card."""
        return "charged"

    async def respond(messages: Sequence[Message], options: Any) -> ChatResponse[Any]:
        if any(m.role == "tool" for m in messages):
            return text(str(results(messages)[0].result))
        return calls(("c1", "charge", '{"amount": 5}'))

    engine = JournalEngine(journal)
    agent = durable_agent(Agent(FunctionChatClient(respond), name="pay", tools=[charge]), engine)
    response = await run_until_answered(agent, engine, "pay", session=AgentSession(), wait=1)
    assert "rejected" in response.text


async def test_a_durable_agent_outside_workflow_code_raises() -> None:
    engine = JournalEngine(Journal())
    engine.in_workflow = False
    agent = durable_agent(World().agent(), engine)
    with pytest.raises(DurableExecutionError, match="outside a durable run"):
        await agent.run("x")
    client = DurableChatClient(World().client(), engine, name="a")
    with pytest.raises(DurableExecutionError, match="outside a durable run"):
        await client.get_response([Message("user", "x")])


@pytest.mark.parametrize("anyio_backend", ["trio"])
async def test_a_durable_run_on_trio_raises_at_once(anyio_backend: str) -> None:
    agent = durable_agent(World().agent(), JournalEngine(Journal()))
    with pytest.raises(DurableExecutionError, match="need asyncio"):
        await agent.run("x")


async def test_a_streaming_durable_run_folds_to_the_same_answer() -> None:
    world, journal = World(), Journal()
    agent = durable_agent(world.agent(), JournalEngine(journal))
    streamed = await agent.run("x", stream=True).get_final_response()
    replayed = await durable_agent(world.agent(), JournalEngine(journal)).run("x")
    assert streamed.text == replayed.text == "done: tea: 2.2, charged 5"
    assert world.effects.count("model 1") == 1


async def test_a_tool_question_is_recorded_and_asked_again_on_replay() -> None:
    journal = Journal()

    @tool
    def size(context: ToolContext) -> str:
        """Ask for a size."""
        return context.ask("Which size?")

    async def respond(messages: Sequence[Message], options: Any) -> ChatResponse[Any]:
        return calls(("c1", "size", "{}"))

    def build() -> Agent:
        agent = Agent(FunctionChatClient(respond), name="q", tools=[size])
        return durable_agent(agent, JournalEngine(journal))

    first = (await build().run("x")).user_input_requests[0]
    second = (await build().run("x")).user_input_requests[0]
    assert first == second


def test_static_shapes() -> None:
    engine: DurableEngine = JournalEngine(Journal())
    client: SupportsGetResponse[Any] = DurableChatClient(World().client(), engine, name="a")
    assert isinstance(engine, DurableEngine)
    assert isinstance(client, SupportsGetResponse)
    with pytest.raises(ValueError, match="needs a name"):
        durable_agent(Agent(World().client()), engine)
    lookup = World().agent().tools[0]
    assert isinstance(lookup, FunctionTool)
    wrapped = durable_tool(cast("FunctionTool[..., Any]", lookup), engine, name="a")
    assert durable_tool(wrapped, engine, name="a") is wrapped
    assert FunctionCallContent("c", "n", "{}").name == "n"


@pytest.mark.parametrize(
    ("raised", "kind"),
    [
        (ToolCallRefused("not today"), "refused"),
        (TimeoutError("too slow"), "timeout"),
    ],
)
async def test_refusals_and_timeouts_are_recorded_as_what_they_were(
    raised: Exception, kind: str
) -> None:
    journal = Journal()

    @tool
    def act() -> str:
        """Act."""
        raise raised

    async def respond(messages: Sequence[Message], options: Any) -> ChatResponse[Any]:
        if any(m.role == "tool" for m in messages):
            return text(str(results(messages)[0].error))
        return calls(("c1", "act", "{}"))

    def build() -> Agent:
        return durable_agent(
            Agent(FunctionChatClient(respond), name="a", tools=[act]), JournalEngine(journal)
        )

    assert (await build().run("x")).text == kind
    assert (await build().run("x")).text == kind  # replayed


async def test_an_engine_error_inside_a_tool_step_ends_the_run() -> None:
    @tool
    def act() -> str:
        """Act."""
        raise StepMismatch("the engine refused")

    agent = Agent(
        FunctionChatClient(lambda m, o: calls(("c1", "act", "{}"))), name="a", tools=[act]
    )
    with pytest.raises(DurableExecutionError, match="the engine refused") as raised:
        await durable_agent(agent, JournalEngine(Journal())).run("x")
    assert isinstance(raised.value.__cause__, StepMismatch)


async def test_a_recorded_tool_step_that_is_no_tool_outcome_stops_the_replay() -> None:
    journal = Journal()
    world = World()
    await durable_agent(world.agent(), JournalEngine(journal)).run("x")
    name, _ = journal.steps[3]
    journal.steps[3] = (name, "42")  # as if another version recorded something else here
    with pytest.raises(DurableExecutionError, match="not a tool outcome"):
        await durable_agent(world.agent(), JournalEngine(journal)).run("x")


@attrs.frozen
class Order:
    item: str
    quantity: int


async def test_structured_output_is_parsed_the_same_from_the_recorded_response() -> None:
    journal = Journal()
    answers: list[Order | None] = []
    for _ in range(2):  # the run, then its replay
        client = ScriptedChatClient(['{"item": "tea", "quantity": 2}'])
        agent = durable_agent(Agent(client, name="orders"), JournalEngine(journal))
        answers.append((await agent.run("x", options={"response_format": Order})).value)
    assert answers == [Order("tea", 2), Order("tea", 2)]
    assert journal.executed == ["orders.model"]


async def test_a_question_from_a_tool_is_answered_through_the_engine() -> None:
    journal = Journal()
    asked: list[str] = []

    @tool
    def size(context: ToolContext) -> str:
        """Ask for a size."""
        asked.append("asked")
        return f"size {context.ask('Which size?')}"

    async def respond(messages: Sequence[Message], options: Any) -> ChatResponse[Any]:
        if any(m.role == "tool" for m in messages):
            return text(str(results(messages)[0].result))
        return calls(("c1", "size", "{}"))

    engine = JournalEngine(journal)
    agent = durable_agent(Agent(FunctionChatClient(respond), name="q", tools=[size]), engine)
    engine_receive = engine.receive

    async def answer(topic: str, *, wait: float | None = None) -> Any:
        (request,) = decode_requests(journal.events[PENDING_KEY])
        assert isinstance(request, UserInputRequestContent)
        journal.messages[topic] = [encode_decisions([request.create_response("large")])]
        return await engine_receive(topic, wait=wait)

    engine.receive = answer  # type: ignore[method-assign]  # the human answers while it waits
    response = await run_until_answered(agent, engine, "x", session=AgentSession())
    assert response.text == "size large"
    assert asked == ["asked", "asked"]  # asked, then run again with the answer


@attrs.frozen
class Shop:
    """Deps of the durable runs below: a live object, never journaled."""

    user: str


async def test_a_durable_agent_keeps_deps_type_and_each_run_of_the_turn_gets_the_deps() -> None:
    journal = Journal()

    @tool
    def size(context: ToolContext[Shop]) -> str:
        """Ask for a size."""
        return f"size {context.ask('Which size?')} for {context.deps.user}"

    async def respond(messages: Sequence[Message], options: Any) -> ChatResponse[Any]:
        if any(m.role == "tool" for m in messages):
            return text(str(results(messages)[0].result))
        return calls(("c1", "size", "{}"))

    engine = JournalEngine(journal)
    agent = durable_agent(
        Agent(FunctionChatClient(respond), name="q", tools=[size], deps_type=Shop), engine
    )
    assert agent.deps_type is Shop
    engine_receive = engine.receive

    async def answer(topic: str, *, wait: float | None = None) -> Any:
        (request,) = decode_requests(journal.events[PENDING_KEY])
        assert isinstance(request, UserInputRequestContent)
        journal.messages[topic] = [encode_decisions([request.create_response("large")])]
        return await engine_receive(topic, wait=wait)

    engine.receive = answer  # type: ignore[method-assign]  # the human answers while it waits
    response = await run_until_answered(
        agent, engine, "x", session=AgentSession(), deps=Shop("ada")
    )
    assert response.text == "size large for ada"
    assert "Shop" not in repr(vars(journal))  # no step or event holds the deps
    with pytest.raises(TypeError, match="deps must be a Shop"):
        await run_until_answered(agent, engine, "x", session=AgentSession(), deps="ada")  # type: ignore[misc]  # the wrong deps type under test


async def test_observers_and_tools_see_the_durable_run_id_and_run_tools_are_steps() -> None:
    journal = Journal()
    started: list[str] = []
    seen: list[str] = []

    class Observer:
        async def on_run_start(self, event: RunStarted) -> None:
            started.append(event.run_id)

    @tool
    def extra(context: ToolContext) -> str:
        """Given to one run only."""
        seen.append(context.run.run_id)
        return "ok"

    client = ScriptedChatClient([calls(("c1", "extra", "{}")), text("done")])
    agent = durable_agent(Agent(client, name="o", observers=[Observer()]), JournalEngine(journal))
    await agent.run("x", tools=[extra])
    assert started == seen == ["run_wf:0"]
    assert "o.tool.extra" in journal.executed


async def test_a_tool_result_value_is_recorded_and_replayed() -> None:
    journal = Journal()
    ran: list[str] = []

    @tool
    def check() -> ToolResult:
        """Check."""
        ran.append("check")
        return ToolResult("card expired", structured={"code": 7}, is_error=True)

    async def respond(messages: Sequence[Message], options: Any) -> ChatResponse[Any]:
        if any(m.role == "tool" for m in messages):
            found = results(messages)[0]
            return text(f"{found.result} / {found.error}")
        return calls(("c1", "check", "{}"))

    answers: list[str] = []
    for _ in range(2):
        agent = Agent(FunctionChatClient(respond), name="r", tools=[check])
        answers.append((await durable_agent(agent, JournalEngine(journal)).run("x")).text)
    assert answers[0] == answers[1]
    assert "card expired" in answers[0]
    assert ran == ["check"]


def test_tools_that_cannot_become_steps_are_refused() -> None:
    class Toolset:
        async def get_tools(self, context: Any) -> list[Any]:
            return []

    agent = Agent(World().client(), name="m", tools=[Toolset()])
    with pytest.raises(TypeError, match="only function tools"):
        durable_agent(agent, JournalEngine(Journal()))
