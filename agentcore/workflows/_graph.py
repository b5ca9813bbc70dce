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


@attrs.frozen(eq=False)
class SharedKey:
    __repr__ = fields_repr

    initial: Any
    merge: Callable[[Any, Any], Any] | None


@attrs.frozen(eq=False)
class Node:
    """One executor in a built workflow."""

    __repr__ = fields_repr

    id: str
    index: int
    spec: ExecutorSpec
    max_concurrency: int
    timeout: float | None
    retry: RetryPolicy | None
    state_type: type[Any] | None
    is_output: bool
    groups: tuple[Group, ...]
    reachable: frozenset[str]
    routes: Mapping[Any, Route] = attrs.field(repr=False)
    shared_keys: Mapping[str, SharedKey] = attrs.field(repr=False)


@attrs.frozen(eq=False)
class FanIn:
    """A fan-in group with its region: the executors that can still feed it."""

    __repr__ = fields_repr

    group: Group
    target: str
    region: frozenset[str]
    position: Mapping[str, int]  # source id -> position in the group


@attrs.frozen(eq=False)
class Graph:
    __repr__ = fields_repr

    name: str
    version: str | None
    description: str | None
    start: str
    nodes: Mapping[str, Node]
    groups: tuple[Group, ...]
    fan_ins: tuple[FanIn, ...]
    shared: Mapping[str, SharedKey]
    input_types: tuple[Any, ...]
    output_types: tuple[Any, ...]
    max_supersteps: int
    max_concurrency: int | None
    dead_letters: Literal["warn", "error", "ignore"]
    registry: TypeRegistry = attrs.field(repr=False)
    store: Any = attrs.field(default=None, repr=False)  # a CheckpointStore, or None
    durability: Literal["sync", "exit"] = "sync"
    claim_ttl: float = 600.0
