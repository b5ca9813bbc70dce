"""The wheel and the sdist, built and installed as a user gets them.

The wheel is installed into a fresh virtual environment in a temporary folder, and every
package is imported there by an isolated interpreter (``-I``: no current folder, no
PYTHONPATH), so nothing from the repository's working tree can stand in for what the
wheel installed. First without extras (the kernel and contrib import, each extra-backed
package names its install line), then with every extra.
"""

from __future__ import annotations

import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DISTRIBUTION = "agentcore_framework"
PACKAGES = {
    "agentcore": None,
    "agentcore_contrib": None,
    "agentcore_openai": "openai",
    "agentcore_anthropic": "anthropic",
    "agentcore_mcp": "mcp",
    "agentcore_dbos": "dbos",
    "agentcore_postgres": "postgres",
}
ALL_EXTRAS = "openai,anthropic,otel,mcp,dbos,postgres"


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)],
        check=True,
        capture_output=True,
    )
    return out


@pytest.fixture(scope="module")
def venv(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("venv") / "env"
    subprocess.run([sys.executable, "-m", "venv", str(home)], check=True)
    (wheel,) = dist.glob("*.whl")
    pip_install(home, str(wheel))
    return home


def pip_install(home: Path, requirement: str) -> None:
    subprocess.run(
        [str(home / "bin" / "python"), "-m", "pip", "install", "--quiet", requirement],
        check=True,
        capture_output=True,
    )


def run_isolated(home: Path, code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(home / "bin" / "python"), "-I", "-c", code],
        capture_output=True,
        text=True,
        check=False,
        cwd=home,
    )


def test_the_wheel_holds_each_package_with_its_py_typed_and_nothing_else(dist: Path) -> None:
    (wheel,) = dist.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    top_level = {name.split("/")[0] for name in names if not name.startswith(DISTRIBUTION)}

    assert top_level == set(PACKAGES)
    for package in PACKAGES:
        assert f"{package}/py.typed" in names
        assert f"{package}/__init__.py" in names


def test_the_sdist_holds_every_package_folder(dist: Path) -> None:
    (sdist,) = dist.glob("*.tar.gz")
    with tarfile.open(sdist) as archive:
        names = archive.getnames()
    root = names[0].split("/")[0]

    for path in (
        "agentcore/py.typed",
        "providers/agentcore_openai/py.typed",
        "providers/agentcore_anthropic/py.typed",
        "middleware_contrib/agentcore_contrib/py.typed",
        "integrations/agentcore_mcp/py.typed",
        "integrations/agentcore_dbos/py.typed",
        "integrations/agentcore_postgres/py.typed",
        "pyproject.toml",
        "README.md",
    ):
        assert f"{root}/{path}" in names


def test_without_extras_the_kernel_imports_and_each_extra_names_its_install_line(
    venv: Path,
) -> None:
    result = run_isolated(venv, "import agentcore, agentcore_contrib; print(agentcore.__file__)")
    assert result.returncode == 0, result.stderr
    assert str(venv) in result.stdout
    for package, extra in PACKAGES.items():
        if extra is None:
            continue
        result = run_isolated(venv, f"import {package}")
        assert result.returncode != 0
        assert f"pip install 'agentcore-framework[{extra}]'" in result.stderr


def test_with_every_extra_every_package_imports_from_the_environment(
    venv: Path, dist: Path
) -> None:
    (wheel,) = dist.glob("*.whl")
    pip_install(venv, f"{wheel}[{ALL_EXTRAS}]")
    code = (
        "import importlib, pathlib\n"
        f"for name in {sorted(PACKAGES)!r}:\n"
        "    module = importlib.import_module(name)\n"
        "    folder = pathlib.Path(module.__file__).parent\n"
        "    assert (folder / 'py.typed').is_file(), name\n"
        "    print(folder)\n"
        "import agentcore_contrib.tracing\n"
    )
    result = run_isolated(venv, code)

    assert result.returncode == 0, result.stderr
    folders = result.stdout.split()
    assert len(folders) == len(PACKAGES)
    assert all(folder.startswith(str(venv)) and "site-packages" in folder for folder in folders)
