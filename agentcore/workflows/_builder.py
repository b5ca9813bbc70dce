"""``WorkflowBuilder``: collect executors and edge groups, check them, freeze them.

``build()`` checks everything it can before any run (each problem on one line,
all of them at once): ids exist, every executor is reachable from the start, no
(source, target) pair is in two groups, every type a source sends is accepted
by one of its edges (coverage) and every edge carries some type (carriage), a
switch has its ``Default``, a fan-in target takes a tuple, message types are
immutable. Validation is linear in the graph's size. This module collects and
freezes; the graph checks themselves live in ``_checks``.
"""

from __future__ import annotations

import itertools
import json
import os
import warnings
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Generic, Literal

from typing_extensions import Self, TypeVar

from agentcore.workflows._adapt import (
    agent_executor,
    as_sub_workflow,
    is_agent,
    is_workflow,
    sub_workflow,
    wraps_agent,
)
from agentcore.workflows._checkpoint import Durability
from agentcore.workflows._checks import GraphCheck
from agentcore.workflows._codec import TypeRegistry
from agentcore.workflows._decorators import FunctionExecutor
from agentcore.workflows._durability import CLAIM_TTL, check_durability
from agentcore.workflows._edges import Group
from agentcore.workflows._graph import Graph, Node, RetryPolicy, SharedKey
from agentcore.workflows._spec import ExecutorSpec, read_executor
from agentcore.workflows._storable import unstorable
from agentcore.workflows._stores import SqliteCheckpointStore
from agentcore.workflows._typeexpr import compatible, describe, members
from agentcore.workflows._workflow import Workflow
from agentcore.workflows.errors import WorkflowBuildError, WorkflowBuildWarning
from agentcore.workflows.protocols import CheckpointStore

if TYPE_CHECKING:
    from agentcore.workflows._agent_executor import ContextMode
    from agentcore.workflows._switch import Case, Default

__all__ = ["WorkflowBuilder"]

InT = TypeVar("InT", default=Any)
OutT = TypeVar("OutT", default=Any)

ExecutorLike = object
"""An executor (anything with ``id`` and ``handle``), a plain class with ``@handler``
methods, or an async function. Typed ``object`` because a class with ``@handler``
methods has no protocol shape to name."""


class _NodeOptions:
    __slots__ = ("max_concurrency", "retry", "state_type", "timeout")

    def __init__(self) -> None:
        self.max_concurrency = 1
        self.timeout: float | None = None
        self.retry: RetryPolicy | None = None
        self.state_type: type[Any] | None = None


_DEFAULTS = _NodeOptions()
"""The options of an executor never configured with ``add()`` (never written)."""


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
        self._unresolved: dict[str, None] = {}  # ids referred to before being added, in order
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
        target: object = obj
        if type(obj) is not FunctionExecutor:  # an @executor function is only itself
            child = sub_workflow(obj, ident, forward_requests)
            if child is not None:
                target = child
            elif is_agent(obj):
                target = agent_executor(obj, ident, context)
        spec = read_executor(target, id=ident)
        known = self._specs.get(spec.id)
        if known is not None and known.obj is not target and not wraps_agent(known.obj, obj):
            raise WorkflowBuildError(
                [f"two different executors have the id {spec.id!r}; give one another id"]
            )
        self._specs[spec.id] = spec
        self._objects[id(obj)] = spec.id
        self._keep.append(obj)
        return spec.id

    def _ref(self, obj: object) -> str:
        if isinstance(obj, str):
            if obj not in self._specs:
                self._unresolved[obj] = None
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
        options = self._options.get(ident)
        if options is None:
            options = self._options[ident] = _NodeOptions()
        options.max_concurrency = max_concurrency
        options.timeout = timeout
        options.retry = retry
        options.state_type = state_type
        return self

    def add_shared(
        self, key: str, *, initial: Any = None, merge: Callable[[Any, Any], Any] | None = None
    ) -> Self:
        """Declare a shared-state key. Reads see ``initial`` until a write (and after a
        delete); ``merge(old, new)`` folds the writes of one superstep, starting from
        ``initial``. ``initial`` must be a JSON value, as every write is."""
        try:
            json.dumps(initial, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"the initial value of shared key {key!r} must be a JSON value (dicts, lists, "
                f"strings, numbers, booleans, None): {exc}"
            ) from None
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
        seen: set[int] = set()
        """Identities of the type tuples already listed: executors read from one
        function share theirs, so 10,000 workers list their types once."""
        for spec in self._specs.values():
            node = as_sub_workflow(spec.obj)
            if node is not None:
                # the child's requests and values travel in this run's messages
                for tp, key in node.workflow.checkpoint_types.items():
                    types.append(tp)
                    names.setdefault(tp, key)
            for declared in (spec.inputs, spec.sends, spec.yields):
                if declared and id(declared) not in seen:
                    seen.add(id(declared))
                    types.extend(declared)
            for r in spec.responses:
                types.extend(members(r.request))
                types.extend(members(r.response))
                types.append(r.response)
            state = self._options.get(spec.id, _DEFAULTS).state_type or spec.state_type
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
        from agentcore.workflows._switch import Case, Default

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
        problems: list[str] = [
            f"no executor has the id {ref!r} (referred to by id in an edge or option); add "
            f"the executor object first"
            for ref in self._unresolved
            if ref not in self._specs
        ]
        if problems:
            raise WorkflowBuildError(problems)
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
        check = GraphCheck(
            specs,
            groups,
            self._start,
            allow_mutable=self._allow_mutable,
            switch_defaults={
                g.id: extra["defaults"]
                for g, (kind, _, _, extra) in zip(groups, self._edges, strict=True)
                if kind == "switch"
            },
        )
        check.run()
        problems += check.problems
        outputs = self._outputs_from
        for ident in outputs or ():
            if not specs[ident].yields:
                problems.append(
                    f"outputs_from names {ident!r}, which yields nothing; declare its yields "
                    f"(WorkflowContext[S, Y]) or leave it out"
                )
        if outputs is None:
            outputs = tuple(i for i in specs if i not in check.outgoing)
        problems += self._check_io(outputs)
        if problems:
            raise WorkflowBuildError(problems)
        registry = self._registry()
        if self._store is not None:  # its runs save every barrier: refuse what never could
            problems += unstorable(registry.keys())
            if problems:
                raise WorkflowBuildError(problems)
        for cycle in check.cycles_without_output(outputs):
            warnings.warn(
                f"the cycle {' -> '.join(cycle)} can never reach a final output: no executor "
                f"in it or after it yields one (outputs come from "
                f"{', '.join(outputs) or 'nothing'}); add an edge out of the loop to an "
                f"executor that yields, or name one with outputs_from",
                WorkflowBuildWarning,
                stacklevel=2,
            )
        return Workflow(
            Graph(
                self._name,
                self._version,
                self._description,
                self._start,
                self._nodes(check, set(outputs)),
                groups,
                check.fan_in_regions(),
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

    def _nodes(self, check: GraphCheck, final: set[str]) -> dict[str, Node]:
        """The nodes in commit order. Executors with the same outgoing groups share one
        tuple of them (see ``GraphCheck``) and so one set of the targets they reach."""
        reach: dict[int, frozenset[str]] = {}
        nodes: dict[str, Node] = {}
        specs, options, routes, outgoing = self._specs, self._options, check.routes, check.outgoing
        for index, ident in enumerate(self._order()):
            spec, node_options = specs[ident], options.get(ident, _DEFAULTS)
            out = outgoing.get(ident, ())
            reached = reach.get(id(out))
            if reached is None:
                reached = reach[id(out)] = frozenset(t for g in out for t in g.targets)
            nodes[ident] = Node(
                ident,
                index,
                spec,
                node_options.max_concurrency,
                node_options.timeout,
                node_options.retry,
                node_options.state_type or spec.state_type,
                ident in final,
                out,
                reached,
                routes[ident],
                self._shared,
            )
        return nodes

    def _order(self) -> dict[str, None]:
        """Every executor id, in the order it first appears (start, outputs_from, the
        edges in the order they were added, then the rest): the barrier's commit order."""
        return dict.fromkeys(
            itertools.chain(
                (self._start,),
                self._outputs_from or (),
                *(itertools.chain(sources, targets) for _, sources, targets, _ in self._edges),
                self._specs,
            )
        )

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
