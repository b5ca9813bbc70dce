"""The Python blocks of the docs and the README, as modules a type checker can read.

A page's reader sees only the fenced blocks; the page's source may add, in HTML comments
the site does not show, what a block assumes without saying:

- ``<!-- docs-prelude ... -->``: code put in front of every later block of the page
  (imports, a test double standing in for a real client, the ``agent`` of an earlier
  paragraph). Several preludes on one page add up, in order.
- ``<!-- docs-setup -->`` just before a block: the block is checked, then put in front of
  every later block of the page, like a prelude the reader sees (a page's shared setup).
- ``<!-- docs-continue -->`` just before a block: the block goes on from the previous one
  (it is checked after it, in the same module), as when a page builds one program in
  steps.

A block with a top-level ``await`` (as in a notebook or ``python -m asyncio``) is checked,
with its prelude, as the body of an ``async def``. Blocks titled with a file path (```` ```python
title="examples/custom_adapter.py" ````) are left out: they quote files that the type
checkers read anyway, and ``tests/provider_guide/test_guide.py`` holds them verbatim.
"""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
from pathlib import Path

import attrs

ROOT = Path(__file__).resolve().parents[2]

_PIECES = re.compile(
    r"^<!-- docs-prelude\n(?P<prelude>.*?)^-->\n"
    r"|^(?:<!-- docs-(?P<marker>continue|setup) -->\n)?```python\n(?P<code>.*?)^```$",
    re.M | re.S,
)


@attrs.frozen
class Block:
    """One fenced block, with what the page says it assumes."""

    page: str
    line: int
    source: str
    prelude: str

    @property
    def module_name(self) -> str:
        stem = self.page.removesuffix(".md").replace("/", "__").replace("-", "_")
        return f"{stem}__line{self.line}"

    def module(self) -> str:
        """The block as a module: the page's prelude, then the block."""
        body = f"{self.prelude}\n{self.source}"
        if _awaits_at_top_level(body):
            body = "async def _docs_block() -> None:\n" + textwrap.indent(body, "    ")
        return f"# {self.page}, line {self.line}\n{_QUIET}\n{body}"


_QUIET = (
    "# pyright: reportUnusedImport=false, reportUnusedVariable=false,"
    " reportUnusedExpression=false, reportUnusedFunction=false, reportUnusedClass=false,"
    " reportDuplicateImport=false"
)
"""A page's prelude serves all its blocks, so a block need not use all of it (and a whole
program may import again what the prelude did); a page may show an expression's type by
writing the expression alone."""


def _awaits_at_top_level(source: str) -> bool:
    code = compile(source, "<block>", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    return bool(code.co_flags & inspect.CO_COROUTINE)


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def blocks_of(page: Path, root: Path = ROOT) -> list[Block]:
    text = page.read_text(encoding="utf-8")
    name = page.relative_to(root).as_posix()
    found: list[Block] = []
    prelude = ""
    for match in _PIECES.finditer(text):
        if match["prelude"] is not None:
            prelude += match["prelude"]
            continue
        line = text.count("\n", 0, match.start("code"))
        if match["marker"] == "setup":
            found.append(Block(name, line, match["code"], prelude))
            prelude += match["code"]
        elif match["marker"] == "continue" and found:
            previous = found.pop()
            source = previous.source + "\n" + match["code"]
            found.append(attrs.evolve(previous, source=source))
        else:
            found.append(Block(name, line, match["code"], prelude))
    return found


def every_block() -> list[Block]:
    return [block for page in pages() for block in blocks_of(page)]
