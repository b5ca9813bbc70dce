"""The kernel's floors: every import inside ``agentcore`` points down, and none closes a cycle.

``FLOORS`` below is the floor plan of ``docs/architecture.md``: groups of modules, lowest
first. A module may import its own group and any group on a lower floor, never a group on
its own floor or above. Imports are read from the source with ``ast``, so an import under
``if TYPE_CHECKING:`` or inside a function counts like one at the top of the module: a
type-only or lazy import still ties the two modules together for a reader.

There is no list of exceptions: the kernel has no upward import and no import cycle
(``python3 /work/shared/tools/cycles.py agentcore`` agrees).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

import agentcore

KERNEL = Path(agentcore.__file__).parent
FACE = "agentcore"

# Lowest floor first. A group names top-level entries of the ``agentcore`` package (a module
# or a sub-package with everything inside it). Groups on one floor do not import each other.
FLOORS: tuple[tuple[str, ...], ...] = (
    # the taxonomy imports nothing: everything may raise its errors; _repr: the one
    # __repr__ of the kernel's attrs classes, which imports nothing of the kernel, and
    # _equality their one __eq__ and __hash__; _converter_hooks: converter hooks
    # registered before the converter is loaded
    ("errors", "_repr", "_equality", "_converter_hooks"),
    ("security", "sse", "_concurrency", "_feature_stage"),
    ("_types",),
    ("_streams", "serialization", "observers"),
    # the durable-run hooks a run carries: below sessions and runs; what every adapter
    # shares, over the streams its get_response returns (the kernel never imports it)
    ("_replay", "adapters"),
    ("_sessions",),
    ("_run_context", "_seams"),  # _seams: the chat-client and agent protocols contexts name
    ("tools",),
    ("middleware", "structured"),
    ("protocols",),  # public seams; context providers and middleware protocols name contexts
    ("_fastpaths",),  # constructions written for speed, with the measured reasons
    ("_loop", "tokens"),  # tokens: the shared estimate, which asks a counting client first
    ("_agent",),
    # workflows and the durable-run wrappers (agentcore.durable) may use every floor below;
    # the kernel never imports them
    ("testing", "workflows", "durable", "compaction"),
    (FACE,),  # agentcore/__init__.py: the public face re-exports from every floor
)


def kernel_modules(root: Path = KERNEL) -> dict[str, Path]:
    """Every module of the kernel by dotted name (a package by its ``__init__``)."""
    modules: dict[str, Path] = {}
    for path in root.rglob("*.py"):
        parts = path.relative_to(root.parent).with_suffix("").parts
        modules[".".join(parts).removesuffix(".__init__")] = path
    return modules


def _owner(name: str, modules: Mapping[str, Path]) -> str:
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name


def _absolute(importer: str, node: ast.ImportFrom, modules: Mapping[str, Path]) -> str:
    if not node.level:
        return node.module or ""
    parts = importer.split(".")
    keep = len(parts) - node.level + (modules[importer].name == "__init__.py")
    return ".".join(parts[:keep] + ([node.module] if node.module else []))


def import_edges(modules: Mapping[str, Path]) -> dict[str, set[str]]:
    """Who imports whom among ``modules``, reading every import statement of each file."""
    edges: dict[str, set[str]] = {name: set() for name in modules}
    root = next(iter(modules)).split(".")[0] if modules else FACE
    for importer, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                source = _absolute(importer, node, modules)
                if source.split(".")[0] != root:
                    continue
                targets = [
                    _owner(f"{source}.{alias.name}", modules) or _owner(source, modules)
                    for alias in node.names
                ]
            elif isinstance(node, ast.Import):
                targets = [
                    _owner(alias.name, modules)
                    for alias in node.names
                    if alias.name.split(".")[0] == root
                ]
            else:
                continue
            for target in targets:
                # A module reaching into its own package runs that package's __init__ first:
                # not an edge, except for the public face, which nothing inside may import.
                own_package = importer.startswith(target + ".") and target != root
                if target and target != importer and not own_package:
                    edges[importer].add(target)
    return edges


def group_of(module: str) -> str | None:
    """The group of ``FLOORS`` a module belongs to, or None."""
    parts = module.split(".")
    if len(parts) == 1:
        return FACE
    top = parts[1]
    if top.lstrip("_").startswith("durable"):
        return "durable"
    return top if any(top in floor for floor in FLOORS) else None


def floor_of(group: str) -> int:
    return next(level for level, floor in enumerate(FLOORS) if group in floor)


def upward_imports(edges: Mapping[str, Iterable[str]]) -> set[tuple[str, str]]:
    """Imports into another group on the importer's floor or above."""
    found: set[tuple[str, str]] = set()
    for importer, targets in edges.items():
        mine = group_of(importer)
        for target in targets:
            theirs = group_of(target)
            if mine is None or theirs is None or mine == theirs:
                continue
            if floor_of(theirs) >= floor_of(mine):
                found.add((importer, target))
    return found


def import_cycles(edges: Mapping[str, Iterable[str]]) -> set[frozenset[str]]:
    """Each set of modules that reach each other through imports."""
    graph = {name: set(targets) for name, targets in edges.items()}

    def reach(start: str) -> set[str]:
        seen: set[str] = set()
        todo = [start]
        while todo:
            for target in graph.get(todo.pop(), set()) - seen:
                seen.add(target)
                todo.append(target)
        return seen

    reachable = {name: reach(name) for name in graph}
    return {
        frozenset({name} | {other for other in reachable[name] if name in reachable[other]})
        for name in graph
        if name in reachable[name]
    }


def test_every_kernel_module_has_a_floor() -> None:
    homeless = sorted(name for name in kernel_modules() if group_of(name) is None)
    assert not homeless, (
        f"{', '.join(homeless)} belong to no floor of tests/test_layers.py. Put new kernel "
        "code inside the sub-package of its concern (_types: values; _streams: "
        "ResponseStream; _sessions: sessions and history; _loop: the tool loop; _agent: "
        "the Agent and its runs), or add its top-level name to FLOORS on the lowest floor "
        "whose imports it needs, and to the floor plan in docs/architecture.md"
    )


def test_imports_point_down() -> None:
    found = sorted(upward_imports(import_edges(kernel_modules())))
    assert not found, "imports that point up a floor (see FLOORS in tests/test_layers.py): " + (
        "; ".join(f"{a} imports {b}" for a, b in found)
    )


def test_no_import_cycles() -> None:
    found = sorted(sorted(cycle) for cycle in import_cycles(import_edges(kernel_modules())))
    assert not found, "import cycles: " + "; ".join(" <-> ".join(cycle) for cycle in found)


def _package(tmp_path: Path, files: Mapping[str, str]) -> dict[str, Path]:
    for name, text in files.items():
        path = tmp_path / "agentcore" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return kernel_modules(tmp_path / "agentcore")


def test_the_check_sees_type_only_lazy_and_relative_imports(tmp_path: Path) -> None:
    modules = _package(
        tmp_path,
        {
            "__init__.py": "",
            "errors.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n"
                "    from agentcore._types.messages import Message\n"
            ),
            "_types/__init__.py": "",
            "_types/messages.py": "def f():\n    from ..tools import tool\n",
            "tools/__init__.py": "from agentcore.errors import x\n",
            "_loop/__init__.py": "import agentcore._agent.run\n",
            "_agent/__init__.py": "",
            "_agent/run.py": "from agentcore import Agent\nfrom agentcore._agent import x\n",
        },
    )
    edges = import_edges(modules)
    assert upward_imports(edges) == {
        ("agentcore.errors", "agentcore._types.messages"),
        ("agentcore._types.messages", "agentcore.tools"),
        ("agentcore._loop", "agentcore._agent.run"),
        ("agentcore._agent.run", "agentcore"),
    }
    assert import_cycles(edges) == {
        frozenset({"agentcore.errors", "agentcore._types.messages", "agentcore.tools"})
    }


def test_a_new_top_level_module_has_no_floor_until_it_is_placed() -> None:
    assert group_of("agentcore._somewhere_new") is None
    assert group_of("agentcore.durable") == group_of("agentcore._durable.store") == "durable"
    assert group_of("agentcore.observers") == "observers"
    assert floor_of("workflows") > floor_of("_agent") > floor_of("_loop")


ARCHITECTURE_PAGE = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"


def documented_floors(page: str) -> list[tuple[int, set[str]]]:
    """(floor, groups) per row of the floor table of ``docs/architecture.md``."""
    rows: list[tuple[int, set[str]]] = []
    for line in page.splitlines():
        cells = [cell.strip() for cell in line.split("|")]
        if len(cells) > 3 and cells[1].isdigit():
            names = set(re.findall(r"`([^`]+)`", cells[2]))
            rows.append((int(cells[1]), {_group_name(name) for name in names}))
    return rows


def _group_name(documented: str) -> str:
    if documented == "agentcore/__init__.py":
        return FACE
    return documented.rstrip("/*")


def test_the_architecture_page_shows_the_floors_of_this_check() -> None:
    assert documented_floors(ARCHITECTURE_PAGE.read_text(encoding="utf-8")) == [
        (level, set(groups)) for level, groups in enumerate(FLOORS)
    ], "docs/architecture.md's floor table and FLOORS in tests/test_layers.py differ"


def test_each_sub_package_says_what_lives_there_and_on_which_floor() -> None:
    for init in sorted(KERNEL.glob("*/__init__.py")):
        group = init.parent.name
        docstring = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        assert docstring, f"agentcore/{group}/__init__.py has no docstring saying what lives there"
        said = re.match(r"Floor (\d+) of the kernel", docstring)
        if said is not None:
            assert int(said[1]) == floor_of(group), (
                f"agentcore/{group}/__init__.py says floor {said[1]}; it is on floor "
                f"{floor_of(group)} (FLOORS in tests/test_layers.py)"
            )
