"""``import agentcore`` leaves unloaded what only some programs use.

The import budget (``docs/performance.md``) holds because these load on first use; a
top-level import added to the kernel by mistake shows up here, by name, rather than as a
few milliseconds in a benchmark. The modules still load when they are used (the last test).
"""

from __future__ import annotations

import json
import subprocess
import sys

LOADED_ON_FIRST_USE = [
    "agentcore.observers._events",  # built only when an observer listens
    "agentcore._types.hosted_tools",
    "agentcore._types.embeddings",
    "agentcore._feature_stage",
    "agentcore.security",
    "agentcore.tokens",
    "dataclasses",  # tool schemas ask for it only for a dataclass parameter
    "anyio.to_thread",  # only a sync tool's call needs a worker thread
    "base64",  # request ids and DataContent.uri
    "logging",
    "sqlite3",
]


def _loaded_after(source: str) -> list[str]:
    """Which of the names ``source`` loads that the kernel's dependencies had not loaded
    already (an older anyio, say, loads its thread module with ``import anyio``)."""
    script = (
        "import json, sys\n"
        "import attrs, anyio, typing_extensions\n"
        "before = set(sys.modules)\n"
        f"{source}\n"
        f"names = {LOADED_ON_FIRST_USE!r}\n"
        "print(json.dumps([m for m in names if m in sys.modules and m not in before]))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    loaded: list[str] = json.loads(result.stdout)
    return loaded


def test_import_agentcore_loads_none_of_them() -> None:
    assert _loaded_after("import agentcore") == []


def test_an_observer_event_class_loads_on_first_use() -> None:
    source = "from agentcore.observers import RunStarted, ToolCallEnded\nassert RunStarted"
    assert _loaded_after(source) == ["agentcore.observers._events"]
