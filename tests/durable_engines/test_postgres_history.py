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
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from agentcore import Agent, FunctionCallContent, FunctionResultContent, Message
from agentcore.errors import RunStateError
from agentcore.testing import ScriptedChatClient
from tests.middleware.harness import run_agent, text

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


def _agent(store: PostgresHistoryStore, name: str, answer: str) -> tuple[Agent, ScriptedChatClient]:
    client = ScriptedChatClient([text(answer)])
    return Agent(client, name=name, history=store), client


@pytest.mark.parametrize("stream", [False, True], ids=["call", "stream"])
async def test_two_stores_on_one_database_and_table_share_a_session(
    database: str, stream: bool
) -> None:
    # The same database, spelled as a URL and as a libpq keyword string.
    spelled_otherwise = make_conninfo("", **conninfo_to_dict(database))
    assert spelled_otherwise != database
    first_store, second_store = (
        PostgresHistoryStore(database),
        PostgresHistoryStore(spelled_otherwise),
    )
    first, _ = _agent(first_store, "A", "hello")
    second, client = _agent(second_store, "B", "again")
    try:
        session = first.create_session()
        await run_agent(first, "hi", stream=stream, session=session)

        response, _ = await run_agent(second, "and?", stream=stream, session=session)

        assert response.text == "again"
        assert [m.text for m in client.requests[0].messages] == ["hi", "hello", "and?"]
        stored = await first_store.load(session.session_id)
        assert [m.text for m in stored] == ["hi", "hello", "and?", "again"]
    finally:
        first_store.close()
        second_store.close()


@pytest.mark.parametrize("stream", [False, True], ids=["call", "stream"])
@pytest.mark.parametrize("other", ["table", "database"])
async def test_stores_on_another_table_or_database_stay_apart(
    postgres_url: str, database: str, other: str, stream: bool
) -> None:
    first_store = PostgresHistoryStore(database)
    if other == "table":
        second_store = PostgresHistoryStore(database, table="other_messages")
    else:
        second_store = PostgresHistoryStore(
            create_database(postgres_url, f"h_{uuid.uuid4().hex[:12]}")
        )
    first, _ = _agent(first_store, "A", "hello")
    second, client = _agent(second_store, "B", "never")
    try:
        session = first.create_session()
        await run_agent(first, "hi", stream=stream, session=session)

        with pytest.raises(
            RunStateError,
            match=r"this session's history is in the PostgresHistoryStore of agent 'A', but "
            r"agent 'B' keeps history in PostgresHistoryStore, so it would not see",
        ):
            await run_agent(second, "and?", stream=stream, session=session)
        assert client.requests == []
    finally:
        first_store.close()
        second_store.close()


def test_the_store_key_is_the_server_database_user_and_table_as_libpq_reads_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for variable in ("PGHOST", "PGHOSTADDR", "PGPORT", "PGUSER", "PGDATABASE"):
        monkeypatch.delenv(variable, raising=False)
    key = PostgresHistoryStore("postgresql://ada@db.example:5432/shop").store_key
    assert key == ("postgresql", "db.example", "5432", "shop", "ada", "agentcore_messages")
    same = [
        "postgresql://ada@db.example/shop",  # the default port
        "host=db.example port=5432 user=ada dbname=shop",
        "postgresql://db.example/shop?user=ada",
    ]
    assert all(PostgresHistoryStore(url).store_key == key for url in same)
    # No database given: libpq's, named after the user.
    assert PostgresHistoryStore("postgresql://ada@db.example").store_key == (
        "postgresql",
        "db.example",
        "5432",
        "ada",
        "ada",
        "agentcore_messages",
    )
    monkeypatch.setenv("PGPORT", "6543")
    assert PostgresHistoryStore("postgresql://ada@db.example/shop").store_key[2] == "6543"
    with pytest.raises(ValueError, match="libpq connection string or postgresql:// URL"):
        PostgresHistoryStore("postgresql://ada:secret@db.example/shop?bogus=1")


async def test_sessions_list_by_id_with_their_message_counts_page_by_page(database: str) -> None:
    from agentcore import SessionInfo, SupportsListSessions

    store = PostgresHistoryStore(database, table=f"listed_{uuid.uuid4().hex[:8]}")
    try:
        assert isinstance(store, SupportsListSessions)
        assert await store.list_sessions() == []
        await store.append("s2", turn(1))
        await store.append("s0", turn(2)[:1])
        await store.append("s1", turn(3))
        await store.append("s2", turn(4))
        assert await store.list_sessions() == [
            SessionInfo("s0", 1),
            SessionInfo("s1", 4),
            SessionInfo("s2", 8),
        ]
        assert await store.list_sessions(limit=1, offset=1) == [SessionInfo("s1", 4)]
        assert await store.list_sessions(offset=3) == []
        await store.clear("s1")
        assert [s.session_id for s in await store.list_sessions()] == ["s0", "s2"]
        with pytest.raises(ValueError, match="limit must be an int >= 1"):
            await store.list_sessions(limit=0)
        with pytest.raises(ValueError, match="offset must be an int >= 0"):
            await store.list_sessions(offset=-1)
    finally:
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
