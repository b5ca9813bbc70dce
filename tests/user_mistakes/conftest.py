"""Runs in both modes where a mistake shows in both."""

from __future__ import annotations

import pytest


@pytest.fixture(params=[False, True], ids=["call", "stream"])
def stream(request: pytest.FixtureRequest) -> bool:
    """Whether the run under test streams."""
    return bool(request.param)
