"""Fixtures for the tests against real engines: a private PostgreSQL server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .postgres_server import postgres_server


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A PostgreSQL server for the whole session (never skipped: it must start)."""
    with postgres_server() as url:
        yield url
