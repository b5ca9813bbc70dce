"""Checkpoints of real data (issue 28 §1.2) through PostgresCheckpointStore on a real
PostgreSQL server: the checks the memory and SQLite stores pass
(tests/workflows/test_real_data_checkpoints.py)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from agentcore_postgres import PostgresCheckpointStore

from tests.workflows._real_data_flows import check_round_trip, check_unstorable

from .postgres_server import create_database

pytestmark = [pytest.mark.durable_engines, pytest.mark.anyio]


@pytest.fixture(scope="module")
def database(postgres_url: str) -> str:
    return create_database(postgres_url, f"w_{uuid.uuid4().hex[:12]}")


@pytest.fixture
def store(database: str) -> Iterator[PostgresCheckpointStore]:
    opened = PostgresCheckpointStore(database, prefix=f"t{uuid.uuid4().hex[:10]}")
    yield opened
    opened.close()


@pytest.mark.parametrize("stream", [False, True], ids=["run", "stream"])
async def test_real_data_round_trips_through_postgres(
    store: PostgresCheckpointStore, stream: bool
) -> None:
    await check_round_trip(store, stream)


@pytest.mark.parametrize("stream", [False, True], ids=["run", "stream"])
async def test_a_value_postgres_cannot_store_fails_its_executor(
    store: PostgresCheckpointStore, stream: bool
) -> None:
    await check_unstorable(store, stream)
