"""Shared test configuration: kernel tests run on asyncio and on trio.

Hypothesis's per-example deadline is off: it is a timing assertion, and on a loaded
machine a slow example fails it without anything being wrong (seen under load with
``test_unstructure_output_is_plain_json``).
"""

from __future__ import annotations

import pytest
from hypothesis import settings

settings.register_profile("agentcore", deadline=None)
settings.load_profile("agentcore")


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)
