"""Agent tests run every behaviour that has two modes in both of them."""

from __future__ import annotations

import pytest


@pytest.fixture(params=[False, True], ids=["call", "stream"])
def stream(request: pytest.FixtureRequest) -> bool:
    """Whether the run under test streams."""
    return bool(request.param)
