"""Real MCP servers for the agentcore_mcp tests, started as processes on 127.0.0.1.

- our fixture server (``fixture_server.py``, on the ``mcp`` SDK) over stdio and over
  streamable HTTP, for the cases no public server produces;
- ``mcp-server-time`` (PyPI, stdio), a server nobody here wrote;
- ``fastmcp`` as a streamable-HTTP proxy in front of ``mcp-server-time``.

The servers are dev dependencies: a missing one fails the fixture loudly (never a
skip). HTTP servers are shared by the tests of a module and ended by pid.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

HERE = Path(__file__).parent
FIXTURE = str(HERE / "fixture_server.py")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def executable(name: str) -> str:
    """The console script ``name`` of a dev dependency, next to this Python."""
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if found is None:
        raise RuntimeError(
            f"{name} is not installed; it is a dev dependency: pip install -e '.[dev]'"
        )
    return found


def wait_for_port(port: int, process: subprocess.Popen[bytes], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode} before listening")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {timeout} s")


def stop(process: subprocess.Popen[bytes]) -> None:
    """End ``process`` (and the children of its process group) by pid."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def start_http(args: list[str], port: int, cwd: Path | None = None) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(
        args,
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its own process group, ended as one
    )
    try:
        wait_for_port(port, process)
    except BaseException:
        stop(process)
        raise
    return process


@pytest.fixture(scope="module")
def fixture_url() -> Iterator[str]:
    """Our fixture server over streamable HTTP, one process per test module."""
    port = free_port()
    process = start_http([sys.executable, FIXTURE, "http", str(port)], port)
    yield f"http://127.0.0.1:{port}/mcp"
    stop(process)


@pytest.fixture(scope="module")
def time_proxy_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """fastmcp serving mcp-server-time over streamable HTTP."""
    port = free_port()
    folder = tmp_path_factory.mktemp("proxy")
    config = {
        "mcpServers": {
            "time": {"command": executable("mcp-server-time"), "args": ["--local-timezone", "UTC"]}
        }
    }
    (folder / "mcp.json").write_text(json.dumps(config))
    fastmcp = executable("fastmcp")
    args = [fastmcp, "run", "mcp.json", "--transport", "http", "--host", "127.0.0.1"]
    process = start_http([*args, "--port", str(port), "--no-banner"], port, cwd=folder)
    yield f"http://127.0.0.1:{port}/mcp"
    stop(process)


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` still runs (a zombie counts as ended)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ", 1)[1][0] != "Z"
    except FileNotFoundError:
        return False


# On trio, the mcp SDK's streamable-HTTP client leaves httpx2's SSE generator for the
# garbage collector when a listen stream (the list-changed watcher) is cancelled at
# exit, and trio warns when it finalizes it. The connection is closed all the same;
# the SDK, not this package, holds the generator.
SDK_SSE_GENERATOR_WARNING = pytest.mark.filterwarnings(
    "ignore:Async generator 'httpx2._sse.EventSource.__aiter__' was garbage collected"
    ":ResourceWarning",
    "ignore::pytest.PytestUnraisableExceptionWarning",
)
