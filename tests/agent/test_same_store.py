"""A session moves between agents whose history stores are one database.

An agent refuses a session whose history went to another store (it would carry on
from nothing). Two store objects on the same SQLite file are one store, however the
path is spelled: an agent built per request, or a restarted worker that kept the
session object, goes on with the conversation. Different files, and stores in memory,
stay apart. (PostgreSQL stores: tests/durable_engines/test_postgres_history.py.)
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import pytest

from agentcore import Agent, InMemoryHistoryStore, Message, SqliteHistoryStore
from agentcore.errors import RunStateError
from agentcore.protocols import HistoryStore
from agentcore.testing import ScriptedChatClient
from tests.middleware.harness import run_agent, text

pytestmark = pytest.mark.anyio

REFUSED = r"this session's history is in the SqliteHistoryStore of agent 'A', but agent 'B'"


def agent(store: HistoryStore, name: str, answer: str) -> tuple[Agent, ScriptedChatClient]:
    client = ScriptedChatClient([text(answer)])
    return Agent(client, name=name, history=store), client


def texts(messages: Sequence[Message]) -> list[str]:
    return [message.text for message in messages]


async def test_two_stores_on_one_sqlite_file_share_a_session(
    tmp_path: Path, stream: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "data").mkdir()
    os.symlink(tmp_path / "data", tmp_path / "link")
    monkeypatch.chdir(tmp_path)
    first_store = SqliteHistoryStore(tmp_path / "data" / "history.db")
    second_store = SqliteHistoryStore("link/../data/./history.db")  # relative, via a link
    first, _ = agent(first_store, "A", "hello")
    second, client = agent(second_store, "B", "again")
    try:
        session = first.create_session()
        await run_agent(first, "hi", stream=stream, session=session)

        response, _ = await run_agent(second, "and?", stream=stream, session=session)

        assert response.text == "again"
        # The second agent saw the first turn, read from the file.
        assert texts(client.requests[0].messages) == ["hi", "hello", "and?"]
        assert texts(await first_store.load(session.session_id)) == [
            "hi",
            "hello",
            "and?",
            "again",
        ]
    finally:
        first_store.close()
        second_store.close()


async def test_stores_on_two_sqlite_files_stay_apart(tmp_path: Path, stream: bool) -> None:
    first_store = SqliteHistoryStore(tmp_path / "one.db")
    second_store = SqliteHistoryStore(tmp_path / "two.db")
    first, _ = agent(first_store, "A", "hello")
    second, client = agent(second_store, "B", "never")
    try:
        session = first.create_session()
        await run_agent(first, "hi", stream=stream, session=session)

        with pytest.raises(RunStateError, match=REFUSED):
            await run_agent(second, "and?", stream=stream, session=session)
        assert client.requests == []
    finally:
        first_store.close()
        second_store.close()


@pytest.mark.parametrize("path", [":memory:", ""])
async def test_private_sqlite_databases_stay_apart(path: str, stream: bool) -> None:
    # ":memory:" and "" give every store (every connection) a database of its own.
    first_store, second_store = SqliteHistoryStore(path), SqliteHistoryStore(path)
    first, _ = agent(first_store, "A", "hello")
    second, _ = agent(second_store, "B", "never")
    try:
        session = first.create_session()
        await run_agent(first, "hi", stream=stream, session=session)

        with pytest.raises(RunStateError, match=REFUSED):
            await run_agent(second, "and?", stream=stream, session=session)
    finally:
        first_store.close()
        second_store.close()


async def test_a_sqlite_file_and_a_store_in_memory_stay_apart(tmp_path: Path, stream: bool) -> None:
    store = SqliteHistoryStore(tmp_path / "one.db")
    first, _ = agent(store, "A", "hello")
    second, _ = agent(InMemoryHistoryStore(), "B", "never")
    try:
        session = first.create_session()
        await run_agent(first, "hi", stream=stream, session=session)

        with pytest.raises(RunStateError, match=REFUSED):
            await run_agent(second, "and?", stream=stream, session=session)
    finally:
        store.close()


def test_the_key_of_a_sqlite_store_is_its_resolved_file(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    store = SqliteHistoryStore(tmp_path / "sub" / ".." / "h.db")
    try:
        assert store.store_key == ("sqlite", os.path.realpath(tmp_path / "h.db"))
        assert SqliteHistoryStore(":memory:").store_key is None
        assert SqliteHistoryStore(f"file:{tmp_path / 'h.db'}").store_key is None
    finally:
        store.close()
