"""PostgresHistoryStore against a real PostgreSQL server: the semantics of the
kernel's SqliteHistoryStore (whole turns in order, nothing half-written), with
concurrent writers in separate processes."""

from __future__ import annotations

import subprocess
import sys
import uuid
from collections.abc import Iterator

import anyio
import pytest
from agentcore_postgres import PostgresHistoryStore

from agentcore import FunctionCallContent, FunctionResultContent, Message

from .postgres_server import create_database

pytestmark = [pytest.mark.durable_engines, pytest.mark.anyio]


@pytest.fixture(scope="module")
def database(postgres_url: str) -> str:
    return create_database(postgres_url, f"h_{uuid.uuid4().hex[:12]}")


@pytest.fixture
def store(database: str) -> Iterator[PostgresHistoryStore]:
    opened = PostgresHistoryStore(database)
    yield opened
    opened.close()


def turn(n: int) -> list[Message]:
    return [
        Message("user", f"question {n}"),
        Message("assistant", (FunctionCallContent(f"c{n}", "lookup", "{}"),)),
        Message("tool", (FunctionResultContent(f"c{n}", result=n),)),
        Message("assistant", f"answer {n}"),
    ]


async def test_turns_load_in_the_order_they_were_appended(store: PostgresHistoryStore) -> None:
    session = uuid.uuid4().hex
    assert await store.load(session) == []
    await store.append(session, turn(1))
    await store.append(session, turn(2))
    await store.append(session, [])
    assert await store.load(session) == [*turn(1), *turn(2)]
    await store.clear(session)
    assert await store.load(session) == []


async def test_a_turn_that_cannot_be_serialized_leaves_nothing(
    store: PostgresHistoryStore,
) -> None:
    session = uuid.uuid4().hex
    bad = Message("tool", (FunctionResultContent("c", result=object()),))
    with pytest.raises(Exception, match="object"):
        await store.append(session, [Message("user", "hi"), bad])
    assert await store.load(session) == []


async def test_a_cancelled_append_still_commits_the_whole_turn(
    store: PostgresHistoryStore,
) -> None:
    session = uuid.uuid4().hex
    with anyio.CancelScope() as scope:
        scope.cancel()
        await store.append(session, turn(1))
    assert await store.load(session) == turn(1)


_WRITER = """
import sys, anyio
from agentcore import Message
from agentcore_postgres import PostgresHistoryStore
url, session, who = sys.argv[1:4]
store = PostgresHistoryStore(url)
async def main():
    for n in range(15):
        await store.append(session, [Message("user", f"{who}{n}.{i}") for i in range(3)])
anyio.run(main)
store.close()
"""


def test_concurrent_writers_in_two_processes_never_interleave_turns(
    store: PostgresHistoryStore, database: str
) -> None:
    session = uuid.uuid4().hex
    writers = [
        subprocess.Popen([sys.executable, "-c", _WRITER, database, session, who])
        for who in ("a", "b")
    ]
    for writer in writers:
        assert writer.wait(timeout=120) == 0
    texts = [m.text for m in anyio.run(store.load, session)]
    assert len(texts) == 2 * 15 * 3
    turns = [texts[i : i + 3] for i in range(0, len(texts), 3)]
    for each in turns:  # every turn whole: one writer's three messages in order
        assert [t.rsplit(".", 1)[1] for t in each] == ["0", "1", "2"]
        assert len({t.rsplit(".", 1)[0] for t in each}) == 1
    for who in ("a", "b"):  # and each writer's turns in the order it appended them
        mine = [t[0].rsplit(".", 1)[0] for t in turns if t[0].startswith(who)]
        assert mine == [f"{who}{n}" for n in range(15)]


def test_bad_table_names_and_closed_stores_are_refused(database: str) -> None:
    with pytest.raises(ValueError, match="plain lower-case SQL name"):
        PostgresHistoryStore(database, table="x; DROP TABLE y")
    store = PostgresHistoryStore(database)
    store.close()
    with pytest.raises(RuntimeError, match="closed"):
        anyio.run(store.load, "s")


def test_the_store_is_a_history_store(database: str) -> None:
    from agentcore.protocols import HistoryStore

    store = PostgresHistoryStore(database)
    checked: HistoryStore = store  # the static check; the runtime one below
    assert isinstance(checked, HistoryStore)
    store.close()


async def test_load_view_reads_the_compacted_view_in_sql(store: PostgresHistoryStore) -> None:
    from agentcore import CompactionContent
    from agentcore.compaction import compacted_view

    session = uuid.uuid4().hex
    await store.append(session, [*turn(1), *turn(2), *turn(3)])  # 0..11
    record = Message("user", (CompactionContent(0, 8, 12, "turns 1 and 2", call_ids=("c1", "c2")),))
    stale = Message("user", (CompactionContent(8, 12, 99, "written elsewhere"),))
    await store.append(session, [record])
    await store.append(session, [stale, Message("user", "go on")])

    view = await store.load_view(session)

    assert view == compacted_view(await store.load(session))
    assert view.positions == (0, 8, 9, 10, 11, 14)
    assert view.messages[0].text == "turns 1 and 2"
    assert view.covered_call_ids == {"c1", "c2"}
    assert view.ignored_records == 1
    assert await store.load_view(uuid.uuid4().hex) == compacted_view([])


def test_an_older_table_gains_the_kind_column(database: str) -> None:
    import psycopg

    with psycopg.connect(database, autocommit=True) as conn:
        conn.execute(
            "CREATE TABLE old_messages (session_id TEXT NOT NULL, position INTEGER NOT NULL, "
            "message TEXT NOT NULL, PRIMARY KEY (session_id, position))"
        )
    old = PostgresHistoryStore(database, table="old_messages")

    async def main() -> None:
        await old.append("s", turn(1))
        view = await old.load_view("s")
        assert view.messages == tuple(turn(1))

    try:
        anyio.run(main)
    finally:
        old.close()
