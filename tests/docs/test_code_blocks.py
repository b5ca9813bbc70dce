"""Every Python block of the docs and the README passes mypy and basedpyright, strict.

What the reader copies is what is checked: each block with only its page's prelude in
front (see ``tests/docs/code_blocks.py`` for the markers). Blocks that also run (the
README, Getting Started, the middleware pages) are run by their own tests.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docs.code_blocks import ROOT, Block, blocks_of, every_block, pages

_FENCE = re.compile(r"^```python\n", re.M)
_CONTINUED = re.compile(r"^<!-- docs-continue -->\n```python\n", re.M)


def test_every_untitled_python_fence_becomes_a_block() -> None:
    for page in pages():
        text = page.read_text(encoding="utf-8")
        expected = len(_FENCE.findall(text)) - len(_CONTINUED.findall(text))
        assert len(blocks_of(page)) == expected, page


def test_the_docs_have_blocks_on_many_pages() -> None:
    found = {block.page for block in every_block()}
    assert {"README.md", "docs/agents.md", "docs/middleware/audit.md"} <= found
    assert len(found) >= 20


def test_a_prelude_a_setup_and_a_continuation(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "Intro.\n\n<!-- docs-prelude\nx = 1\n-->\n\n```python\ny = x\n```\n\n"
        "<!-- docs-setup -->\n```python\nz = y\n```\n\n"
        "```python\nprint(z)\n```\n\n<!-- docs-continue -->\n```python\nprint(z + 1)\n```\n",
        encoding="utf-8",
    )
    first, setup, last = blocks_of(page, root=tmp_path)

    assert first.prelude == "x = 1\n"
    assert first.source == "y = x\n"
    assert setup.prelude == "x = 1\n"
    assert last.prelude == "x = 1\nz = y\n"
    assert last.source == "print(z)\n\nprint(z + 1)\n"


def test_a_block_that_awaits_is_checked_as_a_coroutine_body() -> None:
    block = Block("p.md", 3, "result = await f()\n", "async def f() -> int:\n    return 1\n")
    module = block.module()

    assert "async def _docs_block() -> None:\n    async def f() -> int:" in module
    assert "\n    result = await f()" in module
    assert "async def _docs_block" not in Block("p.md", 3, "x = 1\n", "").module()


@pytest.mark.parametrize("checker", ["mypy", "basedpyright"])
def test_every_block_type_checks_strictly(tmp_path: Path, checker: str) -> None:
    files: list[str] = []
    for block in every_block():
        path = tmp_path / f"{block.module_name}.py"
        path.write_text(block.module(), encoding="utf-8")
        files.append(str(path))
    tool = str(Path(sys.executable).parent / checker)
    # From the repository, so the project's strict settings apply to the blocks as to the code.
    result = subprocess.run([tool, *files], capture_output=True, text=True, check=False, cwd=ROOT)

    assert result.returncode == 0, result.stdout + result.stderr
