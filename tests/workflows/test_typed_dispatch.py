"""Dispatch by the full parameterized type (issue 28 §1.1): element types of tuples,
sequences and mappings, unions, the most specific handler, ``bool`` apart from
``int`` answers; build refuses a fan-in join no one handler takes and handlers that
would be ambiguous. On asyncio and trio, in run() and run(stream=True)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs
import pytest
from typing_extensions import Never

from agentcore.workflows import (
    Workflow,
    WorkflowBuilder,
    WorkflowBuildError,
    WorkflowContext,
    WorkflowRunResult,
    executor,
    handler,
    response_handler,
)

pytestmark = pytest.mark.anyio


async def run_both(workflow: Workflow[Any, Any], message: object) -> WorkflowRunResult[Any]:
    """The run's result, after checking run(stream=True) gives the same outputs."""
    plain = await workflow.run(message)
    stream = workflow.run(message, stream=True)
    async for _ in stream:
        pass
    streamed = await stream.get_final_response()
    assert streamed.outputs == plain.outputs
    return plain


@attrs.frozen
class Num:
    n: int


@attrs.frozen
class Other:
    text: str


@attrs.frozen
class Third:
    pass


class Tuples:
    id = "tuples"

    @handler
    async def ints(self, m: tuple[int, ...], ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(f"ints {m}")

    @handler
    async def strs(self, m: tuple[str, ...], ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(f"strs {m}")


class Mappings:
    id = "mappings"

    @handler
    async def a_counts(self, m: Mapping[str, int], ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output("counts")

    @handler
    async def b_names(self, m: Mapping[str, str], ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output("names")


class Specific:
    id = "specific"

    @handler
    async def any_seq(self, m: Sequence[int], ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output("sequence")

    @handler
    async def b_tuple(self, m: tuple[int, ...], ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output("tuple")

    @handler
    async def c_union(self, m: Other | Third, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output("union")

    @handler
    async def d_num(self, m: Num, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output("num")


async def test_tuples_are_dispatched_by_their_element_type() -> None:
    workflow = WorkflowBuilder(Tuples(), name="t").build()
    assert (await run_both(workflow, ("a", "b"))).outputs == ("strs ('a', 'b')",)
    assert (await run_both(workflow, (1, 2))).outputs == ("ints (1, 2)",)


async def test_a_mixed_tuple_reaches_no_handler_of_one_element_type() -> None:
    workflow = WorkflowBuilder(Tuples(), name="t").build()
    with pytest.raises(TypeError, match="tuple"):
        await workflow.run((1, "b"))


async def test_mappings_are_dispatched_by_their_value_type() -> None:
    workflow = WorkflowBuilder(Mappings(), name="t").build()
    assert (await run_both(workflow, {"a": "b"})).outputs == ("names",)
    assert (await run_both(workflow, {"a": 1})).outputs == ("counts",)


async def test_the_most_specific_handler_wins_whatever_the_names() -> None:
    workflow = WorkflowBuilder(Specific(), name="t").build()
    assert (await run_both(workflow, (1, 2))).outputs == ("tuple",)
    assert (await run_both(workflow, Num(1))).outputs == ("num",)
    assert (await run_both(workflow, Other("x"))).outputs == ("union",)
    assert (await run_both(workflow, Third())).outputs == ("union",)


async def test_sent_tuples_route_by_their_element_type() -> None:
    @executor(id="split")
    async def split(text: str, ctx: WorkflowContext[tuple[int, ...] | tuple[str, ...]]) -> None:
        if text.isdigit():
            await ctx.send(tuple(int(c) for c in text))
        else:
            await ctx.send(tuple(text))

    @executor(id="nums")
    async def nums(m: tuple[int, ...], ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(f"nums {sum(m)}")

    @executor(id="chars")
    async def chars(m: tuple[str, ...], ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(f"chars {''.join(m)}")

    workflow = WorkflowBuilder(split, name="t").add_fan_out(split, [nums, chars]).build()
    assert (await run_both(workflow, "123")).outputs == ("nums 6",)
    assert (await run_both(workflow, "abc")).outputs == ("chars abc",)


def test_a_fan_in_whose_join_no_one_handler_takes_is_refused() -> None:
    @executor(id="go")
    async def go(n: int, ctx: WorkflowContext[int]) -> None:
        await ctx.send(n)

    @executor(id="num")
    async def num(n: int) -> Num:
        return Num(n)

    @executor(id="other")
    async def other(n: int) -> Other:
        return Other(str(n))

    class Join:
        id = "join"

        @handler
        async def nums(self, m: Sequence[Num], ctx: WorkflowContext[Never, str]) -> None:
            await ctx.yield_output("nums")

        @handler
        async def others(self, m: Sequence[Other], ctx: WorkflowContext[Never, str]) -> None:
            await ctx.yield_output("others")

    builder = (
        WorkflowBuilder(go, name="t").add_fan_out(go, [num, other]).add_fan_in([num, other], Join())
    )
    with pytest.raises(WorkflowBuildError, match=r"join delivers a tuple\[Num \| Other, \.\.\.\]"):
        builder.build()


async def test_a_fan_in_join_with_one_handler_for_the_union_builds_and_runs() -> None:
    @executor(id="go")
    async def go(n: int, ctx: WorkflowContext[int]) -> None:
        await ctx.send(n)

    @executor(id="num")
    async def num(n: int) -> Num:
        return Num(n)

    @executor(id="other")
    async def other(n: int) -> Other:
        return Other(str(n))

    @executor(id="join")
    async def join(m: Sequence[Num | Other], ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(",".join(type(x).__name__ for x in m))

    workflow = (
        WorkflowBuilder(go, name="t")
        .add_fan_out(go, [num, other])
        .add_fan_in([num, other], join)
        .build()
    )
    assert (await run_both(workflow, 1)).outputs == ("Num,Other",)


def test_handlers_that_would_be_ambiguous_are_refused() -> None:
    class Ambiguous:
        id = "ambiguous"

        @handler
        async def a(self, m: tuple[int | str, ...], ctx: WorkflowContext[Never, str]) -> None:
            await ctx.yield_output("a")

        @handler
        async def b(self, m: Sequence[str | bytes], ctx: WorkflowContext[Never, str]) -> None:
            await ctx.yield_output("b")

    with pytest.raises(WorkflowBuildError, match="would both take"):
        WorkflowBuilder(Ambiguous(), name="t").build()


@attrs.frozen
class Ask:
    text: str


class Asker:
    id = "asker"

    @handler
    async def start(self, kind: str, ctx: WorkflowContext[Never, str]) -> None:
        if kind == "flag":
            await ctx.request(Ask("flag?"), bool)
        else:
            await ctx.request(Ask("count?"), int)

    # declared first and named first: neither may decide
    @response_handler
    async def a_count(self, q: Ask, answer: int, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(f"count {answer!r}")

    @response_handler
    async def b_flag(self, q: Ask, answer: bool, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(f"flag {answer!r}")


@pytest.mark.parametrize("stream", [False, True])
async def test_a_bool_answer_reaches_the_bool_response_handler(stream: bool) -> None:
    workflow = WorkflowBuilder(Asker(), name="t").build()
    for kind, answer, expected in (("flag", True, "flag True"), ("count", 3, "count 3")):
        paused = await workflow.run(kind)
        (request,) = paused.requests
        response = request.create_response(answer)
        if stream:
            live = workflow.run(checkpoint=paused.checkpoint, responses=[response], stream=True)
            async for _ in live:
                pass
            done = await live.get_final_response()
        else:
            done = await workflow.run(checkpoint=paused.checkpoint, responses=[response])
        assert done.outputs == (expected,)


async def test_a_bool_is_not_an_int_answer() -> None:
    workflow = WorkflowBuilder(Asker(), name="t").build()
    paused = await workflow.run("count")
    (request,) = paused.requests
    with pytest.raises(TypeError, match="must be an int"):
        request.create_response(True)


def test_a_values_own_declared_class_wins_by_class_alone() -> None:
    """The shortcut the start of a run takes (and caches per class): a value whose own
    class is declared is accepted as that class, unless a ``Literal`` or an element type
    could be narrower; the full ranking agrees wherever the shortcut answers."""
    from typing import Literal

    from agentcore.workflows._typeexpr import exact_class_wins, most_specific

    declared: list[Any] = [Sequence[str], str, Sequence[int]]
    assert exact_class_wins(str, declared)
    for text in ("", "abc"):
        fitting = [tp for tp in declared if tp is str or (tp is Sequence[str])]
        assert fitting[most_specific(text, fitting)[0]] is str
    assert not exact_class_wins(str, [Literal["a"], str])  # a Literal is narrower
    assert not exact_class_wins(tuple, [tuple, tuple[int, ...]])  # elements decide
    assert not exact_class_wins(int, [str, float])  # not declared at all
