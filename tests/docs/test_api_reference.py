"""The built API reference shows constructors and renders cross-references.

The site is built once into a temporary folder with the project's own ``mkdocs.yml``.
"""

from __future__ import annotations

import html
import inspect
import re
import subprocess
import sys
from pathlib import Path

import attrs
import pytest

import agentcore

ROOT = Path(__file__).resolve().parents[2]
ROLE = re.compile(r":(?:class|func|meth|attr|exc|data|mod|obj):")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(out)],
        cwd=ROOT,
        check=True,
        capture_output=True,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": str(Path(sys.executable).parent)},
    )
    return out


def text_of(page: Path) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8")))


def signature_of(page_html: str, identifier: str) -> str:
    """The rendered signature that follows an object's heading."""
    heading = page_html.index(f'id="{identifier}"')
    start = page_html.index("doc-signature", heading)
    block = page_html[page_html.index(">", start) + 1 : page_html.index("</code></pre>", start)]
    return html.unescape(re.sub(r"<[^>]+>", "", block)).strip()


def test_no_page_shows_raw_sphinx_roles(site: Path) -> None:
    pages = sorted(site.rglob("*.html"))
    offending = [str(page.relative_to(site)) for page in pages if ROLE.search(text_of(page))]

    assert pages
    assert offending == []


def test_roles_became_links_to_the_documented_objects(site: Path) -> None:
    kernel = (site / "reference" / "kernel" / "index.html").read_text(encoding="utf-8")

    assert 'href="#agentcore.ResponseStream"><code>ResponseStream</code>' in kernel


PUBLIC_CLASSES = sorted(
    name
    for name in agentcore.__all__
    if inspect.isclass(getattr(agentcore, name))
    and not issubclass(getattr(agentcore, name), BaseException)
    and attrs.has(getattr(agentcore, name))
)


@pytest.mark.parametrize("name", PUBLIC_CLASSES)
def test_every_attrs_class_shows_its_constructor_parameters(site: Path, name: str) -> None:
    kernel = (site / "reference" / "kernel" / "index.html").read_text(encoding="utf-8")
    shown = signature_of(kernel, f"agentcore.{name}")
    parameters = inspect.signature(getattr(agentcore, name)).parameters

    assert shown.startswith(f"{name}(")
    for parameter in parameters:
        assert re.search(rf"\b{parameter}\b", shown), (name, parameter, shown)


def test_a_plain_class_shows_its_init_parameters(site: Path) -> None:
    kernel = (site / "reference" / "kernel" / "index.html").read_text(encoding="utf-8")
    shown = signature_of(kernel, "agentcore.Agent")

    for parameter in ("client", "instructions", "tools", "middleware", "history"):
        assert re.search(rf"\b{parameter}\b", shown), parameter


def test_the_overview_lists_every_reference_page_of_the_navigation() -> None:
    nav = set(
        re.findall(r"^\s+- [^:]+: (reference/[\w-]+\.md)$", (ROOT / "mkdocs.yml").read_text(), re.M)
    )
    overview = (ROOT / "docs" / "reference.md").read_text(encoding="utf-8")

    assert len(nav) >= 10
    assert sorted(page for page in nav if f"({page})" not in overview) == []
