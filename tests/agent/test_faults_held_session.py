"""A stream left open does not hold its session forever.

Runs of one session take turns. A streaming run holds the turn until its stream is
read to the end, closed, or dropped: dropping it releases the session. A run that
waits on a held session says why in a warning after a while (the delay is
``agentcore._sessions.turns.WAIT_WARNING_SECONDS``, shortened here).
"""

from __future__ import annotations

import gc
import logging

import anyio
import pytest

from agentcore import Agent, AgentSession, InMemoryHistoryStore
from agentcore._sessions import turns
from agentcore.testing import ScriptedChatClient

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
    async for _ in stream:
        break
    del stream


@ABANDONED_GENERATOR_WARNING
async def test_dropping_an_open_stream_releases_its_session() -> None:
    agent = Agent(
        ScriptedChatClient(["first answer", "second answer"]), history=InMemoryHistoryStore()
    )
    session = agent.create_session()

    await _read_one_and_drop(agent, session)
    # The dropped stream lives in a reference cycle with its run (the run's event
    # sink reaches it): the session is released when the collector frees it.
    gc.collect()

    with anyio.fail_after(HANG_GUARD):
        response = await agent.run("second", session=session)
    assert response.text == "second answer"


class _Warnings(logging.Handler):
    """Collects agentcore's warnings and signals the first one."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []
        self.seen = anyio.Event()

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())
        self.seen.set()


async def test_a_run_waiting_on_a_held_session_logs_why(monkeypatch: pytest.MonkeyPatch) -> None:
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
        response = await agent.run("second", session=session)
        texts.append(response.text)

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
