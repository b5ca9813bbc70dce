"""Building stays linear in the graph's size, and what makes it so (one read of a
function body shared by the executors made from it) never mixes up two bodies."""

from __future__ import annotations

import functools
import sys
import typing
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import attrs
import pytest
from typing_extensions import Never

from agentcore.workflows import (
    FunctionExecutor,
    Workflow,
    WorkflowBuilder,
    WorkflowBuildError,
    WorkflowContext,
    executor,
)
from agentcore.workflows._checks import GraphCheck


@attrs.frozen
class Ping:
    n: int


@attrs.frozen
class Pong:
    n: int


def _worker(i: int) -> FunctionExecutor:
    @executor(id=f"w{i}")
    async def work(n: int) -> str:
        return "r"

    return work


def _fan(width: int) -> Workflow[int, int]:
    @executor
    async def source(n: int, ctx: WorkflowContext[int]) -> None:
        await ctx.send(n)

    @executor
    async def join(results: Sequence[str], ctx: WorkflowContext[Never, int]) -> None:
        await ctx.yield_output(len(results))

    workers = [_worker(i) for i in range(width)]
    return (
        WorkflowBuilder(source, name=f"fan-{width}")
        .add_fan_out(source, workers)
        .add_fan_in(workers, join)
        .build()
    )


class _Counts:
    def __init__(self) -> None:
        self.calls = 0
        self.type_hints = 0
        self.edges = 0


@contextmanager
def _counting(monkeypatch: pytest.MonkeyPatch) -> Iterator[_Counts]:
    counts = _Counts()
    resolve = typing.get_type_hints
    run = GraphCheck.run

    def get_type_hints(*args: Any, **kwargs: Any) -> Any:
        counts.type_hints += 1
        return resolve(*args, **kwargs)

    def counted_run(self: GraphCheck) -> None:
        run(self)
        counts.edges += self.edges_visited

    def profile(frame: object, event: str, arg: object) -> None:
        if event in ("call", "c_call"):
            counts.calls += 1

    monkeypatch.setattr(typing, "get_type_hints", get_type_hints)
    monkeypatch.setattr(GraphCheck, "run", counted_run)
    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        yield counts
    finally:
        sys.setprofile(previous)


def test_build_of_10k_nodes_is_linear(monkeypatch: pytest.MonkeyPatch) -> None:
    """Making and building a 10,000-way fan-out/fan-in costs at most 15 times the
    1,000-way one (the design's bound; linear is 10).

    It counts rather than times: the suite makes no timing assertions (a loaded
    machine would make them flaky), and counts are deterministic. Three counts, each
    of which a regression to per-node or quadratic work would blow up: calls (of
    Python functions and of builtins such as ``len`` or ``dict.get``) while the
    executors are made and the graph is built, annotation resolutions
    (``typing.get_type_hints``: once per function body, not per executor), and the
    edge steps of the build-time checks (adjacency, reachability, coverage,
    carriage, fan-in regions). A quadratic scan made of operators alone (``x in
    some_list`` per node) makes no call and is not counted; the benchmark's timing is
    where that would show.
    """
    _fan(50)  # the bodies read once: what follows measures the steady state
    with _counting(monkeypatch) as small:
        _fan(1_000)
    with _counting(monkeypatch) as large:
        _fan(10_000)
    assert small.calls > 1_000  # the counters see the work
    assert small.edges > 1_000
    assert large.calls <= 15 * small.calls, (small.calls, large.calls)
    assert large.edges <= 15 * small.edges, (small.edges, large.edges)
    assert large.type_hints == small.type_hints  # per body, whatever the width


def _factory(annotation: type[Any]) -> FunctionExecutor:
    """Functions of one body whose annotation is a runtime value (as in a module
    without ``from __future__ import annotations``)."""

    async def handle(message):  # type: ignore[no-untyped-def]  # annotated below
        return None

    handle.__annotations__ = {"message": annotation, "return": None}
    return FunctionExecutor(f"h-{annotation.__name__}", handle)


def test_edge_between_one_bodys_functions_is_checked_with_each_ones_types() -> None:
    @executor
    async def start(n: int, ctx: WorkflowContext[Ping]) -> None:
        await ctx.send(Ping(n))

    takes_ping, takes_pong = _factory(Ping), _factory(Pong)
    WorkflowBuilder(start, name="ok").add_edge(start, takes_ping).build()
    with pytest.raises(WorkflowBuildError, match="carries nothing"):
        WorkflowBuilder(start, name="bad").add_edge(start, takes_pong).build()


def _logged(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    async def wrapper(*args: Any) -> Any:
        return await fn(*args)

    return wrapper


_seen: list[tuple[str, bool]] = []


async def _without_ctx(message: Ping) -> None:
    _seen.append(("without", False))


async def _with_ctx(message: Ping, ctx) -> None:  # type: ignore[no-untyped-def]  # no annotation on ctx: its annotations equal _without_ctx's
    _seen.append(("with", isinstance(ctx, WorkflowContext)))


@pytest.mark.anyio
async def test_wrapped_functions_sharing_a_wrapper_body_are_read_through_their_own_signature() -> (
    None
):
    plain, with_ctx = _logged(_without_ctx), _logged(_with_ctx)
    assert plain.__code__ is with_ctx.__code__
    assert plain.__annotations__ == with_ctx.__annotations__

    @executor
    async def start(n: int, ctx: WorkflowContext[Ping]) -> None:
        await ctx.send(Ping(n))

    first, second = FunctionExecutor("first", plain), FunctionExecutor("second", with_ctx)
    workflow = WorkflowBuilder(start, name="wrapped").add_fan_out(start, [first, second]).build()
    _seen.clear()
    await workflow.run(1)
    assert sorted(_seen) == [("with", True), ("without", False)]
