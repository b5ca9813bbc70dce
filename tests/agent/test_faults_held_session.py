"""A stream left open does not hold its session forever.

Runs of one session take turns. A streaming run holds the turn until its stream is
read to the end, closed, or dropped: dropping it releases the session, by reference
counting alone (the collector is off in that test). A run that waits on a held
session, in either mode, says why in a warning after a while (the delay is
``agentcore._sessions.turns.WAIT_WARNING_SECONDS``, shortened here).
"""

from __future__ import annotations

import gc
import logging
from typing import Any

import anyio
import pytest

from agentcore import (
    Agent,
    AgentContext,
    AgentSession,
    CallNext,
    InMemoryHistoryStore,
    ResponseStream,
)
from agentcore._sessions import turns
from agentcore.observers import RunEnded
from agentcore.testing import ScriptedChatClient

from ._runs import run_agent

pytestmark = pytest.mark.anyio

HANG_GUARD = 10  # seconds: only stops a hang from blocking the suite; nothing is timed

# Dropping a stream unread is what these tests do: trio warns when it finalizes the
# abandoned run generator (asyncio finalizes it quietly); the session is released all
# the same, which is what is checked.
ABANDONED_GENERATOR_WARNING = pytest.mark.filterwarnings(
    "ignore:Async generator .* was garbage collected:ResourceWarning",
    "ignore::pytest.PytestUnraisableExceptionWarning",
)


async def _read_one_and_drop(agent: Agent, session: AgentSession) -> None:
    stream = agent.run("first", session=session, stream=True)
    async for update in stream:
        if update.text:  # the answer has started
            break
    del stream


async def _emitting(context: AgentContext, call_next: CallNext) -> None:
    await context.run.emit("before the stream")  # the run's event sink is set up
    await call_next()


async def _mapping(context: AgentContext, call_next: CallNext) -> None:
    await call_next()
    if isinstance(context.result, ResponseStream):
        context.result = context.result.map(lambda update: update)


async def _ending(context: AgentContext, call_next: CallNext) -> None:
    await call_next()
    if isinstance(context.result, ResponseStream):
        context.result = context.result.on_end(lambda end: None)


class _Observer:
    # Naming the event class here loads the observer events (they load on first use) with
    # this module, so the test's count of cyclic garbage holds only what the run left.
    def on_run_end(self, event: RunEnded) -> None:
        pass


# Each way a streaming run is built: the run's stream itself; behind agent middleware
# that keeps it in context.result, maps it, or relays it to an end hook; with observers.
SHAPES: dict[str, dict[str, Any]] = {
    "plain": {},
    "agent middleware": {"middleware": [_emitting, _mapping]},
    "relay middleware": {"middleware": [_ending]},
    "observers": {"observers": [_Observer()]},
}


@ABANDONED_GENERATOR_WARNING
@pytest.mark.parametrize("shape", list(SHAPES))
async def test_dropping_an_open_stream_releases_its_session_without_the_collector(
    shape: str,
) -> None:
    """Nothing the run holds leads back to its stream: a stream dropped half read is
    freed by reference counting, and the session with it, with the collector off."""
    agent = Agent(
        ScriptedChatClient(["first answer", "second answer"]),
        history=InMemoryHistoryStore(),
        **SHAPES[shape],
    )
    session = agent.create_session()
    gc.collect()
    gc.disable()
    try:
        await _read_one_and_drop(agent, session)
        with anyio.fail_after(HANG_GUARD):
            response = await agent.run("second", session=session)
        unreachable = gc.collect()  # what only the collector would have freed
    finally:
        gc.enable()
    assert response.text == "second answer"
    assert unreachable == 0


class _Warnings(logging.Handler):
    """Collects agentcore's warnings and signals the first one."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []
        self.seen = anyio.Event()

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())
        self.seen.set()


@pytest.mark.parametrize("stream", [False, True], ids=["waiting call", "waiting stream"])
async def test_a_run_waiting_on_a_held_session_logs_why(
    monkeypatch: pytest.MonkeyPatch, stream: bool
) -> None:
    monkeypatch.setattr(turns, "WAIT_WARNING_SECONDS", 0.01)
    warnings = _Warnings()
    logger = logging.getLogger("agentcore")
    logger.addHandler(warnings)
    agent = Agent(ScriptedChatClient(["first answer", "second answer"]))
    session = agent.create_session()
    held = agent.run("first", session=session, stream=True)
    updates = held.__aiter__()
    await updates.__anext__()  # the streaming run has the session's turn now
    texts: list[str] = []

    async def second() -> None:
        outcome = await run_agent(agent, "second", stream=stream, session=session)
        texts.append(outcome.response.text)

    try:
        async with anyio.create_task_group() as group:
            group.start_soon(second)
            with anyio.fail_after(HANG_GUARD):
                await warnings.seen.wait()
            assert texts == []
            await held.aclose()  # releasing the session lets the waiting run go on
    finally:
        logger.removeHandler(warnings)

    assert texts == ["second answer"]
    [message] = warnings.messages
    assert session.session_id in message
    assert "still held by another run" in message
    assert "aclose" in message
