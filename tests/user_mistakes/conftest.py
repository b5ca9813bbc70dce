"""Runs in both modes where a mistake shows in both; the wire servers of the adapters."""

from __future__ import annotations

import pytest

from tests.providers.openai.conftest import QuickStopWireServer

__all__ = ["QuickStopWireServer"]


@pytest.fixture(params=[False, True], ids=["call", "stream"])
def stream(request: pytest.FixtureRequest) -> bool:
    """Whether the run under test streams."""
    return bool(request.param)
