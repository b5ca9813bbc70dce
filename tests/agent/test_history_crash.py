"""A process killed in the middle of runs leaves only whole turns in the SQLite history."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import anyio
import pytest

from agentcore import FunctionCallContent, FunctionResultContent, Message, SqliteHistoryStore

pytestmark = pytest.mark.anyio

WRITERS = 4
TURNS_BEFORE_KILL = 20

CRASH_SCRIPT = '''
"""Runs an agent on SQLite history until the parent kills it."""

import sys
from pathlib import Path

import anyio

from agentcore import (
    Agent,
    AgentSession,
    ChatResponse,
    FunctionCallContent,
    Message,
    SqliteHistoryStore,
    tool,
)
from agentcore.testing import FunctionChatClient

db_path, ready_path, backend = sys.argv[1:4]
stream, writers, turns_before_ready = sys.argv[4] == "1", int(sys.argv[5]), int(sys.argv[6])
completed = 0


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool
async def block(note: str) -> str:
    """Signal the parent once the writers are busy, then hang until killed."""
    while completed < turns_before_ready:
        await anyio.sleep(0.01)
    Path(ready_path).write_text("ready")
    await anyio.sleep_forever()
    return note


def model(messages, options):
    last = messages[-1]
    if last.role == "user":
        text = last.text
        if text == "block":
            call = FunctionCallContent("call-block", "block", {"note": "x"})
        else:
            call = FunctionCallContent(f"call-{text}", "add", {"a": len(text), "b": 1})
        return ChatResponse(messages=[Message("assistant", [call])], finish_reason="tool_calls")
    return f"done {last.contents[0].result}"


async def run(agent, text, session):
    if stream:
        result = agent.run(text, session=session, stream=True)
        async for _ in result:
            pass
        return await result.get_final_response()
    return await agent.run(text, session=session)


async def writer(agent, number):
    global completed
    session = AgentSession(session_id=f"writer-{number}")
    turn = 0
    while True:
        await run(agent, f"w{number}-{turn}", session)
        turn += 1
        completed += 1


async def main():
    store = SqliteHistoryStore(db_path)
    agent = Agent(FunctionChatClient(model), tools=[add, block], history=store)
    main_session = AgentSession(session_id="main")
    for turn in range(3):
        await run(agent, f"turn {turn}", main_session)
    async with anyio.create_task_group() as group:
        for number in range(writers):
            group.start_soon(writer, agent, number)
        await run(agent, "block", main_session)


anyio.run(main, backend=backend)
'''


def _whole_turn(text: str) -> list[Message]:
    call_id = f"call-{text}"
    return [
        Message("user", text),
        Message("assistant", [FunctionCallContent(call_id, "add", {"a": len(text), "b": 1})]),
        Message("tool", [FunctionResultContent(call_id, result=len(text) + 1)]),
        Message("assistant", f"done {len(text) + 1}"),
    ]


async def _run_until_killed(tmp_path: Path, backend: str, stream: bool) -> Path:
    db_path, ready_path = tmp_path / "crash.db", tmp_path / "ready"
    script = tmp_path / "crash_run.py"
    script.write_text(CRASH_SCRIPT)
    command = [sys.executable, str(script), str(db_path), str(ready_path), backend]
    command += ["1" if stream else "0", str(WRITERS), str(TURNS_BEFORE_KILL)]
    async with await anyio.open_process(command) as process:
        with anyio.fail_after(120):
            while not ready_path.exists():
                if process.returncode is not None:
                    assert process.stderr is not None
                    error = (await process.stderr.receive()).decode()
                    pytest.fail(f"the run process ended early: {error}")
                await anyio.sleep(0.02)
        process.send_signal(signal.SIGKILL)
        await process.wait()
    assert process.returncode == -signal.SIGKILL
    return db_path


async def test_a_killed_process_leaves_only_whole_turns(
    tmp_path: Path, anyio_backend: str, stream: bool
) -> None:
    """The child completes three turns on session ``main``, then starts a run that
    blocks in a tool while four writers commit turns non-stop on their own sessions;
    it is SIGKILLed once the writers have committed at least 20 turns. Reading the
    database afterwards (SQLite recovers the WAL on open) shows the three turns of
    ``main`` and nothing of the killed run, and every writer's history is a gapless
    sequence of whole turns: no half turn from a run or a commit cut short."""
    db_path = await _run_until_killed(tmp_path, anyio_backend, stream)

    store = SqliteHistoryStore(db_path)
    try:
        main = await store.load("main")
        writers = [await store.load(f"writer-{n}") for n in range(WRITERS)]
    finally:
        store.close()

    assert main == [m for turn in range(3) for m in _whole_turn(f"turn {turn}")]
    for number, history in enumerate(writers):
        assert len(history) % 4 == 0
        turns = len(history) // 4
        assert history == [m for t in range(turns) for m in _whole_turn(f"w{number}-{t}")]
    assert sum(len(h) // 4 for h in writers) >= TURNS_BEFORE_KILL
