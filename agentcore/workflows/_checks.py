"""The build-time checks over a collected graph, each in one linear pass.

:class:`GraphCheck` takes the executors' specs and the edge groups and finds every
problem it can before any run (each on one line, all of them at once): no
(source, target) pair in two groups, every executor reachable from the start,
every sent type taken by some edge (coverage) and every edge carrying some type
(carriage), a switch with its ``Default`` unless typed cases cover its sends, a
fan-in target taking a tuple, immutable message types. On the way it makes what a
run routes by: per executor, its outgoing groups and a route table per sent type.

Linear by design (design §10): one adjacency pass over the groups, one
reachability pass expanding each group once, and executors alike (the same
outgoing groups and the same declared sends, as the workers of a wide fan-out
made from one function are) share one route table, one reach set and one
acceptance answer per target kind. Shared values are recognised by identity, so
nothing large is hashed or compared.
"""

from __future__ import annotations

import itertools
import types
from collections.abc import Mapping, Sequence
from typing import Any

from agentcore.workflows._edges import Group
from agentcore.workflows._graph import FanIn, Route
from agentcore.workflows._spec import ExecutorSpec
from agentcore.workflows._typeexpr import (
    compatible,
    describe,
    element_type,
    mutable_reason,
    runtime_class,
    union_of,
)

__all__ = ["GraphCheck"]

_Routing = tuple[dict[Any, Route], dict[str, tuple[bool, ...]], list[Any]]
_NO_GROUPS: tuple[Group, ...] = ()


class GraphCheck:
    """Every build-time check of one graph; read :attr:`problems` after :meth:`run`.

    :attr:`outgoing` maps an executor to its outgoing groups (executors with the same
    groups share one tuple); :attr:`routes` maps it to its route table.
    """

    def __init__(
        self,
        specs: Mapping[str, ExecutorSpec],
        groups: Sequence[Group],
        start: str,
        *,
        allow_mutable: bool,
        switch_defaults: Mapping[str, int],
    ) -> None:
        self.specs = specs
        self.groups = groups
        self.start = start
        self.allow_mutable = allow_mutable
        self.switch_defaults = switch_defaults
        self.problems: list[str] = []
        self.outgoing: dict[str, tuple[Group, ...]] = {}
        self.incoming: dict[str, tuple[Group, ...]] = {}
        self.routes: dict[str, dict[Any, Route]] = {}
        self.edges_visited = 0
        """Group expansions and (group, endpoint) steps taken: what tests count to
        show the checks grow linearly with the graph."""
        self._accepts_cache: dict[tuple[bool, tuple[Any, ...], Any], bool] = {}

    def run(self) -> None:
        self._adjacency()
        self._check_pairs()
        self._check_reachable()
        self._check_types()
        self._check_fan_in_joins()
        self._check_switches()

    def fan_in_regions(self) -> tuple[FanIn, ...]:
        """Each fan-in group with its region: the executors from which a source can be
        reached without passing through the target (one reverse search per group,
        expanding each incoming group once)."""
        incoming = self.incoming
        out: list[FanIn] = []
        for g in self.groups:
            if g.kind != "fan_in":
                continue
            target = g.targets[0]
            region = set(g.sources)
            todo = list(g.sources)
            expanded: set[str] = set()
            while todo:
                for h in incoming.get(todo.pop(), _NO_GROUPS):
                    if h.id in expanded:
                        continue
                    expanded.add(h.id)
                    self.edges_visited += len(h.sources)
                    for s in h.sources:
                        if s != target and s not in region:
                            region.add(s)
                            todo.append(s)
            position = {s: i for i, s in enumerate(g.sources)}
            out.append(FanIn(g, target, frozenset(region), position))
        return tuple(out)

    # -- the adjacency, once ----------------------------------------------------------

    def _adjacency(self) -> None:
        """Outgoing and incoming groups per executor. An executor in one group holds
        that group's one-element tuple, shared with every other such executor."""
        outgoing, incoming = self.outgoing, self.incoming
        for g in self.groups:
            alone = (g,)
            for ends, table in ((g.sources, outgoing), (g.targets, incoming)):
                self.edges_visited += len(ends)
                for ident in ends:
                    known = table.get(ident)
                    table[ident] = alone if known is None else (*known, g)

    def _check_pairs(self) -> None:
        """No (source, target) pair in two groups; only a source with two or more
        outgoing groups can have one, so only those sources are looked at."""
        seen: dict[tuple[str, str], str] = {}
        outgoing = self.outgoing
        for g in self.groups:
            for s in g.sources:
                if len(outgoing[s]) < 2:
                    continue
                self.edges_visited += len(g.targets)
                for t in g.targets:
                    if (s, t) in seen and seen[(s, t)] != g.id:
                        self.problems.append(
                            f"the edge {s!r} -> {t!r} is in two edge groups; keep one "
                            f"(a switch or fan-out already reaches {t!r})"
                        )
                    seen[(s, t)] = g.id

    def _check_reachable(self) -> None:
        """One search from the start; each group's targets are expanded once."""
        outgoing = self.outgoing
        seen = {self.start}
        expanded: set[str] = set()
        todo = [self.start]
        while todo:
            for g in outgoing.get(todo.pop(), _NO_GROUPS):
                if g.id in expanded:
                    continue
                expanded.add(g.id)
                self.edges_visited += len(g.targets)
                for t in g.targets:
                    if t not in seen:
                        seen.add(t)
                        todo.append(t)
        self.problems.extend(
            f"{ident!r} cannot be reached from the start executor {self.start!r}; connect "
            f"it with an edge or remove it"
            for ident in self.specs
            if ident not in seen
        )

    # -- types: coverage, carriage, mutability ------------------------------------------

    def _accepts(self, group: Group, tp: Any) -> tuple[bool, ...]:
        """Per target of ``group``: whether it takes a ``tp`` (its condition, when a
        class, may carry it, and the target accepts it). Targets with the same inputs
        share one answer, so a 10,000-way fan-out of one kind of worker checks once."""
        fan_in = group.kind == "fan_in"
        specs = self.specs
        cache = self._accepts_cache
        out: list[bool] = []
        self.edges_visited += len(group.targets)
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

    def _mutable(self, ident: str, declared: tuple[Any, ...], clean: set[int]) -> None:
        """A problem per mutable type in ``declared``; tuples found clean are
        remembered by identity (executors read from one function share theirs)."""
        found = False
        for tp in declared:
            reason = mutable_reason(tp)
            if reason is not None:
                found = True
                self.problems.append(
                    f"{ident!r} declares a mutable message type: {reason} (or build "
                    f"with allow_mutable_messages=True)"
                )
        if not found:
            clean.add(id(declared))

    def _check_types(self) -> None:
        routes = self.routes
        carried: dict[str, dict[str, tuple[bool, ...]]] = {}
        """source -> group id -> per target: whether some type the source sends gets
        there (alike sources share one dict)."""
        alike: dict[tuple[int, int], _Routing] = {}
        """Executors with the same outgoing groups and sends route alike: one table for
        all of them (the workers of a 10,000-way fan-out share one). Keyed by the
        identity of the shared tuples, which live as long as the specs."""
        clean: set[int] = set()
        for ident, spec in self.specs.items():
            sends, yields = spec.sends, spec.yields
            if not self.allow_mutable:
                if sends and id(sends) not in clean:
                    self._mutable(ident, sends, clean)
                if yields and id(yields) not in clean:
                    self._mutable(ident, yields, clean)
            out = self.outgoing.get(ident)
            if out is None:
                if sends and not _is_agent_executor(spec.obj):
                    # an agent at the end of a graph only yields its response
                    self.problems.append(
                        f"{ident!r} sends {' | '.join(describe(t) for t in sends)} but has "
                        f"no outgoing edge; add one, or remove the sends"
                    )
                routes[ident] = {}
                continue
            key = (id(out), id(sends))
            known = alike.get(key)
            if known is None:
                known = alike[key] = self._route_table(out, sends)
            table, reached, untaken = known
            carried[ident] = reached
            routes[ident] = table
            for tp in untaken:
                self.problems.append(
                    f"{ident!r} sends {describe(tp)} but none of its edges accept it; add "
                    f"an edge to an executor that takes {describe(tp)}, or remove "
                    f"{describe(tp)} from its sends"
                )
        self._check_carriage(carried)

    def _check_carriage(self, carried: dict[str, dict[str, tuple[bool, ...]]]) -> None:
        full: set[int] = set()
        """Identities of per-target answers known to be all true."""
        for g in self.groups:
            width = len(g.targets)
            self.edges_visited += len(g.sources)
            for s in g.sources:
                got = carried.get(s, {}).get(g.id, ())
                if id(got) in full:
                    continue
                if len(got) == width and all(got):
                    full.add(id(got))
                    continue
                for i, t in enumerate(g.targets):
                    if i < len(got) and got[i]:
                        continue
                    if g.kind == "fan_in":
                        self.problems.append(self._fan_in_problem(s, t))
                    else:
                        specs = self.specs
                        sent = " | ".join(describe(x) for x in specs[s].sends) or "nothing"
                        took = " | ".join(describe(x) for x in specs[t].inputs)
                        self.problems.append(
                            f"the edge {s!r} -> {t!r} carries nothing: {s!r} sends {sent} and "
                            f"{t!r} accepts {took}"
                        )

    def _fan_in_problem(self, source: str, target: str) -> str:
        inputs = self.specs[target].inputs
        sent = " | ".join(describe(x) for x in self.specs[source].sends) or "nothing"
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

    def _check_fan_in_joins(self) -> None:
        """A fan-in delivers one tuple of everything its sources sent it, so its target
        needs one handler taking the union of those types (a handler per branch type
        would receive the other branches' values too). Sources that route alike share
        one route table, which is read once."""
        for g in self.groups:
            if g.kind != "fan_in":
                continue
            carried: list[Any] = []
            tables: set[int] = set()
            for s in g.sources:
                table = self.routes.get(s, {})
                if id(table) in tables:
                    continue
                tables.add(id(table))
                for tp, route in table.items():
                    if tp not in carried and any(
                        grp is g and any(accepts) for grp, accepts in route
                    ):
                        carried.append(tp)
            if len(carried) < 2:
                continue
            target = g.targets[0]
            joined = types.GenericAlias(tuple, (union_of(carried), ...))  # tuple[A | B, ...]
            if not self.specs[target].accepts(joined):
                self.problems.append(
                    f"fan-in into {target!r}: the join delivers a {describe(joined)}, but no "
                    f"one handler of {target!r} takes it (it accepts "
                    f"{' | '.join(describe(x) for x in self.specs[target].inputs)}); give it a "
                    f"handler for Sequence[{describe(union_of(carried))}]"
                )

    def cycles_without_output(self, outputs: Sequence[str]) -> list[tuple[str, ...]]:
        """The cycles (strongly connected executors, in commit order) from which no
        executor of ``outputs`` that yields can be reached: a run that enters one loops
        or stops without a final output. Linear: one search for the components
        (Tarjan's, without recursion) and one reverse search from the outputs."""
        incoming = self.incoming
        alive = {i for i in outputs if self.specs[i].yields}
        todo = list(alive)
        while todo:
            for g in incoming.get(todo.pop(), _NO_GROUPS):
                for s in g.sources:
                    if s not in alive:
                        alive.add(s)
                        todo.append(s)
        dead: list[tuple[str, ...]] = []
        for component in self._components():
            if alive.isdisjoint(component):
                dead.append(tuple(i for i in self.specs if i in component))
        return dead

    def _components(self) -> list[set[str]]:
        """Strongly connected components with a cycle in them (Tarjan's algorithm)."""
        outgoing = self.outgoing
        successors: dict[str, list[str]] = {
            ident: [t for g in outgoing.get(ident, _NO_GROUPS) for t in g.targets]
            for ident in self.specs
        }
        index: dict[str, int] = {}
        low: dict[str, int] = {}
        stack: list[str] = []
        on_stack: set[str] = set()
        found: list[set[str]] = []
        for root in self.specs:
            if root in index:
                continue
            work: list[tuple[str, int]] = [(root, 0)]
            index[root] = low[root] = len(index)
            stack.append(root)
            on_stack.add(root)
            while work:
                node, i = work[-1]
                nexts = successors[node]
                if i < len(nexts):
                    work[-1] = (node, i + 1)
                    nxt = nexts[i]
                    if nxt not in index:
                        index[nxt] = low[nxt] = len(index)
                        stack.append(nxt)
                        on_stack.add(nxt)
                        work.append((nxt, 0))
                    elif nxt in on_stack:
                        low[node] = min(low[node], index[nxt])
                    continue
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component: set[str] = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1 or node in successors[node]:
                        found.append(component)
        return found

    def _check_switches(self) -> None:
        for g in self.groups:
            if g.kind != "switch" or self.switch_defaults.get(g.id):
                continue
            typed = [c for c in g.conditions if isinstance(c, type)]
            sends = self.specs[g.sources[0]].sends
            if not all(any(compatible(tp, c) for c in typed) for tp in sends):
                self.problems.append(
                    f"the switch from {g.sources[0]!r} needs a Default (last), unless its "
                    f"typed cases cover every type it sends"
                )


def _is_agent_executor(obj: object) -> bool:
    # asked only of an executor that sends without an outgoing edge: the agent
    # executor's module loads with the first agent, not with the package
    from agentcore.workflows._agent_executor import AgentExecutor

    return isinstance(obj, AgentExecutor)
