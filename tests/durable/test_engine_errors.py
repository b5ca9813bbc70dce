"""An error of the engine's own ends the run on every path.

``DurableChatClient``, ``durable_tool`` and ``DurableHistoryStore`` may be assembled by
hand into an ordinary ``Agent`` (no ``durable_agent``, so the run carries no
``RunContext.durable``). An exception of ``engine.errors`` raised while the engine takes
or replays one of their steps still ends the run as ``DurableExecutionError``, never as a
failed call the model is told about: here a step renamed between two executions of the
same durable run, in both modes, and through an agent used as a tool. (The same with
real DBOS on SQLite and PostgreSQL, after a SIGKILL:
``tests/durable_engines/test_kill_and_recover.py``.)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from agentcore import Agent, AgentSession, ChatResponse, InMemoryHistoryStore, Message, tool
from agentcore.durable import (
    DurableChatClient,
    DurableExecutionError,
    DurableHistoryStore,
    durable_tool,
)
from agentcore.testing import FunctionChatClient

from ..loop.harness import calls, results, text
from ..middleware.harness import run_agent
from .journal_engine import Journal, JournalEngine, StepMismatch

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # durable runs are asyncio only


@pytest.fixture(params=[False, True], ids=["call", "stream"])
def stream(request: pytest.FixtureRequest) -> bool:
    return bool(request.param)


class Shop:
    """The model and the tool, with what they were asked."""

    def __init__(self) -> None:
        self.model_saw: list[list[Any]] = []
        self.charged = 0

    def client(self) -> FunctionChatClient:
        async def respond(messages: Sequence[Message], options: Any) -> ChatResponse[Any]:
            found = [r.result for r in results(messages)]
            self.model_saw.append(found)
            if found:
                return text(f"done: {found}")
            return calls(("c1", "charge", '{"amount": 5}'))

        return FunctionChatClient(respond)

    def agent(
        self,
        engine: JournalEngine,
        *,
        model: str = "shop",
        tool_step: str = "shop",
        history: str | None = None,
        store: InMemoryHistoryStore | None = None,
    ) -> Agent:
        @tool
        def charge(amount: int) -> str:
            """Charge the card."""
            self.charged += 1
            return f"charged {amount}"

        durable_history = (
            None if store is None else DurableHistoryStore(store, engine, name=history or "shop")
        )
        return Agent(
            DurableChatClient(self.client(), engine, name=model),
            name="shop",
            tools=[durable_tool(charge, engine, name=tool_step)],
            history=durable_history,
        )


async def test_a_renamed_tool_step_ends_a_run_assembled_by_hand(stream: bool) -> None:
    shop, journal = Shop(), Journal()
    first, _ = await run_agent(shop.agent(JournalEngine(journal)), "one tea", stream=stream)
    assert first.text == "done: ['charged 5']"
    shop.model_saw.clear()

    # The same durable run replayed by code whose tool step has another name.
    renamed = shop.agent(JournalEngine(journal), tool_step="shop-v2")
    with pytest.raises(DurableExecutionError) as raised:
        await run_agent(renamed, "one tea", stream=stream)

    message = str(raised.value)
    assert "stopped this durable run at step 'shop-v2.tool.charge'" in message
    assert "recorded as 'shop.tool.charge'" in message
    assert isinstance(raised.value.__cause__, StepMismatch)
    assert shop.model_saw == []  # the model step was replayed; no call told "charge failed"
    assert shop.charged == 1


async def test_a_renamed_model_step_ends_the_run_of_the_agent_that_uses_it_as_a_tool(
    stream: bool,
) -> None:
    shop, journal = Shop(), Journal()
    await run_agent(shop.agent(JournalEngine(journal)), "one tea", stream=stream)
    inner = shop.agent(JournalEngine(journal), model="shop-v2")
    outer_saw: list[list[Any]] = []

    async def outer_model(messages: Sequence[Message], options: Any) -> ChatResponse[Any]:
        found = [r.result for r in results(messages)]
        outer_saw.append(found)
        return text("told") if found else calls(("o1", "shop", '{"task": "one tea"}'))

    outer = Agent(FunctionChatClient(outer_model), tools=[inner.as_tool()])
    with pytest.raises(DurableExecutionError, match=r"at step 'shop-v2\.model'") as raised:
        await run_agent(outer, "buy tea", stream=stream)

    assert isinstance(raised.value.__cause__, StepMismatch)
    assert outer_saw == [[]]  # the outer model never heard of a failed "shop" call


async def test_a_renamed_history_step_ends_a_run_assembled_by_hand(stream: bool) -> None:
    shop, journal, store = Shop(), Journal(), InMemoryHistoryStore()
    session = AgentSession(session_id="s1")
    await run_agent(
        shop.agent(JournalEngine(journal), store=store), "one tea", stream=stream, session=session
    )
    replay = shop.agent(JournalEngine(journal), store=store, history="shop-v2")

    with pytest.raises(DurableExecutionError, match=r"at step 'shop-v2\.history\.load'"):
        await run_agent(replay, "one tea", stream=stream, session=AgentSession(session_id="s1"))
    assert len(await store.load("s1")) == 4  # the turn was not stored twice


async def test_an_error_that_is_not_the_engines_stays_what_it_was() -> None:
    # Only engine.errors become DurableExecutionError: the model's own failure does not.
    class Down(Exception):
        pass

    async def respond(messages: Sequence[Message], options: Any) -> ChatResponse[Any]:
        raise Down("the model is down")

    agent = Agent(
        DurableChatClient(FunctionChatClient(respond), JournalEngine(Journal()), name="a")
    )
    with pytest.raises(Down):
        await agent.run("x")
