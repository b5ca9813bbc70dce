"""``Workflow.describe()`` and its renderers: the description says what was built, in a
stable order, as JSON; Mermaid and DOT text are byte-stable (golden files under
``tests/workflows/golden``; ``UPDATE_GOLDENS=1`` rewrites them) and pure functions of
the description in any process; ``to_svg`` is what the real Graphviz ``dot`` draws."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typing_extensions import Never

from agentcore.serialization import from_dict, to_dict
from agentcore.workflows import (
    EdgeGroupDescription,
    NodeDescription,
    TypeRef,
    WorkflowBuilder,
    WorkflowContext,
    WorkflowDescription,
    executor,
)
from tests.external import requires_program

from ._described_flows import FLOWS, conditional, expenses, fan_out_fan_in

GOLDEN = Path(__file__).parent / "golden"
ROOT = Path(__file__).parents[2]
HAS_DOT = shutil.which("dot") is not None
NEEDS_DOT = requires_program("dot", "apt-get install graphviz")

RENDERINGS: dict[str, dict[str, Any]] = {
    # the sub-workflow golden draws the child as a cluster; its collapsed form has its own
    "subworkflow": {"subworkflows": "expand"},
    "subworkflow_collapsed": {},
}


def _flow(name: str) -> Any:
    return FLOWS[name.removesuffix("_collapsed")]()


def _rendered(name: str, suffix: str) -> str:
    options = RENDERINGS.get(name, {})
    workflow = _flow(name)
    if suffix == "mmd":
        return str(workflow.to_mermaid(**options))
    return str(workflow.to_dot(**options))


@pytest.mark.parametrize("suffix", ["mmd", "dot"])
@pytest.mark.parametrize("name", [*FLOWS, "subworkflow_collapsed"])
def test_the_renderings_match_their_golden_files(name: str, suffix: str) -> None:
    text = _rendered(name, suffix)
    golden = GOLDEN / f"{name}.{suffix}"
    if os.environ.get("UPDATE_GOLDENS") == "1":
        golden.write_bytes(text.encode("utf-8"))
    assert golden.exists(), f"no golden {golden.name}: run with UPDATE_GOLDENS=1 to write it"
    assert text == golden.read_bytes().decode("utf-8"), (
        f"{golden.name} differs from what the renderer writes now; if the change is "
        f"intended, rewrite the goldens with UPDATE_GOLDENS=1 and review the diff"
    )
    assert text.endswith("\n")
    assert not text.endswith("\n\n")
    assert "\r" not in text
    assert all(line == line.rstrip() for line in text.splitlines())


def test_the_description_names_what_was_built() -> None:
    described = expenses().describe()
    assert (described.format, described.name, described.version) == (1, "expenses", "1")
    assert described.start == "intake"
    assert [n.id for n in described.nodes] == ["intake", "approver", "auto_file", "file_it"]
    assert [n.kind for n in described.nodes] == ["function", "class", "function", "function"]
    intake, approver, _, file_it = described.nodes
    assert intake.is_start
    assert not intake.is_output
    assert described.outputs_from == ("file_it",)
    assert file_it.yields == (TypeRef("tests.workflows._described_flows:Decision", "Decision"),)
    assert approver.label == "Approver"
    assert approver.requests == (
        (
            TypeRef("tests.workflows._described_flows:Question", "Question"),
            TypeRef("builtins:bool", "bool"),
        ),
    )
    switch, *_ = described.edge_groups
    assert switch == EdgeGroupDescription(
        "g0",
        "switch",
        ("intake",),
        ("approver", "auto_file"),
        ("when is_big", "default"),
        None,
        None,
        (TypeRef("tests.workflows._described_flows:Expense", "Expense"),),
    )
    assert [g.kind for g in described.edge_groups] == ["switch", "direct", "direct"]


def test_conditions_selectors_fan_ins_and_node_options_are_described() -> None:
    assert [g.conditions for g in conditional().describe().edge_groups[:2]] == [
        ("when is_big",),
        ("when λ",),
    ]
    assert FLOWS["switch"]().describe().edge_groups[0].conditions == (
        "is Draft",
        "is Report",
        "default",
    )
    assert FLOWS["select"]().describe().edge_groups[0].selector == "pick_short"
    described = fan_out_fan_in().describe()
    fan_out, fan_in = described.edge_groups
    assert (fan_out.kind, fan_out.require, fan_in.kind, fan_in.require) == (
        "fan_out",
        None,
        "fan_in",
        "each_source",
    )
    assert fan_in.carries == (TypeRef("builtins:int", "int"),)
    letters = described.nodes[2]
    assert (letters.max_concurrency, letters.timeout, letters.retry_attempts) == (4, 2.5, 5)
    assert described.nodes[1].retry_attempts == 1
    assert FLOWS["loop"]().describe().shared_keys == ("tries", "last")


def test_agents_executors_and_sub_workflows_are_described_as_what_they_are() -> None:
    writer, editor, publish = FLOWS["agents"]().describe().nodes
    assert (writer.kind, writer.label, writer.description) == ("agent", "writer", "Drafts it.")
    assert (editor.kind, editor.description, publish.kind) == ("agent", None, "function")
    approver, ledger = FLOWS["requests"]().describe().nodes
    assert (approver.kind, approver.has_state) == ("class", False)
    assert (ledger.kind, ledger.label, ledger.has_state) == ("executor", "Stateful", True)
    outer = FLOWS["subworkflow"]().describe()
    review = outer.nodes[1]
    assert (review.kind, review.label, review.forward_requests) == (
        "workflow",
        "expenses",
        "caller",
    )
    assert review.subworkflow == expenses().describe()
    assert review.requests == expenses().describe().nodes[1].requests
    assert [n.subworkflow for n in outer.nodes if n.id != "review"] == [None, None]


@pytest.mark.parametrize("name", list(FLOWS))
def test_a_description_is_json_and_reads_back_equal(name: str) -> None:
    described = FLOWS[name]().describe()
    data = to_dict(described)
    assert data["kind"] == "WorkflowDescription"
    assert from_dict(json.loads(json.dumps(data)), WorkflowDescription) == described


def test_two_builds_describe_equal_and_a_definition_describes_once() -> None:
    workflow = expenses()
    assert workflow.describe() is workflow.describe()
    assert expenses().describe() == workflow.describe()
    assert isinstance(workflow.describe().nodes[0], NodeDescription)
    assert workflow.to_mermaid() == workflow.describe().to_mermaid()
    assert workflow.to_dot(rankdir="LR") == workflow.describe().to_dot(rankdir="LR")


def test_no_label_holds_an_address_or_a_locals_path() -> None:
    for name, flow in FLOWS.items():
        for text in (flow().to_mermaid(), flow().to_dot(), repr(flow().describe())):
            assert " at 0x" not in text, name
            assert "<locals>" not in text, name


def test_options_change_the_drawing_and_bad_options_are_refused() -> None:
    workflow = expenses()
    assert workflow.to_mermaid(direction="LR").startswith("flowchart LR\n")
    assert "graph [rankdir=LR];" in workflow.to_dot(rankdir="LR")
    untyped = workflow.to_mermaid(types=False)
    assert '-->|"1: when is_big"| n1' in untyped
    assert "Expense" not in untyped
    assert "Decision" not in untyped
    with pytest.raises(ValueError, match='subworkflows must be "collapse" or "expand"'):
        workflow.to_mermaid(subworkflows="open")  # type: ignore[arg-type]  # the mistake under test
    with pytest.raises(ValueError, match="direction must be"):
        workflow.to_mermaid(direction="down")  # type: ignore[arg-type]  # the mistake under test
    with pytest.raises(ValueError, match="rankdir must be"):
        workflow.to_dot(rankdir="TD")  # type: ignore[arg-type]  # the mistake under test


_RENDER_ALL = """
import hashlib, sys
sys.path.insert(0, {root!r})
from tests.workflows._described_flows import FLOWS
digest = hashlib.sha256()
for name, flow in FLOWS.items():
    workflow = flow()
    for mode in ("collapse", "expand"):
        digest.update(workflow.to_mermaid(subworkflows=mode).encode())
        digest.update(workflow.to_dot(subworkflows=mode).encode())
    digest.update(repr(workflow.describe()).encode())
print(digest.hexdigest())
"""


def test_rendering_is_the_same_in_every_process_whatever_the_hash_seed() -> None:
    code = _RENDER_ALL.format(root=str(ROOT))
    digests = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        for seed in ("0", "1", "12345")
    }
    assert len(digests) == 1


# -- random graphs ---------------------------------------------------------------------------


@st.composite
def _graphs(draw: st.DrawFn) -> tuple[int, list[tuple[int, int]]]:
    """A DAG on ``n`` nodes where node 0 reaches every other one."""
    size = draw(st.integers(min_value=1, max_value=7))
    edges = [(draw(st.integers(0, j - 1)), j) for j in range(1, size)]
    extra = draw(st.lists(st.tuples(st.integers(0, size - 1), st.integers(0, size - 1))))
    edges += [(a, b) for a, b in extra if a < b]
    return size, list(dict.fromkeys(edges))


def _build(size: int, edges: list[tuple[int, int]], fan_out: bool) -> Any:
    async def relay(text: str) -> str:
        return text

    async def sink(text: str, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(text)

    sources = {a for a, _ in edges}

    def handler_of(i: int) -> Callable[..., Any]:
        if i in sources:
            return relay
        return sink

    nodes = [executor(id=f"node {i}")(handler_of(i)) for i in range(size)]
    builder = WorkflowBuilder(nodes[0], name="random")
    for source in range(size):
        targets = [nodes[b] for a, b in edges if a == source]
        if fan_out and len(targets) > 1:
            builder.add_fan_out(nodes[source], targets)
        else:
            for target in targets:
                builder.add_edge(nodes[source], target)
    return builder.build()


@settings(max_examples=40, deadline=None)
@given(_graphs(), st.booleans())
def test_random_graphs_describe_equal_and_draw_every_node_and_edge_once(
    graph: tuple[int, list[tuple[int, int]]], fan_out: bool
) -> None:
    size, edges = graph
    first, second = _build(size, edges, fan_out), _build(size, edges, fan_out)
    described = first.describe()
    assert described == second.describe()
    assert first.to_mermaid() == second.to_mermaid()
    assert first.to_dot() == second.to_dot()
    assert sorted(n.id for n in described.nodes) == [f"node {i}" for i in range(size)]
    mermaid, dot = first.to_mermaid().splitlines(), first.to_dot().splitlines()
    for k, node in enumerate(described.nodes):
        assert sum(line.startswith(f'  n{k}["{node.id}"]') for line in mermaid) == 1
        assert sum(line.startswith(f'  "{node.id}" [') for line in dot) == 1
    drawn = {(a, b) for a, b in edges}
    assert sum(" --> " in line or "-->|" in line for line in mermaid) == len(drawn)
    assert sum(" -> " in line for line in dot) == len(drawn)
    group_targets = [t for g in described.edge_groups for t in g.targets]
    assert sorted(group_targets) == sorted(f"node {b}" for _, b in edges)


# -- SVG ------------------------------------------------------------------------------------


def test_to_svg_without_graphviz_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "")
    with pytest.raises(FileNotFoundError, match="apt-get install graphviz"):
        expenses().to_svg()


@NEEDS_DOT
@pytest.mark.parametrize("name", [*FLOWS, "subworkflow_collapsed"])
def test_to_svg_draws_one_node_per_node_and_junction(name: str) -> None:
    options = RENDERINGS.get(name, {})
    workflow = _flow(name)
    root = ET.fromstring(workflow.to_svg(**options))
    drawn = [g for g in root.iter("{http://www.w3.org/2000/svg}g") if g.get("class") == "node"]

    def count(description: WorkflowDescription) -> int:
        expand = options.get("subworkflows") == "expand"
        nodes = sum(
            count(n.subworkflow) if expand and n.subworkflow is not None else 1
            for n in description.nodes
        )
        return nodes + sum(g.kind == "fan_in" for g in description.edge_groups)

    assert len(drawn) == count(workflow.describe())


@NEEDS_DOT
def test_the_docs_picture_is_what_its_script_draws_now() -> None:
    script = ROOT / "docs" / "pictures" / "expense_review.py"
    picture = script.with_suffix(".svg")
    drawn = subprocess.run(
        [sys.executable, str(script), "--stdout"], capture_output=True, check=True
    ).stdout
    assert drawn == picture.read_bytes(), (
        f"{picture.relative_to(ROOT)} is stale: run `python {script.relative_to(ROOT)}` "
        f"and commit the SVG it writes"
    )


def test_the_docs_show_the_mermaid_text_of_the_pictured_workflow() -> None:
    import importlib.util

    script = ROOT / "docs" / "pictures" / "expense_review.py"
    spec = importlib.util.spec_from_file_location("expense_review_picture", script)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    page = (ROOT / "docs" / "workflows.md").read_text(encoding="utf-8")
    shown = page.split("and its `to_mermaid()`:\n\n```text\n", 1)[1].split("```", 1)[0]
    assert shown == module.expense_review().to_mermaid()


@NEEDS_DOT
def test_a_dot_failure_is_raised_with_graphviz_own_message() -> None:
    from agentcore.workflows._render import svg

    with pytest.raises(RuntimeError, match=r"Graphviz's dot failed \(exit 1\): .*syntax error"):
        svg("digraph { -> }", 30.0)
