"""History stores: load/append, one append per run, nothing from failed or cancelled runs,
runs on one session serialized, SQLite in WAL mode."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import pytest

from agentcore import (
    Agent,
    AgentResponse,
    AgentResponseUpdate,
    CustomEvent,
    DataContent,
    FunctionCallContent,
    FunctionResultContent,
    HistoryStore,
    InMemoryHistoryStore,
    Message,
    ReasoningContent,
    SqliteHistoryStore,
    ToolContext,
    tool,
)
from agentcore.errors import TransientError
from agentcore.testing import FunctionChatClient, ScriptedChatClient

from ._runs import answer_turn, call_turn, run_agent

pytestmark = pytest.mark.anyio

Store = InMemoryHistoryStore | SqliteHistoryStore


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """Each built-in store; the SQLite one in a fresh file."""
    if request.param == "memory":
        yield InMemoryHistoryStore()
        return
    sqlite_store = SqliteHistoryStore(tmp_path / "history.db")
    yield sqlite_store
    sqlite_store.close()


class RecordingStore:
    """A history store by shape that records every ``append`` call."""

    def __init__(self) -> None:
        self.inner = InMemoryHistoryStore()
        self.appends: list[list[Message]] = []

    async def load(self, session_id: str) -> list[Message]:
        return await self.inner.load(session_id)

    async def append(self, session_id: str, messages: Sequence[Message]) -> None:
        self.appends.append(list(messages))
        await self.inner.append(session_id, messages)


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def _tool_run_script() -> list[Any]:
    return [call_turn("add", '{"a": 2, "b": 3}'), answer_turn("2 + 3 = 5")]


TOOL_TURN = [
    Message("user", "what is 2 + 3?"),
    Message("assistant", [FunctionCallContent("call_1", "add", '{"a": 2, "b": 3}')]),
    Message("tool", [FunctionResultContent("call_1", result=5)]),
    Message("assistant", "2 + 3 = 5"),
]


# -- the stores ------------------------------------------------------------------------------


def test_built_in_stores_are_history_stores(store: Store) -> None:
    assert isinstance(store, HistoryStore)
    assert isinstance(RecordingStore(), HistoryStore)


async def test_an_unknown_session_has_no_history(store: Store) -> None:
    assert await store.load("nobody") == []


async def test_appended_messages_load_back_in_order(store: Store) -> None:
    first = [Message("user", "one"), Message("assistant", "two")]
    second = [Message("user", "three")]

    await store.append("s", first)
    await store.append("s", second)

    assert await store.load("s") == [*first, *second]


async def test_sessions_are_kept_apart(store: Store) -> None:
    await store.append("a", [Message("user", "for a")])
    await store.append("b", [Message("user", "for b")])

    assert await store.load("a") == [Message("user", "for a")]
    assert await store.load("b") == [Message("user", "for b")]


async def test_every_kind_of_content_is_stored_faithfully(store: Store) -> None:
    messages = [
        Message("user", ["look", DataContent(b"\x00\xff", "image/png")]),
        Message(
            "assistant",
            [
                ReasoningContent("thinking", provider="anthropic", protected_data="sig"),
                FunctionCallContent("c1", "add", {"a": 1, "b": 2}),
            ],
        ),
        Message("tool", [FunctionResultContent("c1", result={"sum": 3, "ok": [True]})]),
    ]

    await store.append("s", messages)

    assert await store.load("s") == messages


async def test_appending_no_messages_stores_nothing(store: Store) -> None:
    await store.append("s", [])

    assert await store.load("s") == []


async def test_clear_forgets_a_session(store: Store) -> None:
    await store.append("s", [Message("user", "x")])

    await store.clear("s")

    assert await store.load("s") == []


# -- what a run appends ----------------------------------------------------------------------


async def test_a_run_appends_its_input_and_every_message_it_produced_in_one_call(
    stream: bool,
) -> None:
    recorder = RecordingStore()
    agent = Agent(ScriptedChatClient(_tool_run_script()), tools=[add], history=recorder)

    await run_agent(agent, "what is 2 + 3?", stream=stream, session=agent.create_session())

    assert recorder.appends == [TOOL_TURN]


async def test_a_run_turn_is_stored_whole(store: Store, stream: bool) -> None:
    agent = Agent(ScriptedChatClient(_tool_run_script()), tools=[add], history=store)
    session = agent.create_session()

    await run_agent(agent, "what is 2 + 3?", stream=stream, session=session)

    assert await store.load(session.session_id) == TOOL_TURN


async def test_the_next_run_sends_the_stored_history_first(store: Store, stream: bool) -> None:
    client = ScriptedChatClient([*_tool_run_script(), "you are welcome"])
    agent = Agent(client, tools=[add], history=store)
    session = agent.create_session()
    await run_agent(agent, "what is 2 + 3?", stream=stream, session=session)

    await run_agent(agent, "thanks", stream=stream, session=session)

    assert client.requests[2].messages == (*TOOL_TURN, Message("user", "thanks"))


async def test_a_run_without_a_session_stores_nothing(store: Store, stream: bool) -> None:
    recorder = RecordingStore()
    agent = Agent(ScriptedChatClient(["hi"]), history=recorder)

    await run_agent(agent, "hello", stream=stream)

    assert recorder.appends == []


async def test_a_failed_run_appends_nothing(store: Store, stream: bool) -> None:
    client = ScriptedChatClient(
        [call_turn("add", '{"a": 2, "b": 3}'), TransientError("upstream 503")]
    )
    agent = Agent(client, tools=[add], history=store)
    session = agent.create_session()

    with pytest.raises(TransientError):
        await run_agent(agent, "what is 2 + 3?", stream=stream, session=session)

    assert len(client.requests) == 2  # the run got as far as the tool result
    assert await store.load(session.session_id) == []


async def test_a_cancelled_run_appends_nothing(store: Store, stream: bool) -> None:
    entered = anyio.Event()

    @tool
    async def wait_for_ever() -> str:
        """Never returns."""
        entered.set()
        await anyio.sleep_forever()
        return "unreachable"

    client = ScriptedChatClient([call_turn("wait_for_ever", "{}"), "never sent"])
    agent = Agent(client, tools=[wait_for_ever], history=store)
    session = agent.create_session()

    async with anyio.create_task_group() as group:
        group.start_soon(partial(run_agent, agent, "wait", stream=stream, session=session))
        await entered.wait()
        group.cancel_scope.cancel()

    assert await store.load(session.session_id) == []
    assert client.remaining == 1


async def test_after_a_failed_run_the_session_goes_on_from_the_last_whole_turn(
    store: Store, stream: bool
) -> None:
    client = ScriptedChatClient(["first", TransientError("timeout"), "third"])
    agent = Agent(client, history=store)
    session = agent.create_session()
    await run_agent(agent, "one", stream=stream, session=session)
    with pytest.raises(TransientError):
        await run_agent(agent, "two", stream=stream, session=session)

    await run_agent(agent, "three", stream=stream, session=session)

    assert client.requests[2].messages == (
        Message("user", "one"),
        Message("assistant", "first"),
        Message("user", "three"),
    )


async def test_concurrent_runs_on_one_session_run_one_after_the_other(
    store: Store, stream: bool
) -> None:
    """The Agent serializes runs of one session (per agent instance) with a lock: the
    second run waits, then sees the first run's whole turn."""
    first_called = anyio.Event()
    release_first = anyio.Event()

    async def model(messages: Sequence[Message], _options: Mapping[str, Any]) -> str:
        if not first_called.is_set():
            first_called.set()
            await release_first.wait()
            return "first answer"
        return "second answer"

    client = FunctionChatClient(model)
    agent = Agent(client, history=store)
    session = agent.create_session()

    async with anyio.create_task_group() as group:
        group.start_soon(partial(run_agent, agent, "first", stream=stream, session=session))
        await first_called.wait()
        group.start_soon(partial(run_agent, agent, "second", stream=stream, session=session))
        await anyio.wait_all_tasks_blocked()
        assert len(client.requests) == 1  # the second run is waiting, not calling the model
        release_first.set()

    assert client.requests[1].messages == (
        Message("user", "first"),
        Message("assistant", "first answer"),
        Message("user", "second"),
    )


# -- SQLite specifics ------------------------------------------------------------------------


async def test_sqlite_store_uses_write_ahead_logging(tmp_path: Path) -> None:
    path = tmp_path / "wal.db"
    store = SqliteHistoryStore(path)
    await store.append("s", [Message("user", "x")])
    store.close()

    with sqlite3.connect(path) as conn:
        (mode,) = conn.execute("PRAGMA journal_mode").fetchone()

    assert mode == "wal"


async def test_sqlite_history_survives_reopening_the_file(tmp_path: Path) -> None:
    path = tmp_path / "persist.db"
    first = SqliteHistoryStore(path)
    await first.append("s", TOOL_TURN)
    first.close()

    second = SqliteHistoryStore(path)
    try:
        assert await second.load("s") == TOOL_TURN
    finally:
        second.close()


async def test_a_closed_sqlite_store_says_so(tmp_path: Path) -> None:
    store = SqliteHistoryStore(tmp_path / "closed.db")
    store.close()

    with pytest.raises(RuntimeError, match=r"SqliteHistoryStore\(.*closed\.db'\) is closed"):
        await store.load("s")


async def test_a_sqlite_append_that_fails_midway_stores_none_of_its_messages(
    tmp_path: Path,
) -> None:
    path = tmp_path / "atomic.db"
    store = SqliteHistoryStore(path)
    await store.append("s", [Message("user", "kept")])
    with sqlite3.connect(path) as conn:
        conn.execute(
            "CREATE TRIGGER refuse_poison BEFORE INSERT ON agentcore_messages "
            "WHEN NEW.message LIKE '%poison%' BEGIN SELECT RAISE(ABORT, 'refused'); END"
        )

    try:
        with pytest.raises(sqlite3.IntegrityError, match="refused"):
            await store.append(
                "s",
                [Message("user", "fine"), Message("assistant", "ok"), Message("user", "poison")],
            )
        assert await store.load("s") == [Message("user", "kept")]
    finally:
        store.close()


async def test_a_streaming_run_the_caller_closes_early_stores_nothing() -> None:
    store = InMemoryHistoryStore()
    agent = Agent(ScriptedChatClient(["hello there, friend", "second"]), history=store)
    session = agent.create_session()
    stream = agent.run("hi", session=session, stream=True)
    first = await stream.__anext__()
    await stream.aclose()

    final = await stream.get_final_response()
    assert final.text == first.text != "hello there, friend"  # what the caller read
    assert list(await store.load(session.session_id)) == []  # an unfinished run leaves no trace
    response = await agent.run("again", session=session)  # the session is free again
    assert response.text == "second"


async def test_a_stream_closed_after_a_tool_round_ends_with_the_fold_of_what_was_read() -> None:
    @tool
    async def lookup(city: str, context: ToolContext) -> str:
        """Look the weather up."""
        await context.emit(city)
        return f"sunny in {city}"

    turns = [call_turn("lookup", '{"city": "Oslo"}'), answer_turn("It is sunny, I checked.")]
    agent = Agent(ScriptedChatClient(turns), name="bot", tools=[lookup])
    stream = agent.run("weather?", stream=True)
    read: list[AgentResponseUpdate] = []
    async for update in stream:
        read.append(update)
        if any(isinstance(c, FunctionResultContent) for c in update.contents):
            break
    await stream.aclose()

    final = await stream.get_final_response()
    assert final == AgentResponse.from_updates(read)
    assert final.agent_name == "bot"
    assert final.events == (CustomEvent("tool_progress", "Oslo", source="lookup"),)
    kinds = [type(c) for m in final.messages for c in m.contents]
    assert kinds == [FunctionCallContent, FunctionResultContent]  # no answer: it was not read
