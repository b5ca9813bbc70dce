"""Every ``python`` block of docs/middleware.md runs, on asyncio and on trio.

Blocks build on the ones before them (the page's setup block defines the imports and
helpers); a block that defines ``main()`` is an example, and its assertions are the
behaviour the page promises.
"""

from __future__ import annotations

import linecache
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, cast

import pytest

PAGE = Path(__file__).resolve().parents[2] / "docs" / "middleware.md"
_FENCE = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)
_HEADING = re.compile(r"^#+ (.+)$", re.MULTILINE)


def _blocks() -> list[tuple[str, str]]:
    text = PAGE.read_text(encoding="utf-8")
    blocks: list[tuple[str, str]] = []
    for match in _FENCE.finditer(text):
        headings = _HEADING.findall(text, 0, match.start())
        where = headings[-1] if headings else "top"
        slug = re.sub(r"[^a-z0-9]+", "-", where.lower()).strip("-")
        blocks.append((f"{len(blocks)}-{slug}", match.group(1)))
    return blocks


BLOCKS = _blocks()


def _namespace_up_to(position: int) -> dict[str, Any]:
    namespace: dict[str, Any] = {"__name__": "docs_middleware"}
    for index, (name, source) in enumerate(BLOCKS[: position + 1]):
        namespace.pop("main", None)
        filename = f"{PAGE.name}[{name}]"
        # Registered so that a failing example's traceback shows its lines.
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        exec(compile(source, filename, "exec"), namespace)  # the page's own examples
        if index < position:
            namespace.pop("main", None)
    return namespace


def test_the_page_has_examples_for_every_control_flow_exit() -> None:
    sources = "\n".join(source for _, source in BLOCKS)
    assert len(BLOCKS) >= 10
    assert "return  # the model is not called" in sources
    assert "raise MiddlewareTermination()" in sources
    assert "MiddlewareTermination(result=" in sources
    assert "raise Refused(" in sources


@pytest.mark.anyio
@pytest.mark.parametrize("position", range(len(BLOCKS)), ids=[name for name, _ in BLOCKS])
async def test_docs_example_runs(position: int) -> None:
    namespace = _namespace_up_to(position)
    main = namespace.get("main")
    if main is None:
        return  # a setup block: defining its names without error is the test
    await cast("Callable[[], Awaitable[None]]", main)()
