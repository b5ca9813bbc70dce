"""History stores list their sessions (``SupportsListSessions``): the one appended to last
first, with its message count, page by page; bad paging is refused where it is given."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agentcore import (
    HistoryStore,
    InMemoryHistoryStore,
    Message,
    SessionInfo,
    SqliteHistoryStore,
    SupportsListSessions,
)

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[HistoryStore]:
    if request.param == "memory":
        yield InMemoryHistoryStore()
        return
    opened = SqliteHistoryStore(tmp_path / "history.db")
    yield opened
    opened.close()


def turn(n: int) -> list[Message]:
    return [Message("user", f"question {n}"), Message("assistant", f"answer {n}")]


async def test_sessions_list_newest_append_first_with_their_message_counts(
    store: HistoryStore,
) -> None:
    assert isinstance(store, SupportsListSessions)
    assert await store.list_sessions() == []
    await store.append("a", turn(1))
    await store.append("b", turn(2))
    await store.append("c", turn(3)[:1])
    await store.append("a", turn(4))  # "a" becomes the newest
    await store.append("b", [])  # an empty append changes nothing
    assert await store.list_sessions() == [
        SessionInfo("a", 4),
        SessionInfo("c", 1),
        SessionInfo("b", 2),
    ]


async def test_sessions_page_by_limit_and_offset_and_a_cleared_one_is_gone(
    store: HistoryStore,
) -> None:
    assert isinstance(store, SupportsListSessions)
    for n in range(5):
        await store.append(f"s{n}", turn(n))
    assert [s.session_id for s in await store.list_sessions(limit=2)] == ["s4", "s3"]
    assert [s.session_id for s in await store.list_sessions(limit=2, offset=2)] == ["s2", "s1"]
    assert [s.session_id for s in await store.list_sessions(offset=4)] == ["s0"]
    assert await store.list_sessions(offset=5) == []
    await store.clear("s3")  # type: ignore[attr-defined]  # both stores have clear(), the protocol does not
    assert [s.session_id for s in await store.list_sessions()] == ["s4", "s2", "s1", "s0"]


@pytest.mark.parametrize(
    ("limit", "offset", "wrong"),
    [(0, 0, "limit"), (-1, 0, "limit"), (10, -1, "offset"), (True, 0, "limit"), (2.0, 0, "limit")],
)
async def test_bad_paging_is_refused_saying_which_argument(
    store: HistoryStore, limit: int, offset: int, wrong: str
) -> None:
    assert isinstance(store, SupportsListSessions)
    with pytest.raises(ValueError, match=f"{wrong} must be an int"):
        await store.list_sessions(limit=limit, offset=offset)


async def test_sqlite_lists_sessions_written_by_another_store_on_the_same_file(
    tmp_path: Path,
) -> None:
    first, second = SqliteHistoryStore(tmp_path / "h.db"), SqliteHistoryStore(tmp_path / "h.db")
    try:
        await first.append("x", turn(1))
        await second.append("y", turn(2))
        await first.append("x", turn(3))
        assert await second.list_sessions() == [SessionInfo("x", 4), SessionInfo("y", 2)]
    finally:
        first.close()
        second.close()


def test_a_store_without_list_sessions_is_not_one() -> None:
    class LoadAndAppendOnly:
        async def load(self, session_id: str) -> list[Message]:
            return []

        async def append(self, session_id: str, messages: list[Message]) -> None:
            return None

    assert isinstance(LoadAndAppendOnly(), HistoryStore)
    assert not isinstance(LoadAndAppendOnly(), SupportsListSessions)
