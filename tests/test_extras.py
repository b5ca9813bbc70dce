"""Importing an ``agentcore_*`` package without its extra says exactly what to install.

Each case runs in a fresh interpreter in which the SDK cannot be found or imported, so
nothing is reloaded in the test process.
"""

from __future__ import annotations

import subprocess
import sys
from textwrap import dedent

import pytest

# (import name, the SDK it needs, the extra that installs it)
EXTRAS = [
    ("agentcore_openai", "openai", "openai"),
    ("agentcore_anthropic", "anthropic", "anthropic"),
    ("agentcore_contrib.tracing", "opentelemetry", "otel"),
    ("agentcore_mcp", "mcp", "mcp"),
    ("agentcore_dbos", "dbos", "dbos"),
    ("agentcore_postgres", "psycopg", "postgres"),
]


def import_without(package: str, sdk: str) -> subprocess.CompletedProcess[str]:
    script = dedent(
        f"""
        import importlib.util, sys

        real_find_spec = importlib.util.find_spec

        def find_spec(name, *args, **kwargs):
            if name == {sdk!r} or name.startswith({sdk!r} + "."):
                return None
            return real_find_spec(name, *args, **kwargs)

        importlib.util.find_spec = find_spec
        sys.modules[{sdk!r}] = None  # `import {sdk}` raises ImportError too

        try:
            import {package}
        except ImportError as error:
            print(error)
        else:
            print("imported")
        """
    )
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )


@pytest.mark.parametrize(("package", "sdk", "extra"), EXTRAS, ids=[e[0] for e in EXTRAS])
def test_a_missing_sdk_names_the_install_line(package: str, sdk: str, extra: str) -> None:
    result = import_without(package, sdk)

    assert result.returncode == 0, result.stderr
    message = result.stdout.strip()
    assert message.startswith(package.split(".")[0])
    assert message.endswith(f"pip install 'agentcore-framework[{extra}]'")


@pytest.mark.parametrize(("package", "sdk", "extra"), EXTRAS, ids=[e[0] for e in EXTRAS])
def test_with_the_sdk_the_package_imports(package: str, sdk: str, extra: str) -> None:
    del sdk, extra
    result = subprocess.run(
        [sys.executable, "-c", f"import {package}; print('imported')"],
        capture_output=True,
        text=True,
        check=False,
    )

    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "imported"
