"""The built graph: nodes, edge groups, route tables and fan-in regions.

Everything here is computed once by ``build()`` and never written by a run (the
two per-class caches on specs are pure functions of the class).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal

import attrs

from agentcore._equality import fields_eq, fields_hash
from agentcore._repr import fields_repr
from agentcore.workflows._codec import TypeRegistry
from agentcore.workflows._edges import Group
from agentcore.workflows._spec import ExecutorSpec

__all__ = ["FanIn", "Graph", "Node", "RetryPolicy", "Route", "SharedKey"]


def _retryable(error: BaseException) -> bool:
    """The default retry predicate: the kernel's retryable errors, and timeouts."""
    return bool(getattr(error, "retryable", False)) or isinstance(error, TimeoutError)


@attrs.frozen
class RetryPolicy:
    """How a failing invocation is retried (no retry unless a node has a policy)."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    max_attempts: int = 3
    initial_delay: float = 0.5
    backoff: float = 2.0
    max_delay: float = 30.0
    retry_on: Callable[[BaseException], bool] = _retryable

    def delay(self, attempt: int, error: BaseException) -> float:
        """Seconds to wait before attempt ``attempt + 1`` (``retry_after`` honoured)."""
        after = getattr(error, "retry_after", None)
        base = self.initial_delay * self.backoff ** (attempt - 1)
        if isinstance(after, (int, float)) and after > base:
            base = float(after)
        return min(base, self.max_delay)


Route = tuple[tuple[Group, tuple[bool, ...]], ...]
"""The outgoing groups that may carry one declared type, with per-target acceptance."""


# The built graph's parts are plain classes: built once per definition, compared by
# identity and never serialized, they need none of the methods attrs would compile for
# them when the package is imported (design §10's import budget).


class SharedKey:
    """A declared shared-state key: its initial value and how concurrent writes merge."""

    __slots__ = ("initial", "merge")

    def __init__(self, initial: Any, merge: Callable[[Any, Any], Any] | None) -> None:
        self.initial: Any = initial
        self.merge: Callable[[Any, Any], Any] | None = merge

    def __repr__(self) -> str:
        return f"SharedKey(initial={self.initial!r}, merge={self.merge!r})"


class Node:
    """One executor in a built workflow."""

    __slots__ = (
        "groups",
        "id",
        "index",
        "is_output",
        "max_concurrency",
        "reachable",
        "retry",
        "routes",
        "shared_keys",
        "spec",
        "state_type",
        "timeout",
    )

    def __init__(
        self,
        id: str,  # the executor's id, as everywhere in the package
        index: int,
        spec: ExecutorSpec,
        max_concurrency: int,
        timeout: float | None,
        retry: RetryPolicy | None,
        state_type: type[Any] | None,
        is_output: bool,
        groups: tuple[Group, ...],
        reachable: frozenset[str],
        routes: Mapping[Any, Route],
        shared_keys: Mapping[str, SharedKey],
    ) -> None:
        self.id: str = id
        self.index: int = index
        self.spec: ExecutorSpec = spec
        self.max_concurrency: int = max_concurrency
        self.timeout: float | None = timeout
        self.retry: RetryPolicy | None = retry
        self.state_type: type[Any] | None = state_type
        self.is_output: bool = is_output
        self.groups: tuple[Group, ...] = groups
        self.reachable: frozenset[str] = reachable
        self.routes: Mapping[Any, Route] = routes
        self.shared_keys: Mapping[str, SharedKey] = shared_keys

    def __repr__(self) -> str:
        return f"Node(id={self.id!r}, index={self.index}, is_output={self.is_output})"


class FanIn:
    """A fan-in group with its region: the executors that can still feed it."""

    __slots__ = ("group", "position", "region", "target")

    def __init__(
        self,
        group: Group,
        target: str,
        region: frozenset[str],
        position: Mapping[str, int],  # source id -> position in the group
    ) -> None:
        self.group: Group = group
        self.target: str = target
        self.region: frozenset[str] = region
        self.position: Mapping[str, int] = position

    def __repr__(self) -> str:
        return f"FanIn(group={self.group.id!r}, target={self.target!r})"


class Graph:
    """A built workflow's definition: what ``build()`` computed, never written by a run."""

    __slots__ = (
        "claim_ttl",
        "dead_letters",
        "description",
        "durability",
        "fan_ins",
        "groups",
        "input_types",
        "max_concurrency",
        "max_supersteps",
        "name",
        "nodes",
        "output_types",
        "registry",
        "shared",
        "start",
        "store",
        "version",
    )

    def __init__(
        self,
        name: str,
        version: str | None,
        description: str | None,
        start: str,
        nodes: Mapping[str, Node],
        groups: tuple[Group, ...],
        fan_ins: tuple[FanIn, ...],
        shared: Mapping[str, SharedKey],
        input_types: tuple[Any, ...],
        output_types: tuple[Any, ...],
        max_supersteps: int,
        max_concurrency: int | None,
        dead_letters: Literal["warn", "error", "ignore"],
        registry: TypeRegistry,
        store: Any = None,  # a CheckpointStore, or None
        durability: Literal["sync", "exit"] = "sync",
        claim_ttl: float = 600.0,
    ) -> None:
        self.name: str = name
        self.version: str | None = version
        self.description: str | None = description
        self.start: str = start
        self.nodes: Mapping[str, Node] = nodes
        self.groups: tuple[Group, ...] = groups
        self.fan_ins: tuple[FanIn, ...] = fan_ins
        self.shared: Mapping[str, SharedKey] = shared
        self.input_types: tuple[Any, ...] = input_types
        self.output_types: tuple[Any, ...] = output_types
        self.max_supersteps: int = max_supersteps
        self.max_concurrency: int | None = max_concurrency
        self.dead_letters: Literal["warn", "error", "ignore"] = dead_letters
        self.registry: TypeRegistry = registry
        self.store: Any = store
        self.durability: Literal["sync", "exit"] = durability
        self.claim_ttl: float = claim_ttl

    def __repr__(self) -> str:
        return f"Graph(name={self.name!r}, start={self.start!r}, nodes={list(self.nodes)})"
