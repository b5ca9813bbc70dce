"""The boundary between the kernel and the ``agentcore_*`` packages, read from the source.

The kernel (``agentcore``) never imports an ``agentcore_*`` package, and those packages
import only the kernel's public names: no ``agentcore._private`` module and no ``_name``
from a public one. Every ``agentcore_*`` folder under ``providers/``,
``middleware_contrib/`` and ``integrations/`` is found by its name, so a new package is
covered without touching this test. Imports under ``TYPE_CHECKING`` and inside
functions count too.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
KERNEL = ROOT / "agentcore"
PACKAGE_FOLDERS = ("providers", "middleware_contrib", "integrations")


def satellite_packages() -> list[Path]:
    """Every ``agentcore_*`` import package in the top-level folders the layout keeps."""
    return sorted(
        path
        for folder in PACKAGE_FOLDERS
        for path in (ROOT / folder).glob("agentcore_*")
        if (path / "__init__.py").is_file()
    )


def imports_of(path: Path) -> Iterator[tuple[int, str, tuple[str, ...]]]:
    """(line, absolute module, names imported from it) for each import in a file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, ()
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module, tuple(alias.name for alias in node.names)


def python_files(package: Path) -> list[Path]:
    return sorted(package.rglob("*.py"))


def is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def is_private_kernel_import(module: str, names: tuple[str, ...]) -> bool:
    parts = module.split(".")
    if parts[0] != "agentcore":
        return False
    return any(map(is_private, parts[1:])) or any(map(is_private, names))


def test_the_layout_has_the_packages_the_design_names() -> None:
    names = {path.name for path in satellite_packages()}

    assert names >= {
        "agentcore_openai",
        "agentcore_anthropic",
        "agentcore_contrib",
        "agentcore_mcp",
        "agentcore_dbos",
        "agentcore_postgres",
    }


def test_the_kernel_imports_no_agentcore_package() -> None:
    offending = [
        f"{path.relative_to(ROOT)}:{line}: {module}"
        for path in python_files(KERNEL)
        for line, module, _ in imports_of(path)
        if module.split(".")[0].startswith("agentcore_")
    ]

    assert offending == []


@pytest.mark.parametrize("package", satellite_packages(), ids=lambda path: path.name)
def test_an_agentcore_package_imports_only_public_kernel_names(package: Path) -> None:
    offending = [
        f"{path.relative_to(ROOT)}:{line}: {module} {names}"
        for path in python_files(package)
        for line, module, names in imports_of(path)
        if is_private_kernel_import(module, names)
    ]

    assert offending == []


def test_the_check_itself_sees_a_private_import() -> None:
    assert is_private_kernel_import("agentcore._streams.stream", ())
    assert is_private_kernel_import("agentcore.tools._schema", ("x",))
    assert is_private_kernel_import("agentcore.errors", ("_private_helper",))
    assert not is_private_kernel_import("agentcore.errors", ("AgentcoreError",))
    assert not is_private_kernel_import("agentcore", ("__version__",))
    assert not is_private_kernel_import("agentcore_openai._sdk", ("build_client",))


def test_the_kernel_depends_on_attrs_cattrs_anyio_and_typing_extensions_only() -> None:
    # Everything else (the SDKs, mcp with pydantic and starlette, dbos, ...) is an extra.
    # (read with a regular expression: tomllib is 3.11+, and the project supports 3.10)
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    block = re.search(r"^dependencies = \[(.*?)^\]", text, re.M | re.S)
    assert block is not None, "pyproject.toml has no [project] dependencies list"
    specs = re.findall(r'"([^"]+)"', block[1])
    names = {re.split(r"[<>=!~\[; ]", spec, maxsplit=1)[0] for spec in specs}

    assert names == {"attrs", "cattrs", "anyio", "typing-extensions"}
