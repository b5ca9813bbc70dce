"""Tests that need a system component the package index does not provide.

``make check`` installs these components when it runs as root on Debian
(``make system-deps``); elsewhere the tests that need one skip with the reason and the
command that installs it. CI sets ``AGENTCORE_REQUIRE_EXTERNAL=1``, which turns such a
skip into a failure (``tests/conftest.py``), so a missing install step fails in CI and
not on a user's machine.
"""

from __future__ import annotations

import shutil

import pytest

EXTERNAL_PREFIX = "external component missing: "


def requires_program(program: str, install: str) -> pytest.MarkDecorator:
    """Skip unless ``program`` is on PATH; the reason says how to install it."""
    return pytest.mark.skipif(
        shutil.which(program) is None,
        reason=f"{EXTERNAL_PREFIX}{program} is not installed ({install}, or `make system-deps`)",
    )
