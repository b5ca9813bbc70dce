"""Writing a drawing of a workflow as Mermaid or Graphviz DOT text, and DOT as SVG.

What to draw (node shapes and marks, edge labels and styles, fan-in junctions,
sub-workflow clusters) is decided from a ``WorkflowDescription`` by ``_describe``; this
module only writes syntax. Both writers are pure: the same drawing gives the same
bytes (LF line ends, no trailing spaces, one final newline), so their output can be
kept as golden files and diffed.
"""

from __future__ import annotations

import re
from typing import Literal, NamedTuple

__all__ = [
    "Cluster",
    "DrawEdge",
    "DrawNode",
    "Drawing",
    "EdgeStyle",
    "Mark",
    "Shape",
    "dot",
    "mermaid",
    "svg",
]

Shape = Literal["box", "agent", "workflow", "junction"]
EdgeStyle = Literal["solid", "dashed", "thick"]
Mark = Literal["start", "output", "asks"]


class DrawNode(NamedTuple):
    key: str  # Mermaid's id: "n0", "n3_1", "j2"
    path: str  # DOT's id: the executor id, "node/child" inside a cluster, "__join_g2"
    label: str
    shape: Shape
    marks: tuple[Mark, ...]


class Cluster(NamedTuple):
    """An expanded sub-workflow node: its child's nodes and edges drawn inside it."""

    key: str
    path: str
    title: str
    items: tuple[DrawNode | Cluster, ...]
    edges: tuple[DrawEdge, ...]
    entry: str  # the key edges into the cluster reach (the child's start)
    exit: str  # the key edges out of the cluster leave from (the child's first output)


class DrawEdge(NamedTuple):
    source: str  # a key
    target: str  # a key
    label: tuple[str, ...]  # the condition, then the carried types (either may be absent)
    style: EdgeStyle


class Drawing(NamedTuple):
    name: str
    items: tuple[DrawNode | Cluster, ...]
    edges: tuple[DrawEdge, ...]


# -- Mermaid -----------------------------------------------------------------------------

_MERMAID_NAMED = {'"': "#quot;", "<": "#lt;", ">": "#gt;"}
_MERMAID_SPECIAL = re.compile(r'["<>#`\x00-\x1f\x7f]')
_MERMAID_SHAPES: dict[Shape, tuple[str, str]] = {
    "box": ('["', '"]'),
    "agent": ('(["', '"])'),
    "workflow": ('[["', '"]]'),
    "junction": ('(("', '"))'),
}
_MERMAID_ARROWS: dict[EdgeStyle, str] = {"solid": "-->", "dashed": "-.->", "thick": "==>"}
_MERMAID_CLASSES: dict[Mark, str] = {
    "start": "stroke-width:3px",
    "output": "stroke-dasharray:5 3",
    "asks": "stroke:#b7791f",
}


def _mermaid_text(text: str) -> str:
    """``text`` safe inside a quoted Mermaid label: quotes, angle brackets, ``#``,
    backticks and control characters as entity codes."""
    return _MERMAID_SPECIAL.sub(
        lambda m: _MERMAID_NAMED.get(m.group(), f"#{ord(m.group())};"), text
    )


def mermaid(drawing: Drawing, direction: str) -> str:
    """The drawing as a Mermaid ``flowchart``."""
    lines = [f"flowchart {direction}"]
    marked: dict[Mark, list[str]] = {}
    multi: list[tuple[str, tuple[Mark, ...]]] = []

    def node_lines(
        items: tuple[DrawNode | Cluster, ...], edges: tuple[DrawEdge, ...], pad: str
    ) -> None:
        for item in items:
            if isinstance(item, Cluster):
                lines.append(f'{pad}subgraph {item.key} ["{_mermaid_text(item.title)}"]')
                node_lines(item.items, item.edges, pad + "  ")
                lines.append(f"{pad}end")
                continue
            opening, closing = _MERMAID_SHAPES[item.shape]
            text = " " if item.shape == "junction" else _mermaid_text(item.label)
            line = f"{pad}{item.key}{opening}{text}{closing}"
            if len(item.marks) == 1:
                line += f":::{item.marks[0]}"
            elif item.marks:
                multi.append((item.key, item.marks))
            for mark in item.marks:
                marked.setdefault(mark, []).append(item.key)
            lines.append(line)
        lines.extend(f"{pad}{_mermaid_edge(edge)}" for edge in edges)

    node_lines(drawing.items, drawing.edges, "  ")
    # one class per statement: `class a x,y` would name one class "x,y"
    lines.extend(f"  class {key} {mark}" for key, marks in multi for mark in marks)
    lines.extend(
        f"  classDef {mark} {style}" for mark, style in _MERMAID_CLASSES.items() if mark in marked
    )
    return "\n".join(lines) + "\n"


def _mermaid_edge(edge: DrawEdge) -> str:
    arrow = _MERMAID_ARROWS[edge.style]
    if not edge.label:
        return f"{edge.source} {arrow} {edge.target}"
    text = _mermaid_text(" · ".join(edge.label))
    return f'{edge.source} {arrow}|"{text}"| {edge.target}'


# -- DOT ---------------------------------------------------------------------------------

_DOT_SHAPES: dict[Shape, str] = {
    "box": "",
    "agent": "shape=oval",
    "workflow": "shape=box3d",
    "junction": 'shape=point, label=""',
}
_DOT_MARKS: dict[Mark, str] = {
    "start": "penwidth=2",
    "output": "peripheries=2",
    "asks": 'color="#b7791f"',
}
_DOT_STYLES: dict[EdgeStyle, str] = {"solid": "", "dashed": "style=dashed", "thick": "penwidth=2"}


def _dot_text(text: str) -> str:
    """``text`` as a quoted DOT string: backslashes and quotes escaped, line breaks as
    ``\\n`` (so no id or label can end the string or the statement)."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    escaped = escaped.replace("\r", "\\r").replace("\n", "\\n")
    return f'"{escaped}"'


def dot(drawing: Drawing, rankdir: str) -> str:
    """The drawing as a Graphviz ``digraph``."""
    keys: dict[str, DrawNode | Cluster] = {}

    def index(items: tuple[DrawNode | Cluster, ...]) -> None:
        for item in items:
            keys[item.key] = item
            if isinstance(item, Cluster):
                index(item.items)

    index(drawing.items)
    clustered = len(keys) > sum(1 for item in keys.values() if isinstance(item, DrawNode))
    lines = [
        f"digraph {_dot_text(drawing.name)} {{",
        f"  graph [rankdir={rankdir}{', compound=true' if clustered else ''}];",
        "  node [shape=box, style=rounded];",
    ]

    def end(key: str, entering: bool) -> tuple[str, str | None]:
        """The DOT node an edge meets for ``key``, and the cluster it clips to."""
        item = keys[key]
        clip = None
        if isinstance(item, Cluster):
            clip = f"cluster_{item.path}"
        while isinstance(item, Cluster):
            item = keys[item.entry if entering else item.exit]
        return item.path, clip

    def edge_line(edge: DrawEdge) -> str:
        source, tail = end(edge.source, entering=False)
        target, head = end(edge.target, entering=True)
        attributes = [a for a in (_DOT_STYLES[edge.style],) if a]
        if edge.label:
            attributes.append(f"label={_dot_text(chr(10).join(edge.label))}")
        if tail is not None:
            attributes.append(f"ltail={_dot_text(tail)}")
        if head is not None:
            attributes.append(f"lhead={_dot_text(head)}")
        suffix = f" [{', '.join(attributes)}]" if attributes else ""
        return f"{_dot_text(source)} -> {_dot_text(target)}{suffix};"

    def body(items: tuple[DrawNode | Cluster, ...], edges: tuple[DrawEdge, ...], pad: str) -> None:
        for item in items:
            if isinstance(item, Cluster):
                lines.append(f"{pad}subgraph {_dot_text(f'cluster_{item.path}')} {{")
                lines.append(f"{pad}  label={_dot_text(item.title)};")
                body(item.items, item.edges, pad + "  ")
                lines.append(f"{pad}}}")
                continue
            attributes = [a for a in (_DOT_SHAPES[item.shape],) if a]
            if item.shape != "junction":
                attributes.append(f"label={_dot_text(item.label)}")
            attributes.extend(_DOT_MARKS[mark] for mark in item.marks)
            lines.append(f"{pad}{_dot_text(item.path)} [{', '.join(attributes)}];")
        lines.extend(f"{pad}{edge_line(edge)}" for edge in edges)

    body(drawing.items, drawing.edges, "  ")
    lines.append("}")
    return "\n".join(lines) + "\n"


# -- SVG ---------------------------------------------------------------------------------

_INSTALL_GRAPHVIZ = (
    "to_svg() runs Graphviz's `dot` program, which is not on PATH; install Graphviz "
    "(Debian/Ubuntu: apt-get install graphviz; macOS: brew install graphviz; "
    "Windows: winget install graphviz) or draw to_dot() / to_mermaid() text elsewhere"
)


def svg(dot_text: str, timeout: float) -> str:
    """``dot_text`` drawn by Graphviz's ``dot -Tsvg``: ``FileNotFoundError`` saying how
    to install Graphviz when ``dot`` is not on PATH, ``RuntimeError`` with its message
    when it fails, ``subprocess.TimeoutExpired`` after ``timeout`` seconds."""
    import shutil
    import subprocess

    program = shutil.which("dot")
    if program is None:
        raise FileNotFoundError(_INSTALL_GRAPHVIZ)
    done = subprocess.run(
        [program, "-Tsvg"],
        input=dot_text.encode("utf-8"),
        capture_output=True,
        timeout=timeout,
        check=False,
    )
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip()
        raise RuntimeError(f"Graphviz's dot failed (exit {done.returncode}): {message}")
    return done.stdout.decode("utf-8")
