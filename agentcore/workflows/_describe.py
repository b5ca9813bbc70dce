"""``Workflow.describe()``: a built graph as a frozen, JSON-serializable value.

A :class:`WorkflowDescription` is what a picture, a dev UI or a team builder reads of
a workflow instead of its private graph: nodes in commit order (what each accepts,
sends, yields and asks), edge groups in declaration order with their conditions named,
the start node, the output nodes and the shared keys; a sub-workflow node carries its
child's description. Nothing in it names an object address, an id() or a hash, so two
builds of one definition describe equal, in any process.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Literal

import attrs

from agentcore._equality import fields_eq, fields_hash
from agentcore._repr import fields_repr
from agentcore.workflows._codec import type_key
from agentcore.workflows._decorators import FunctionExecutor
from agentcore.workflows._events import EdgeGroupKind
from agentcore.workflows._render import (
    Cluster,
    DrawEdge,
    Drawing,
    DrawNode,
    EdgeStyle,
    Mark,
    Shape,
)
from agentcore.workflows._typeexpr import describe as describe_type

if TYPE_CHECKING:
    from agentcore.workflows._edges import Group
    from agentcore.workflows._graph import Graph, Node

__all__ = [
    "DESCRIPTION_FORMAT",
    "EdgeGroupDescription",
    "NodeDescription",
    "NodeKind",
    "TypeRef",
    "WorkflowDescription",
    "describe_graph",
]

DESCRIPTION_FORMAT = 1
"""The version of the description's layout (``WorkflowDescription.format``)."""

NodeKind = Literal["function", "class", "executor", "agent", "workflow"]
"""What a node was made from: an ``@executor`` function, a class with ``@handler``
methods, an object with ``handle``, an agent, or a built workflow (a sub-workflow)."""


@attrs.frozen
class TypeRef:
    """A type as text: ``key`` for machines (its default checkpoint key, module and
    qualified name: ``"app.models:Draft"``; the key ``RequestInfoArguments`` uses too),
    ``name`` for people (``"Draft"``, ``"tuple[str, ...]"``)."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    key: str
    name: str


@attrs.frozen
class NodeDescription:
    """One executor: what it is, what it accepts, sends, yields and asks, and its options.

    ``requests`` pairs the (request, response) types of its response handlers;
    ``retry_attempts`` is how many times one invocation may run (1: no retry);
    ``subworkflow`` and ``forward_requests`` are set for a sub-workflow node only,
    ``description`` for an agent only."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    id: str
    kind: NodeKind
    label: str
    accepts: tuple[TypeRef, ...]
    sends: tuple[TypeRef, ...]
    yields: tuple[TypeRef, ...]
    requests: tuple[tuple[TypeRef, TypeRef], ...]
    is_start: bool
    is_output: bool
    max_concurrency: int
    timeout: float | None
    retry_attempts: int
    has_state: bool
    description: str | None = None
    subworkflow: WorkflowDescription | None = None
    forward_requests: Literal["parent", "caller"] | None = None


@attrs.frozen
class EdgeGroupDescription:
    """One edge group, as declared: ``conditions`` align with ``targets`` (``None``,
    ``"is Draft"`` for a class, ``"when is_big"`` for a predicate, ``"when λ"`` for a
    lambda, ``"default"`` for a switch's default); ``selector`` names a select group's
    function, ``require`` is a fan-in's rule; ``carries`` lists the types some source
    declares sending that some target takes."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    id: str
    kind: EdgeGroupKind
    sources: tuple[str, ...]
    targets: tuple[str, ...]
    conditions: tuple[str | None, ...]
    selector: str | None
    require: Literal["quiescent", "each_source"] | None
    carries: tuple[TypeRef, ...]


@attrs.frozen
class WorkflowDescription:
    """A workflow's graph as a value (``Workflow.describe()``): frozen, comparable and
    JSON-serializable (``agentcore.serialization.to_dict``). Nodes are in commit order,
    edge groups in declaration order, so two descriptions diff line by line."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    format: int
    name: str
    version: str | None
    description: str | None
    start: str
    input_types: tuple[TypeRef, ...]
    output_types: tuple[TypeRef, ...]
    nodes: tuple[NodeDescription, ...]
    edge_groups: tuple[EdgeGroupDescription, ...]
    shared_keys: tuple[str, ...]

    @property
    def outputs_from(self) -> tuple[str, ...]:
        """The ids of the nodes whose yields are the run's final outputs."""
        return tuple(node.id for node in self.nodes if node.is_output)

    def to_mermaid(
        self,
        *,
        direction: Literal["TD", "TB", "BT", "LR", "RL"] = "TD",
        types: bool = True,
        subworkflows: Literal["collapse", "expand"] = "collapse",
    ) -> str:
        """A Mermaid ``flowchart``: boxes for executors, stadiums for agents, subroutines
        for sub-workflows (subgraphs with ``subworkflows="expand"``); edge labels give the
        condition then, with ``types``, the carried types; a fan-in's sources meet at a
        junction. The same description always gives the same text."""
        from agentcore.workflows._render import mermaid

        return mermaid(
            _drawing(self, types, _check_mode(subworkflows)), _check_direction(direction)
        )

    def to_dot(
        self,
        *,
        rankdir: Literal["TB", "BT", "LR", "RL"] = "TB",
        types: bool = True,
        subworkflows: Literal["collapse", "expand"] = "collapse",
    ) -> str:
        """A Graphviz ``digraph`` of the same drawing as :meth:`to_mermaid` (expanded
        sub-workflows as ``cluster_`` subgraphs). The same description always gives the
        same text."""
        from agentcore.workflows._render import dot

        if rankdir not in ("TB", "BT", "LR", "RL"):
            raise ValueError(f'rankdir must be "TB", "BT", "LR" or "RL", got {rankdir!r}')
        return dot(_drawing(self, types, _check_mode(subworkflows)), rankdir)

    def to_svg(
        self,
        *,
        rankdir: Literal["TB", "BT", "LR", "RL"] = "TB",
        types: bool = True,
        subworkflows: Literal["collapse", "expand"] = "collapse",
        timeout: float = 30.0,
    ) -> str:
        """:meth:`to_dot` drawn by Graphviz's ``dot -Tsvg``. ``FileNotFoundError`` saying
        how to install Graphviz when ``dot`` is not on PATH."""
        from agentcore.workflows._render import svg

        return svg(self.to_dot(rankdir=rankdir, types=types, subworkflows=subworkflows), timeout)


def _check_mode(mode: str) -> bool:
    if mode not in ("collapse", "expand"):
        raise ValueError(f'subworkflows must be "collapse" or "expand", got {mode!r}')
    return mode == "expand"


def _check_direction(direction: str) -> str:
    if direction not in ("TD", "TB", "BT", "LR", "RL"):
        raise ValueError(f'direction must be "TD", "TB", "BT", "LR" or "RL", got {direction!r}')
    return direction


# -- describing a built graph ------------------------------------------------------------


def _readable(text: str) -> str:
    """A qualified name without the ``<locals>`` of the functions it was made in."""
    return text.replace("<locals>.", "").replace("<lambda>", "λ")


def type_ref(tp: Any) -> TypeRef:
    return TypeRef(type_key(tp), _readable(describe_type(tp)))


def _refs(types: Iterable[Any]) -> tuple[TypeRef, ...]:
    out: list[TypeRef] = []
    for tp in types:
        ref = type_ref(tp)
        if ref not in out:
            out.append(ref)
    return tuple(out)


class _RefCache:
    """The type refs of declared type tuples, each tuple read once: executors read from
    one function share their tuples, so the 10,000 workers of a fan-out are read as one
    (describing that graph took 590 ms without the cache, 340 ms with it)."""

    __slots__ = ("_known",)

    def __init__(self) -> None:
        # by identity, with the tuple itself kept so its id cannot be reused meanwhile
        self._known: dict[int, tuple[tuple[Any, ...], tuple[TypeRef, ...]]] = {}

    def of(self, types: tuple[Any, ...]) -> tuple[TypeRef, ...]:
        known = self._known.get(id(types))
        if known is not None and known[0] is types:
            return known[1]
        refs = _refs(types)
        self._known[id(types)] = (types, refs)
        return refs


def callable_name(fn: Callable[..., Any]) -> str:
    """A predicate's or selector's name for a label: its qualified name (``λ`` for a
    lambda), else its class's; never an address."""
    if getattr(fn, "__name__", None) == "<lambda>":
        return "λ"
    name = getattr(fn, "__qualname__", None)
    if not isinstance(name, str):
        name = type(fn).__qualname__
    return _readable(name)


def _condition(kind: str, condition: object) -> str | None:
    if condition is None:
        return "default" if kind == "switch" else None
    if isinstance(condition, type):
        return f"is {_readable(describe_type(condition))}"
    return f"when {callable_name(condition)}"  # type: ignore[arg-type]  # a predicate: the builder took only classes and callables


def _loaded(module: str, name: str) -> type[Any] | None:
    """A class of a module that loads on first use, if loaded (no node can be one
    otherwise)."""
    found = sys.modules.get(module)
    return None if found is None else getattr(found, name, None)


def _node(
    graph: Graph,
    node: Node,
    refs: _RefCache,
    agent_class: type[Any] | None,
    sub_class: type[Any] | None,
) -> NodeDescription:
    spec = node.spec
    obj: Any = spec.obj
    kind: NodeKind
    description: str | None = None
    child: WorkflowDescription | None = None
    forward: Literal["parent", "caller"] | None = None
    if agent_class is not None and isinstance(obj, agent_class):
        kind, agent = "agent", obj.agent
        label = str(getattr(agent, "name", None) or spec.id)
        told = getattr(agent, "description", None)
        description = told if isinstance(told, str) else None
    elif sub_class is not None and isinstance(obj, sub_class):
        kind, label = "workflow", str(obj.workflow.name)
        child = obj.workflow.describe()
        forward = "caller" if obj.forwarded_pairs else "parent"
    elif isinstance(obj, FunctionExecutor):
        kind, label = "function", callable_name(obj.fn)
    else:
        kind = "class" if any(h.returns_send for h in spec.handlers) else "executor"
        label = _readable(type(obj).__qualname__)
    return NodeDescription(
        spec.id,
        kind,
        label,
        refs.of(spec.inputs),
        refs.of(spec.sends),
        refs.of(spec.yields),
        tuple((type_ref(r.request), type_ref(r.response)) for r in spec.responses),
        spec.id == graph.start,
        node.is_output,
        node.max_concurrency,
        node.timeout,
        1 if node.retry is None else node.retry.max_attempts,
        node.state_type is not None,
        description,
        child,
        forward,
    )


def _group(graph: Graph, group: Group) -> EdgeGroupDescription:
    carried: list[Any] = []
    for source in group.sources:
        for tp, route in graph.nodes[source].routes.items():
            if tp not in carried and any(g is group and any(ok) for g, ok in route):
                carried.append(tp)
    conditions = tuple(_condition(group.kind, c) for c in group.conditions)
    return EdgeGroupDescription(
        group.id,
        group.kind,
        group.sources,
        group.targets,
        conditions + (None,) * (len(group.targets) - len(conditions)),
        None if group.select is None else callable_name(group.select),
        group.require if group.kind == "fan_in" else None,
        _refs(carried),
    )


def describe_graph(graph: Graph) -> WorkflowDescription:
    """The description of a built graph (``Workflow.describe()`` caches it)."""
    refs = _RefCache()
    agent_class = _loaded("agentcore.workflows._agent_executor", "AgentExecutor")
    sub_class = _loaded("agentcore.workflows._subworkflow", "SubWorkflowExecutor")
    return WorkflowDescription(
        DESCRIPTION_FORMAT,
        graph.name,
        graph.version,
        graph.description,
        graph.start,
        _refs(graph.input_types),
        _refs(graph.output_types),
        tuple(_node(graph, n, refs, agent_class, sub_class) for n in graph.nodes.values()),
        tuple(_group(graph, group) for group in graph.groups),
        tuple(graph.shared),
    )


# -- what the renderers draw -------------------------------------------------------------

_SHAPES: dict[str, Shape] = {"agent": "agent", "workflow": "workflow"}


def _drawing(description: WorkflowDescription, types: bool, expand: bool) -> Drawing:
    items, edges, _, _ = _draw(description, types, expand, "n", "")
    return Drawing(description.name, items, edges)


def _draw(
    description: WorkflowDescription, types: bool, expand: bool, key_prefix: str, path_prefix: str
) -> tuple[tuple[DrawNode | Cluster, ...], tuple[DrawEdge, ...], str, str]:
    """The items and edges of one workflow's drawing, with the keys edges into and out
    of it meet (its start, its first output)."""
    keys = {node.id: f"{key_prefix}{i}" for i, node in enumerate(description.nodes)}
    items: list[DrawNode | Cluster] = []
    for node in description.nodes:
        key, path = keys[node.id], path_prefix + node.id
        if expand and node.subworkflow is not None:
            inner, inner_edges, entry, exit_ = _draw(
                node.subworkflow, types, expand, f"{key}_", f"{path}/"
            )
            title = f"{node.id}: {node.subworkflow.name}"
            items.append(Cluster(key, path, title, inner, inner_edges, entry, exit_))
            continue
        marks: list[Mark] = []
        if node.is_start:
            marks.append("start")
        if node.is_output:
            marks.append("output")
        if node.requests:
            marks.append("asks")
        shape = _SHAPES.get(node.kind, "box")
        items.append(DrawNode(key, path, node.id, shape, tuple(marks)))
    edges: list[DrawEdge] = []
    for index, group in enumerate(description.edge_groups):
        carried = " | ".join(ref.name for ref in group.carries) if types else ""
        if group.kind == "fan_in":
            junction = f"{key_prefix.removesuffix('n')}j{index}"
            items.append(DrawNode(junction, f"{path_prefix}__join_{group.id}", "", "junction", ()))
            edges.extend(DrawEdge(keys[s], junction, (), "solid") for s in group.sources)
            joined: tuple[str, ...] = (f"tuple[{carried}, ...]",) if carried else ()
            edges.append(DrawEdge(junction, keys[group.targets[0]], joined, "thick"))
            continue
        dashed = group.kind in ("conditional", "select")
        for i, (target, condition) in enumerate(zip(group.targets, group.conditions, strict=True)):
            # a class condition names what the edge carries: no type list after it
            shown = "" if condition is not None and condition.startswith("is ") else carried
            if group.kind == "switch" and condition != "default":
                condition = f"{i + 1}: {condition}"
            elif group.kind == "select":
                condition = f"select {group.selector}"
            label = tuple(part for part in (condition, shown) if part)
            style: EdgeStyle = "dashed" if dashed else "solid"
            edges.extend(DrawEdge(keys[s], keys[target], label, style) for s in group.sources)
    outputs = [keys[node.id] for node in description.nodes if node.is_output]
    start = keys[description.start]
    return tuple(items), tuple(edges), start, outputs[0] if outputs else start
