"""compacted_view replays append-only records; the stores read the same view."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from agentcore import CompactionContent, InMemoryHistoryStore, Message, SqliteHistoryStore
from agentcore.compaction import HistoryView, compacted_view, is_summary
from agentcore.serialization import to_json
from agentcore.testing import check_history_store
from tests.compaction._conversations import conversation

pytestmark = pytest.mark.anyio


def _record(start: int, end: int, at: int, summary: str | None = "notes", **kw: object) -> Message:
    return Message("user", (CompactionContent(start, end, at, summary, **kw),))  # type: ignore[arg-type]  # **kw: Any


def test_a_log_without_records_is_its_own_view() -> None:
    log = conversation(2)

    view = compacted_view(log)

    assert view == HistoryView(log, range(len(log)), len(log))


def test_a_summary_takes_the_slot_of_its_range() -> None:
    log = [*conversation(2)[:13], Message("user", "next")]  # 14 messages
    log.append(_record(1, 7, 14, "turn 0 in brief", call_ids=("c0a", "c0b")))

    view = compacted_view(log)

    assert view.positions == (0, 1, *range(7, 14))
    summary = view.messages[1]
    assert is_summary(summary)
    assert summary.role == "user"
    assert summary.text == "turn 0 in brief"
    assert view.messages[2:] == tuple(log[7:14])
    assert view.next_position == 15
    assert view.covered_call_ids == {"c0a", "c0b"}
    assert view.ignored_records == 0


def test_a_later_record_supersedes_an_earlier_summary_it_covers() -> None:
    log = conversation(3)  # 19 messages
    log.append(_record(1, 7, 19, "first"))
    log.append(Message("user", "more"))  # 20
    log.append(_record(1, 13, 21, "second"))

    view = compacted_view(log)

    assert view.positions == (0, 1, *range(13, 19), 20)
    assert view.messages[1].text == "second"


def test_a_drop_record_hides_its_range_without_a_note() -> None:
    log = conversation(2)  # 13
    log.append(_record(1, 7, 13, None))

    view = compacted_view(log)

    assert view.positions == (0, *range(7, 13))
    assert not any(is_summary(m) for m in view.messages)


@pytest.mark.parametrize(
    "record",
    [
        _record(1, 7, 12),  # written for another position
        _record(7, 7, 13),  # empty range
        _record(-1, 7, 13),  # before the log
        _record(1, 14, 13),  # past its own position
    ],
)
def test_a_bad_record_hides_nothing_and_is_counted(record: Message) -> None:
    log = [*conversation(2), record]

    view = compacted_view(log)

    assert view.messages == tuple(log[:-1])
    assert view.ignored_records == 1


async def test_in_memory_store_load_view_equals_the_replay_and_follows_appends() -> None:
    store = InMemoryHistoryStore()
    log = conversation(2)
    await store.append("s", log)
    assert await store.load_view("s") == compacted_view(log)

    await store.append("s", [_record(1, 7, 13, "brief")])

    assert await store.load_view("s") == compacted_view(await store.load("s"))
    assert len(await store.load("s")) == 14  # the log keeps everything


async def test_sqlite_load_view_reads_the_view_in_sql(tmp_path: Path) -> None:
    store = SqliteHistoryStore(tmp_path / "h.db")
    log = conversation(4)  # 25
    await store.append("s", log)
    await store.append("s", [Message("user", "next"), _record(1, 13, 26, "two turns")])
    await store.append("s", [_record(7, 13, 99, "ignored")])  # at mismatch
    await store.append("s", [Message("user", "later"), _record(13, 19, 29, None)])
    await store.append("other", conversation(1))

    view = await store.load_view("s")

    assert view == compacted_view(await store.load("s"))
    assert view.ignored_records == 1
    assert view.positions == (0, 1, *range(19, 26), 28)
    rows = sqlite3.connect(tmp_path / "h.db").execute(
        "SELECT position FROM agentcore_messages WHERE session_id = 's' AND kind = 'compaction'"
    )
    assert [p for (p,) in rows] == [26, 27, 29]
    store.close()


async def test_sqlite_adds_the_kind_column_to_an_older_file(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    conn.execute(
        "CREATE TABLE agentcore_messages (session_id TEXT NOT NULL, position INTEGER NOT NULL, "
        "run_id TEXT, message TEXT NOT NULL, PRIMARY KEY (session_id, position))"
    )
    conn.execute(
        "INSERT INTO agentcore_messages VALUES ('s', 0, NULL, ?)", (to_json(Message("user", "hi")),)
    )
    conn.commit()
    conn.close()
    store = SqliteHistoryStore(path)

    view = await store.load_view("s")

    assert [m.text for m in view.messages] == ["hi"]
    assert view.next_position == 1
    store.close()


async def test_an_empty_session_has_an_empty_view(tmp_path: Path) -> None:
    store = SqliteHistoryStore(tmp_path / "e.db")

    assert await store.load_view("none") == HistoryView()
    assert await InMemoryHistoryStore().load_view("none") == HistoryView()
    store.close()


class _WrongView(InMemoryHistoryStore):
    async def load_view(self, session_id: str) -> HistoryView:
        return compacted_view((await self.load(session_id))[1:])


async def test_check_history_store_compares_load_view_with_the_replay(tmp_path: Path) -> None:
    sqlite = SqliteHistoryStore(tmp_path / "c.db")
    for store in (InMemoryHistoryStore(), sqlite):
        await store.append("s", [*conversation(2), _record(1, 7, 13, "brief")])
        await check_history_store(store, "s")
    sqlite.close()
    wrong = _WrongView()
    await wrong.append("s", conversation(1))

    with pytest.raises(AssertionError, match="load_view\\('s'\\) differs from the replay"):
        await check_history_store(wrong, "s")
