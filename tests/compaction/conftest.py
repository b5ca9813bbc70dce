"""Compaction tests: the experimental warning is expected here, and runs come in both modes."""

from __future__ import annotations

import warnings

import pytest

from agentcore import ExperimentalWarning


@pytest.fixture(autouse=True)
def _quiet_experimental() -> None:
    warnings.filterwarnings("ignore", category=ExperimentalWarning)


@pytest.fixture(params=[False, True], ids=["call", "stream"])
def stream(request: pytest.FixtureRequest) -> bool:
    """Whether the run under test streams."""
    return bool(request.param)
