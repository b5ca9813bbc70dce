"""What every ``SupportsListRuns`` store must do, as one check each store's tests call
with an empty store (the in-memory and SQLite stores here, PostgreSQL in
``tests/durable_engines``)."""

from __future__ import annotations

import pytest

from agentcore.workflows import CheckpointRecord, RunStatus, SupportsListRuns


def _record(run: str, n: int, status: RunStatus, workflow: str) -> CheckpointRecord:
    parent = None if n == 1 else f"{run}_{n - 1}"
    return CheckpointRecord(run, f"{run}_{n}", parent, n, status, workflow, None, "t", 1, "{}")


async def check_list_runs(store: object) -> None:
    """``store.runs()`` lists the latest checkpoint of each run, the most recently saved
    last, filtered by workflow and latest status; a bad status is a ``ValueError``."""
    assert isinstance(store, SupportsListRuns)
    assert list(await store.runs()) == []
    saves = [
        _record("a", 1, "running", "expenses"),
        _record("b", 1, "running", "notes"),
        _record("a", 2, "paused", "expenses"),
        _record("c", 1, "completed", "expenses"),
        _record("b", 2, "completed", "notes"),
    ]
    for record in saves:
        await store.save(record)  # type: ignore[attr-defined]  # every store is a CheckpointStore too
    listed = await store.runs()
    assert [(i.run_id, i.checkpoint_id, i.status) for i in listed] == [
        ("a", "a_2", "paused"),
        ("c", "c_1", "completed"),
        ("b", "b_2", "completed"),
    ]
    assert [i.run_id for i in await store.runs(workflow="expenses")] == ["a", "c"]
    assert [i.run_id for i in await store.runs(status="completed")] == ["c", "b"]
    assert [i.run_id for i in await store.runs(workflow="notes", status="paused")] == []
    assert [i.run_id for i in await store.runs(workflow="expenses", status="paused")] == ["a"]
    with pytest.raises(ValueError, match="status must be one of"):
        await store.runs(status="done")  # type: ignore[arg-type]  # the mistake under test
