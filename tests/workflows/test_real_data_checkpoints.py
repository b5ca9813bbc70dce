"""Checkpoints hold real data (issue 28 §1.2): datetime, date, time, timedelta, UUID,
Decimal, enums and paths, in attrs classes and dataclasses, round-trip through the
memory and SQLite stores as messages in flight, request data, answers and executor
state; a value that cannot be stored fails its superstep as its executor's failure.
On asyncio and trio, in run() and run(stream=True). (PostgreSQL:
tests/durable_engines/test_postgres_real_data.py.)"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agentcore.workflows import (
    CheckpointStore,
    InMemoryCheckpointStore,
    SqliteCheckpointStore,
    WorkflowBuildError,
)

from ._real_data_flows import boxed, check_round_trip, check_unstorable, unstorable

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[CheckpointStore]:
    if request.param == "memory":
        yield InMemoryCheckpointStore()
    else:
        yield SqliteCheckpointStore(str(tmp_path / "runs.db"))


@pytest.mark.parametrize("stream", [False, True], ids=["run", "stream"])
async def test_real_data_round_trips_through_the_store(
    store: CheckpointStore, stream: bool
) -> None:
    await check_round_trip(store, stream)


@pytest.mark.parametrize("stream", [False, True], ids=["run", "stream"])
async def test_a_value_that_cannot_be_stored_fails_its_executor(
    store: CheckpointStore, stream: bool
) -> None:
    await check_unstorable(store, stream)


async def test_without_a_store_nothing_is_encoded_and_the_run_completes() -> None:
    assert (await unstorable().run("abc")).output == "took"


def test_a_declared_type_no_checkpoint_can_hold_is_refused_at_build(
    store: CheckpointStore,
) -> None:
    with pytest.raises(
        WorkflowBuildError, match=r"Box cannot be stored in a checkpoint \(it holds"
    ):
        boxed(store)


async def test_the_same_definition_without_a_store_builds_and_runs() -> None:
    assert (await boxed().run("abcd")).output == "4"
