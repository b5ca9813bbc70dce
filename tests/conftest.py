"""Shared test configuration: kernel tests run on asyncio and on trio.

Hypothesis's per-example deadline is off: it is a timing assertion, and on a loaded
machine a slow example fails it without anything being wrong (seen under load with
``test_unstructure_output_is_plain_json``).
"""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

from tests.external import EXTERNAL_PREFIX

settings.register_profile("agentcore", deadline=None)
settings.load_profile("agentcore")


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]  # a hookwrapper's generator type is pluggy's, not ours
    """With ``AGENTCORE_REQUIRE_EXTERNAL=1`` (CI), a skip for a missing system component fails."""
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    if not (report.skipped and os.environ.get("AGENTCORE_REQUIRE_EXTERNAL") == "1"):
        return
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    if EXTERNAL_PREFIX in reason:
        report.outcome = "failed"
        report.longrepr = f"AGENTCORE_REQUIRE_EXTERNAL=1 and {reason}"
