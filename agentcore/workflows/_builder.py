"""``WorkflowBuilder``: collect executors and edge groups, check them, freeze them.

``build()`` checks everything it can before any run (each problem on one line,
all of them at once): ids exist, every executor is reachable from the start, no
(source, target) pair is in two groups, every type a source sends is accepted
by one of its edges (coverage) and every edge carries some type (carriage), a
switch has its ``Default``, a fan-in target takes a tuple, message types are
immutable. Validation is linear in the graph's size.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Sequence
from typing import Any, Generic, Literal, cast

from typing_extensions import Self, TypeVar

from agentcore.protocols import SupportsAgentRun
from agentcore.workflows._adapt import fan_in_regions, is_agent, is_workflow, sub_workflow
from agentcore.workflows._agent_executor import AgentExecutor, ContextMode
from agentcore.workflows._checkpoint import Durability
from agentcore.workflows._codec import TypeRegistry
from agentcore.workflows._durability import CLAIM_TTL, check_durability
from agentcore.workflows._edges import Case, Default, Group
from agentcore.workflows._graph import Graph, Node, RetryPolicy, Route, SharedKey
from agentcore.workflows._spec import ExecutorSpec, read_executor
from agentcore.workflows._stores import SqliteCheckpointStore
from agentcore.workflows._subworkflow import SubWorkflowExecutor
from agentcore.workflows._typeexpr import (
    compatible,
    describe,
    element_type,
    members,
    mutable_reason,
    runtime_class,
)
from agentcore.workflows._workflow import Workflow
from agentcore.workflows.errors import WorkflowBuildError
from agentcore.workflows.protocols import CheckpointStore

__all__ = ["WorkflowBuilder"]

InT = TypeVar("InT", default=Any)
OutT = TypeVar("OutT", default=Any)

ExecutorLike = object
"""An executor (anything with ``id`` and ``handle``), a plain class with ``@handler``
methods, or an async function. Typed ``object`` because a class with ``@handler``
methods has no protocol shape to name."""


_Routing = tuple[dict[Any, Route], dict[str, tuple[bool, ...]], list[Any]]


class _NodeOptions:
    __slots__ = ("max_concurrency", "retry", "state_type", "timeout")

    def __init__(self) -> None:
        self.max_concurrency = 1
        self.timeout: float | None = None
        self.retry: RetryPolicy | None = None
        self.state_type: type[Any] | None = None


class WorkflowBuilder(Generic[InT, OutT]):
    """Collects executors and edge groups; :meth:`build` validates and freezes them.

    Executors are referred to by object or by id. An executor's position (which
    fixes the commit order at barriers) is the first time it appears in any call,
    the constructor's included.
    """

    def __init__(
        self,
        start: ExecutorLike,
        *,
        name: str,
        version: str | None = None,
        description: str | None = None,
        input_type: type[InT] | None = None,
        output_type: type[OutT] | None = None,
        outputs_from: Sequence[ExecutorLike | str] | None = None,
        max_supersteps: int = 100,
        max_concurrency: int | None = None,
        allow_mutable_messages: bool = False,
        dead_letters: Literal["warn", "error", "ignore"] = "warn",
        observers: Sequence[object] = (),
        checkpoints: CheckpointStore | str | os.PathLike[str] | None = None,
        durability: Durability = "sync",
        claim_ttl: float = CLAIM_TTL,
    ) -> None:
        if not name:
            raise ValueError(
                "a workflow needs a name (it identifies the definition in checkpoints)"
            )
        if max_supersteps < 1:
            raise ValueError(f"max_supersteps must be at least 1, got {max_supersteps}")
        if dead_letters not in ("warn", "error", "ignore"):
            raise ValueError(
                f'dead_letters must be "warn", "error" or "ignore", got {dead_letters!r}'
            )
        self._name = name
        self._version = version
        self._description = description
        self._input_type: Any = input_type
        self._output_type: Any = output_type
        self._max_supersteps = max_supersteps
        self._max_concurrency = max_concurrency
        self._allow_mutable = allow_mutable_messages
        self._dead_letters: Literal["warn", "error", "ignore"] = dead_letters
        self._observers = tuple(observers)
        if isinstance(checkpoints, (str, os.PathLike)):
            checkpoints = SqliteCheckpointStore(checkpoints)
        elif checkpoints is not None and not isinstance(checkpoints, CheckpointStore):
            raise TypeError(
                f"checkpoints must be a CheckpointStore or a SQLite path, got {checkpoints!r}"
            )
        self._store = checkpoints
        self._durability: Durability = check_durability(durability)
        if not claim_ttl > 0:
            raise ValueError(f"claim_ttl is a number of seconds above 0, got {claim_ttl!r}")
        self._claim_ttl = float(claim_ttl)
        self._type_names: dict[Any, str] = {}
        self._type_aliases: dict[Any, tuple[str, ...]] = {}
        self._specs: dict[str, ExecutorSpec] = {}
        self._options: dict[str, _NodeOptions] = {}
        self._objects: dict[int, str] = {}
        self._keep: list[object] = []
        self._unresolved: list[str] = []
        self._edges: list[tuple[str, tuple[str, ...], tuple[str, ...], dict[str, Any]]] = []
        self._shared: dict[str, SharedKey] = {}
        self._start = self._ref(start)
        self._outputs_from = (
            None if outputs_from is None else tuple(self._ref(x) for x in outputs_from)
        )

    # -- nodes ---------------------------------------------------------------------------

    def _adopt(
        self,
        obj: object,
        ident: str | None,
        context: ContextMode = "full",
        forward_requests: Literal["parent", "caller"] = "parent",
    ) -> str:
        target: object = sub_workflow(obj, ident, forward_requests)
        if target is None and is_agent(obj):
            target = AgentExecutor(cast("SupportsAgentRun", obj), id=ident, context=context)
        elif target is None:
            target = obj
        spec = read_executor(target, id=ident)
        known = self._specs.get(spec.id)
        if (
            known is not None
            and known.obj is not target
            and not (isinstance(known.obj, AgentExecutor) and known.obj.agent is obj)
        ):
            raise WorkflowBuildError(
                [f"two different executors have the id {spec.id!r}; give one another id"]
            )
        self._specs[spec.id] = spec
        self._options.setdefault(spec.id, _NodeOptions())
        self._objects[id(obj)] = spec.id
        self._keep.append(obj)
        return spec.id

    def _ref(self, obj: object) -> str:
        if isinstance(obj, str):
            if obj not in self._specs and obj not in self._unresolved:
                self._unresolved.append(obj)
            return obj
        known = self._objects.get(id(obj))
        return known if known is not None else self._adopt(obj, None)

    def add(
        self,
        executor: ExecutorLike,
        *,
        id: str | None = None,
        max_concurrency: int = 1,
        timeout: float | None = None,
        retry: RetryPolicy | None = None,
        state_type: type[Any] | None = None,
        context: ContextMode | None = None,
        forward_requests: Literal["parent", "caller"] | None = None,
    ) -> Self:
        """Add a node, or configure one already added by an edge call (by object or id).

        An agent (any ``SupportsAgentRun``) becomes an :class:`AgentExecutor` (its id is
        the agent's name unless ``id`` is given); ``context`` applies to agents only.
        A workflow becomes a sub-workflow node (``id`` required); ``forward_requests``
        applies to those only: ``"parent"`` (default) sends the child's requests along
        the node's edges as :class:`SubWorkflowRequest`, ``"caller"`` makes them this
        run's own pending requests (``request.path`` starts with the node's id).
        """
        if forward_requests is not None and not is_workflow(executor):
            raise TypeError(f"forward_requests= applies to sub-workflows only, not to {executor!r}")
        if max_concurrency < 1:
            raise ValueError(f"max_concurrency must be at least 1, got {max_concurrency}")
        if isinstance(executor, str):
            ident = self._ref(executor)
        else:
            known = self._objects.get(builtins_id(executor))
            same = known is not None and id in (None, known)
            if context is not None and not is_agent(executor):
                raise TypeError(f"context= applies to agents only, not to {executor!r}")
            if same and known is not None and context is not None:
                ident = self._adopt(executor, known, context)
            elif same and known is not None:
                ident = known
            else:
                ident = self._adopt(executor, id, context or "full", forward_requests or "parent")
        options = self._options.setdefault(ident, _NodeOptions())
        options.max_concurrency = max_concurrency
        options.timeout = timeout
        options.retry = retry
        options.state_type = state_type
        return self

    def add_shared(
        self, key: str, *, initial: Any = None, merge: Callable[[Any, Any], Any] | None = None
    ) -> Self:
        """Declare a shared-state key; ``merge(old, new)`` folds writes of one superstep."""
        self._shared[key] = SharedKey(initial, merge)
        return self

    def register_type(
        self, cls: Any, *, name: str | None = None, aliases: Sequence[str] = ()
    ) -> Self:
        """Give a stored type a stable checkpoint key (``name``), and old keys it may be
        read under (``aliases``, e.g. after a rename or a move)."""
        if name is not None:
            self._type_names[cls] = name
        self._type_aliases[cls] = tuple(aliases)
        return self

    def _registry(self) -> TypeRegistry:
        types: list[Any] = [*self._type_names, *self._type_aliases]
        names = dict(self._type_names)
        for spec in self._specs.values():
            if isinstance(spec.obj, SubWorkflowExecutor):
                # the child's requests and values travel in this run's messages
                for tp, key in spec.obj.workflow.checkpoint_types.items():
                    types.append(tp)
                    names.setdefault(tp, key)
            types.extend(spec.inputs)
            types.extend(spec.sends)
            types.extend(spec.yields)
            for r in spec.responses:
                types.extend(members(r.request))
                types.extend(members(r.response))
                types.append(r.response)
            state = self._options[spec.id].state_type or spec.state_type
            if state is not None:
                types.append(state)
        return TypeRegistry(types, names, self._type_aliases)

    # -- edges ---------------------------------------------------------------------------

    def add_edge(
        self,
        source: ExecutorLike | str,
        target: ExecutorLike | str,
        *,
        when: Callable[[Any], bool] | type[Any] | None = None,
    ) -> Self:
        """A direct edge; with ``when``, a conditional (predicate) or typed (class) edge."""
        kind = "direct" if when is None else "conditional"
        self._edges.append(
            (kind, (self._ref(source),), (self._ref(target),), {"conditions": (when,)})
        )
        return self

    def add_chain(self, *executors: ExecutorLike | str) -> Self:
        """Direct edges between consecutive executors."""
        ids = [self._ref(e) for e in executors]
        for a, b in itertools.pairwise(ids):
            self._edges.append(("direct", (a,), (b,), {"conditions": (None,)}))
        return self

    def add_fan_out(
        self,
        source: ExecutorLike | str,
        targets: Sequence[ExecutorLike | str],
        *,
        select: Callable[[Any, Sequence[str]], Sequence[str]] | None = None,
    ) -> Self:
        """Every message to every target that accepts it, or to the ids ``select`` returns."""
        src = self._ref(source)
        ids = tuple(self._ref(t) for t in targets)
        kind = "fan_out" if select is None else "select"
        self._edges.append(
            (kind, (src,), ids, {"select": select, "conditions": (None,) * len(ids)})
        )
        return self

    def add_switch(self, source: ExecutorLike | str, *cases: Case | Default) -> Self:
        """The first case whose predicate holds (or whose class matches) takes the
        message; ``Default`` (last) takes the rest."""
        src = self._ref(source)
        targets: list[str] = []
        conditions: list[Any] = []
        defaults = 0
        for i, case in enumerate(cases):
            if isinstance(case, Default):
                defaults += 1
                if i != len(cases) - 1:
                    raise WorkflowBuildError(
                        [f"switch from {src!r}: Default must be the last case"]
                    )
                targets.append(self._ref(case.target))
                conditions.append(None)
            elif isinstance(case, Case):
                targets.append(self._ref(case.target))
                conditions.append(case.when)
            else:
                raise TypeError(f"add_switch takes Case and Default values, got {case!r}")
        self._edges.append(
            (
                "switch",
                (src,),
                tuple(targets),
                {"conditions": tuple(conditions), "defaults": defaults},
            )
        )
        return self

    def add_fan_in(
        self,
        sources: Sequence[ExecutorLike | str],
        target: ExecutorLike | str,
        *,
        require: Literal["quiescent", "each_source"] = "quiescent",
    ) -> Self:
        """The target receives one tuple of everything the sources sent, when nothing
        that can still feed them is in flight (or, with ``require="each_source"``, fails
        with WorkflowStalledError if a source can no longer send)."""
        if require not in ("quiescent", "each_source"):
            raise ValueError(f'require must be "quiescent" or "each_source", got {require!r}')
        srcs = tuple(self._ref(s) for s in sources)
        if not srcs:
            raise WorkflowBuildError(["add_fan_in needs at least one source"])
        self._edges.append(("fan_in", srcs, (self._ref(target),), {"require": require}))
        return self

    # -- build ---------------------------------------------------------------------------

    def build(self) -> Workflow[InT, OutT]:
        """Validate and return the immutable definition (:class:`WorkflowBuildError`
        listing every problem found)."""
        self._accepts_cache: dict[tuple[bool, tuple[Any, ...], Any], bool] = {}
        problems: list[str] = [
            f"no executor has the id {ref!r} (referred to by id in an edge or option); add "
            f"the executor object first"
            for ref in self._unresolved
            if ref not in self._specs
        ]
        if problems:
            raise WorkflowBuildError(problems)
        order = {ident: i for i, ident in enumerate(self._order())}
        specs = self._specs
        groups = tuple(
            Group(
                f"g{i}",
                kind,  # type: ignore[arg-type]  # one of the EdgeGroupKind literals set above
                sources,
                targets,
                extra.get("conditions", ()),
                extra.get("select"),
                extra.get("require", "quiescent"),
            )
            for i, (kind, sources, targets, extra) in enumerate(self._edges)
        )
        outgoing: dict[str, list[Group]] = {ident: [] for ident in specs}
        for g in groups:
            for s in g.sources:
                outgoing[s].append(g)
        problems += self._check_pairs(groups)
        problems += self._check_reachable(groups)
        routes, more = self._check_types(groups, outgoing)
        problems += more
        problems += self._check_switches()
        outputs = self._outputs_from
        for ident in outputs or ():
            if not specs[ident].yields:
                problems.append(
                    f"outputs_from names {ident!r}, which yields nothing; declare its yields "
                    f"(WorkflowContext[S, Y]) or leave it out"
                )
        if outputs is None:
            outputs = tuple(i for i in specs if not outgoing[i])
        problems += self._check_io(outputs)
        if problems:
            raise WorkflowBuildError(problems)
        registry = self._registry()
        nodes: dict[str, Node] = {}
        edges: dict[tuple[str, ...], tuple[tuple[Group, ...], frozenset[str]]] = {}
        """Per set of outgoing groups: the groups and the targets they reach, one copy
        shared by the nodes that have those groups."""
        final = set(outputs)
        for ident in sorted(specs, key=order.__getitem__):
            spec, options = specs[ident], self._options[ident]
            out = outgoing[ident]
            key = tuple(g.id for g in out)
            shared = edges.get(key)
            if shared is None:
                shared = edges[key] = (tuple(out), frozenset(t for g in out for t in g.targets))
            nodes[ident] = Node(
                ident,
                order[ident],
                spec,
                options.max_concurrency,
                options.timeout,
                options.retry,
                options.state_type or spec.state_type,
                ident in final,
                *shared,
                routes[ident],
                self._shared,
            )
        return Workflow(
            Graph(
                self._name,
                self._version,
                self._description,
                self._start,
                nodes,
                groups,
                fan_in_regions(groups),
                dict(self._shared),
                specs[self._start].inputs if self._input_type is None else (self._input_type,),
                tuple(t for i in outputs for t in specs[i].yields)
                if self._output_type is None
                else (self._output_type,),
                self._max_supersteps,
                self._max_concurrency,
                self._dead_letters,
                registry,
                self._store,
                self._durability,
                self._claim_ttl,
            ),
            self._observers,
        )

    def _order(self) -> list[str]:
        seen: dict[str, None] = {self._start: None}
        for ident in self._outputs_from or ():
            seen.setdefault(ident, None)
        for _, sources, targets, _extra in self._edges:
            for ident in (*sources, *targets):
                seen.setdefault(ident, None)
        for ident in self._specs:
            seen.setdefault(ident, None)
        return list(seen)

    def _check_pairs(self, groups: Sequence[Group]) -> list[str]:
        seen: dict[tuple[str, str], str] = {}
        problems: list[str] = []
        for g in groups:
            for s in g.sources:
                for t in g.targets:
                    if (s, t) in seen and seen[(s, t)] != g.id:
                        problems.append(
                            f"the edge {s!r} -> {t!r} is in two edge groups; keep one "
                            f"(a switch or fan-out already reaches {t!r})"
                        )
                    seen[(s, t)] = g.id
        return problems

    def _check_reachable(self, groups: Sequence[Group]) -> list[str]:
        after: dict[str, list[str]] = {}
        for g in groups:
            for s in g.sources:
                after.setdefault(s, []).extend(g.targets)
        seen = {self._start}
        todo = [self._start]
        while todo:
            for t in after.get(todo.pop(), ()):
                if t not in seen:
                    seen.add(t)
                    todo.append(t)
        return [
            f"{ident!r} cannot be reached from the start executor {self._start!r}; connect "
            f"it with an edge or remove it"
            for ident in self._specs
            if ident not in seen
        ]

    def _accepts(self, group: Group, tp: Any) -> tuple[bool, ...]:
        """Per target of ``group``: whether it takes a ``tp`` (its condition, when a
        class, may carry it, and the target accepts it). Targets with the same inputs
        share one answer, so a 10,000-way fan-out of one kind of worker checks once."""
        fan_in = group.kind == "fan_in"
        specs = self._specs
        cache = self._accepts_cache
        out: list[bool] = []
        for target, condition in itertools.zip_longest(group.targets, group.conditions):
            if target is None:
                break
            if isinstance(condition, type) and not (
                compatible(tp, condition) or compatible(condition, tp)
            ):
                out.append(False)
                continue
            inputs = specs[target].inputs
            key = (fan_in, inputs, tp)
            ok = cache.get(key)
            if ok is None:
                if fan_in:
                    ok = any(
                        element_type(a) is not None and compatible(tuple[tp, ...], a)
                        for a in inputs
                    )
                else:
                    ok = specs[target].accepts(tp)
                cache[key] = ok
            out.append(ok)
        return tuple(out)

    def _route_table(self, outgoing: Sequence[Group], sends: Sequence[Any]) -> _Routing:
        """The route table of an executor with these groups and sends, what reaches each
        group's targets, and the sent types no edge takes."""
        table: dict[Any, Route] = {}
        reached: dict[str, tuple[bool, ...]] = {}
        untaken: list[Any] = []
        for tp in sends:
            route: list[tuple[Group, tuple[bool, ...]]] = []
            for g in outgoing:
                accepts = self._accepts(g, tp)
                before = reached.get(g.id)
                reached[g.id] = (
                    accepts
                    if before is None
                    else tuple(a or b for a, b in zip(before, accepts, strict=True))
                )
                route.append((g, accepts))
            if not any(any(accepts) for _, accepts in route):
                untaken.append(tp)
            table[tp] = tuple(route)
        return table, reached, untaken

    def _check_types(
        self, groups: Sequence[Group], outgoing: dict[str, list[Group]]
    ) -> tuple[dict[str, dict[Any, Route]], list[str]]:
        problems: list[str] = []
        routes: dict[str, dict[Any, Route]] = {}
        carried: dict[tuple[str, str], tuple[bool, ...]] = {}
        """(group, source) -> per target: whether some type the source sends gets there."""
        alike: dict[tuple[tuple[str, ...], tuple[Any, ...]], _Routing] = {}
        """Executors with the same outgoing groups and sends route alike: one table for
        all of them (the workers of a 10,000-way fan-out share one)."""
        mutable: dict[Any, str | None] = {}
        for ident, spec in self._specs.items():
            table: dict[Any, Route] = {}
            sends = spec.sends
            if not self._allow_mutable:
                for tp in (*sends, *spec.yields):
                    reason = mutable.get(tp, "")
                    if reason == "":
                        reason = mutable[tp] = mutable_reason(tp)
                    if reason is not None:
                        problems.append(
                            f"{ident!r} declares a mutable message type: {reason} (or build "
                            f"with allow_mutable_messages=True)"
                        )
            if sends and not outgoing[ident]:
                # an agent at the end of a graph only yields its response
                if not isinstance(spec.obj, AgentExecutor):
                    problems.append(
                        f"{ident!r} sends {' | '.join(describe(t) for t in sends)} but has no "
                        f"outgoing edge; add one, or remove the sends"
                    )
                routes[ident] = table
                continue
            key = (tuple(g.id for g in outgoing[ident]), sends)
            known = alike.get(key)
            if known is None:
                known = alike[key] = self._route_table(outgoing[ident], sends)
            table, reached, untaken = known
            for gid, accepts in reached.items():
                carried[(gid, ident)] = accepts
            problems.extend(
                f"{ident!r} sends {describe(tp)} but none of its edges accept it; add "
                f"an edge to an executor that takes {describe(tp)}, or remove "
                f"{describe(tp)} from its sends"
                for tp in untaken
            )
            routes[ident] = table
        for g in groups:
            for s in g.sources:
                got = carried.get((g.id, s), ())
                if len(got) == len(g.targets) and all(got):
                    continue
                for i, t in enumerate(g.targets):
                    if i < len(got) and got[i]:
                        continue
                    if g.kind == "fan_in":
                        problems.append(self._fan_in_problem(s, t))
                    else:
                        sent = " | ".join(describe(x) for x in self._specs[s].sends) or "nothing"
                        took = " | ".join(describe(x) for x in self._specs[t].inputs)
                        problems.append(
                            f"the edge {s!r} -> {t!r} carries nothing: {s!r} sends {sent} and "
                            f"{t!r} accepts {took}"
                        )
        return routes, problems

    def _fan_in_problem(self, source: str, target: str) -> str:
        inputs = self._specs[target].inputs
        sent = " | ".join(describe(x) for x in self._specs[source].sends) or "nothing"
        if any(runtime_class(a) is list for a in inputs):
            return (
                f"fan-in into {target!r}: fan-in delivers a tuple; annotate "
                f"Sequence[T] (or tuple[T, ...]) instead of list[T]"
            )
        return (
            f"fan-in into {target!r}: it must accept Sequence[T] (or tuple[T, ...]) for the "
            f"{sent} that {source!r} sends; it accepts "
            f"{' | '.join(describe(x) for x in inputs)}"
        )

    def _check_switches(self) -> list[str]:
        problems: list[str] = []
        for kind, (src,), _targets, extra in (e for e in self._edges if e[0] == "switch"):
            del kind
            if extra["defaults"]:
                continue
            typed = [c for c in extra["conditions"] if isinstance(c, type)]
            sends = self._specs[src].sends
            if not all(any(compatible(tp, c) for c in typed) for tp in sends):
                problems.append(
                    f"the switch from {src!r} needs a Default (last), unless its typed cases "
                    f"cover every type it sends"
                )
        return problems

    def _check_io(self, outputs: Sequence[str]) -> list[str]:
        problems: list[str] = []
        start = self._specs[self._start]
        if self._input_type is not None and not start.accepts(self._input_type):
            problems.append(
                f"the start executor {self._start!r} does not accept the input type "
                f"{describe(self._input_type)}; it accepts "
                f"{' | '.join(describe(x) for x in start.inputs)}"
            )
        if self._output_type is not None:
            yielded = [t for i in outputs for t in self._specs[i].yields]
            if not any(compatible(t, self._output_type) for t in yielded):
                problems.append(
                    f"no final-output executor yields {describe(self._output_type)} "
                    f"(outputs come from {', '.join(outputs) or 'nothing'})"
                )
        return problems


builtins_id = id
