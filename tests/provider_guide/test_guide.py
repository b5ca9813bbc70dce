"""The provider guide and the code it quotes cannot drift apart.

Every fenced block in ``docs/provider-guide.md`` titled with a file path
(```` ```python title="examples/custom_adapter.py" ````) must be a verbatim run of
lines of that file, and together the blocks titled with the example must quote all of
its adapter part (between the ``# -- the adapter`` and ``# -- the demo`` markers).
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import attrs
import pytest

from tests.provider_guide.example import EXAMPLE, load_example

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "provider-guide.md"
EXAMPLE_TITLE = "examples/custom_adapter.py"
_FENCE = re.compile(r'^```python title="(?P<path>[^"]+)"\n(?P<code>.*?)^```$', re.M | re.S)

ADAPTER_CODE_LINES = 120
"""The guide promises "under 120 lines of code"; this keeps the promise."""


@attrs.frozen
class QuotedBlock:
    path: str
    code: str
    number: int

    @property
    def id(self) -> str:
        return f"{self.path}#{self.number}"


def _blocks() -> list[QuotedBlock]:
    found = _FENCE.finditer(GUIDE.read_text(encoding="utf-8"))
    return [QuotedBlock(m["path"], m["code"], n) for n, m in enumerate(found, start=1)]


def _lines_of(block: QuotedBlock) -> range:
    """The line numbers (from 1) of the file that ``block`` quotes; empty when it does not."""
    text = "\n" + (ROOT / block.path).read_text(encoding="utf-8")
    start = text.find("\n" + block.code)
    if start < 0:
        return range(0)
    first = text.count("\n", 0, start) + 1
    return range(first, first + block.code.count("\n"))


def _adapter_lines() -> dict[int, str]:
    """The non-blank lines of the example's adapter part, by line number."""
    lines = EXAMPLE.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("# -- the adapter"))
    end = next(i for i, line in enumerate(lines) if line.startswith("# -- the demo"))
    return {i + 1: lines[i] for i in range(start + 1, end) if lines[i].strip()}


def _docstring_lines() -> set[int]:
    tree = ast.parse(EXAMPLE.read_text(encoding="utf-8"))
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return found


@pytest.mark.parametrize("block", _blocks(), ids=lambda b: b.id)
def test_each_quoted_block_is_a_verbatim_run_of_its_file(block: QuotedBlock) -> None:
    assert (ROOT / block.path).is_file(), f"{block.id} names a file that does not exist"
    assert _lines_of(block), f"{block.id} no longer matches {block.path}; copy it again"


def test_the_guide_quotes_the_whole_adapter() -> None:
    quoted: set[int] = set()
    for block in _blocks():
        if block.path == EXAMPLE_TITLE:
            quoted.update(_lines_of(block))
    missing = {n: line for n, line in _adapter_lines().items() if n not in quoted}
    assert not missing, f"adapter lines the guide does not show: {missing}"


def test_the_adapter_stays_about_as_long_as_the_guide_says() -> None:
    docstrings = _docstring_lines()
    code = [
        n
        for n, line in _adapter_lines().items()
        if not line.strip().startswith("#") and n not in docstrings
    ]
    assert len(code) <= ADAPTER_CODE_LINES, f"the adapter grew to {len(code)} lines of code"


def test_the_example_runs_offline_and_answers_from_its_tool() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPATIBLE_")}
    done = subprocess.run(
        [sys.executable, str(EXAMPLE)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    weather = load_example().get_weather.func("Paris")
    assert done.stdout.count(weather) == 2, done.stdout  # the whole run, then the streamed one
