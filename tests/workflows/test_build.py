"""Building a workflow: every mistake is refused by build() (or at add), with a
message naming the executors, the types and the fix."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, Generic, TypeVar

import attrs
import pytest
from typing_extensions import Never

from agentcore.workflows import (
    Case,
    Default,
    WorkflowBuilder,
    WorkflowBuildError,
    WorkflowContext,
    executor,
    handler,
    response_handler,
)

T = TypeVar("T")


@attrs.frozen
class Report:
    text: str


@attrs.frozen
class Note:
    text: str


@attrs.frozen
class Confirm:
    count: int


@executor
async def start(text: str, ctx: WorkflowContext[Report | Note]) -> None:
    await ctx.send(Report(text))


@executor
async def takes_report(report: Report, ctx: WorkflowContext[Never, str]) -> None:
    await ctx.yield_output(report.text)


@executor
async def takes_note(note: Note, ctx: WorkflowContext[Never, str]) -> None:
    await ctx.yield_output(note.text)


@executor
async def takes_int(n: int, ctx: WorkflowContext[Never, int]) -> None:
    await ctx.yield_output(n)


def test_edge_to_executor_that_rejects_every_sent_type_fails_build() -> None:
    builder = WorkflowBuilder(start, name="w").add_fan_out(start, [takes_report, takes_note])
    builder.add_edge(start, takes_int)
    with pytest.raises(WorkflowBuildError) as info:
        builder.build()
    text = str(info.value)
    assert "'start' -> 'takes_int' carries nothing" in text
    assert "sends Report | Note" in text
    assert "accepts int" in text


def test_sent_type_without_any_accepting_edge_fails_build() -> None:
    builder = WorkflowBuilder(start, name="w").add_edge(start, takes_report)
    with pytest.raises(WorkflowBuildError, match="'start' sends Note but none of its edges"):
        builder.build()


def test_executor_that_sends_without_outgoing_edge_fails_build() -> None:
    with pytest.raises(WorkflowBuildError, match="has no outgoing edge"):
        WorkflowBuilder(start, name="w").build()


def test_fan_in_target_annotated_list_is_refused_with_sequence_hint() -> None:
    @executor
    async def one(text: str) -> Report:
        return Report(text)

    @executor
    async def gather(reports: list[Report], ctx: WorkflowContext[Never, int]) -> None:
        await ctx.yield_output(len(reports))

    builder = WorkflowBuilder(one, name="w", allow_mutable_messages=True).add_fan_in([one], gather)
    with pytest.raises(WorkflowBuildError, match=r"fan-in delivers a tuple; annotate\s+Sequence"):
        builder.build()


@attrs.define
class MutableAttrs:
    x: int


@dataclasses.dataclass
class MutableData:
    x: int


@pytest.mark.parametrize(
    ("sent", "hint"),
    [
        (list[int], "use a tuple"),
        (dict[str, int], "frozen attrs class"),
        (MutableAttrs, "@attrs.frozen"),
        (MutableData, "frozen=True"),
    ],
)
def test_mutable_message_type_is_refused(sent: Any, hint: str) -> None:
    @executor(input=str, output=sent)
    async def one(text: str, ctx: WorkflowContext[Any]) -> None:
        del text, ctx

    @executor(input=sent, yields=int)
    async def two(value: Any, ctx: WorkflowContext[Never, int]) -> None:
        del value
        await ctx.yield_output(1)

    builder = WorkflowBuilder(one, name="w").add_edge(one, two)
    with pytest.raises(WorkflowBuildError, match="mutable") as info:
        builder.build()
    assert hint in str(info.value)
    assert "'one'" in str(info.value)
    WorkflowBuilder(one, name="w", allow_mutable_messages=True).add_edge(one, two).build()


def test_future_annotations_and_forward_references_are_resolved() -> None:
    from tests.workflows._future_module import Later, Second, first

    second = Second()
    workflow = WorkflowBuilder(first, name="w").add_edge(first, second).build()
    assert workflow.output_types == (Later,)


def test_typevar_in_handler_annotation_fails_at_add_with_explicit_mode_hint() -> None:
    class Box(Generic[T]):
        id = "box"

        @handler
        async def on_item(self, item: T, ctx: WorkflowContext[T]) -> None:
            await ctx.send(item)

    with pytest.raises(WorkflowBuildError, match=r"type variable.*explicit mode"):
        WorkflowBuilder(Box[int](), name="w")


def test_explicit_mode_is_all_or_nothing() -> None:
    class NoInput:
        id = "x"

        @handler(output=int)  # type: ignore[call-overload]  # the missing input= under test
        async def on_any(self, message: str, ctx: WorkflowContext[int]) -> None:
            del message, ctx

    with pytest.raises(WorkflowBuildError, match="input= is required"):
        WorkflowBuilder(NoInput(), name="w")

    class NoResponse:
        id = "y"

        @handler
        async def on_text(self, message: str, ctx: WorkflowContext) -> None:
            del message, ctx

        @response_handler(request=str)  # type: ignore[call-overload]  # no response= under test
        async def on_answer(self, request: str, answer: bool, ctx: WorkflowContext) -> None:
            del request, answer, ctx

    with pytest.raises(WorkflowBuildError, match="both request= and response= are required"):
        WorkflowBuilder(NoResponse(), name="w")

    class Ignored:
        id = "z"

        # explicit mode: the (wrong) annotations are not read
        @handler(input=int, yields=int)
        async def on_int(self, message: str, ctx: WorkflowContext[Never, str]) -> None:
            del message, ctx

    workflow = WorkflowBuilder(Ignored(), name="w").build()
    assert workflow.input_types == (int,)
    assert workflow.output_types == (int,)


def test_duplicate_handler_for_one_type_raises() -> None:
    class Twice:
        id = "twice"

        @handler
        async def a(self, message: str, ctx: WorkflowContext) -> None:
            del message, ctx

        @handler
        async def b(self, message: str, ctx: WorkflowContext) -> None:
            del message, ctx

    with pytest.raises(WorkflowBuildError, match="two handlers for str"):
        WorkflowBuilder(Twice(), name="w")


def test_duplicate_response_handler_pair_raises_when_added() -> None:
    class Counter:
        id = "counter"

        @handler
        async def on_int(self, n: int, ctx: WorkflowContext) -> None:
            await ctx.request(Confirm(n), bool)

        @response_handler
        async def confirmed(self, request: Confirm, answer: bool, ctx: WorkflowContext) -> None:
            del request, answer, ctx

        @response_handler(request=Confirm, response=bool)
        async def confirmed_again(self, request: Any, answer: Any, ctx: Any) -> None:
            del request, answer, ctx

    builder = WorkflowBuilder(takes_int, name="w")
    with pytest.raises(WorkflowBuildError) as info:
        builder.add(Counter())
    assert "two response handlers for (Confirm, bool): confirmed, confirmed_again" in str(
        info.value
    )
    assert isinstance(info.value, ValueError)


def test_switch_needs_one_default_unless_typed_cases_cover_sends() -> None:
    def is_long(message: object) -> bool:
        return isinstance(message, Report) and len(message.text) > 3

    with pytest.raises(WorkflowBuildError, match="needs a Default"):
        WorkflowBuilder(start, name="w").add_switch(
            start, Case(is_long, takes_report), Case(Note, takes_note)
        ).build()
    covered = WorkflowBuilder(start, name="w").add_switch(
        start, Case(Report, takes_report), Case(Note, takes_note)
    )
    covered.build()
    with pytest.raises(WorkflowBuildError, match="Default must be the last case"):
        WorkflowBuilder(start, name="w").add_switch(
            start, Default(takes_note), Case(Report, takes_report)
        )


def test_unreachable_executor_fails_build() -> None:
    builder = WorkflowBuilder(start, name="w").add_fan_out(start, [takes_report, takes_note])
    builder.add(takes_int)
    with pytest.raises(WorkflowBuildError, match="'takes_int' cannot be reached"):
        builder.build()


def test_duplicate_edge_pair_fails_build() -> None:
    builder = (
        WorkflowBuilder(start, name="w")
        .add_fan_out(start, [takes_report, takes_note])
        .add_edge(start, takes_report)
    )
    with pytest.raises(WorkflowBuildError, match="'start' -> 'takes_report' is in two"):
        builder.build()


def test_unknown_id_fails_build() -> None:
    builder = WorkflowBuilder(start, name="w").add_edge(start, "nobody")
    with pytest.raises(WorkflowBuildError, match="no executor has the id 'nobody'"):
        builder.build()


def test_two_executors_with_one_id_are_refused() -> None:
    @executor(id="takes_report")
    async def impostor(report: Report) -> None:
        del report

    builder = WorkflowBuilder(start, name="w").add_edge(start, takes_report)
    with pytest.raises(WorkflowBuildError, match="two different executors have the id"):
        builder.add_edge(start, impostor)


def test_build_lists_every_problem_not_only_the_first() -> None:
    builder = WorkflowBuilder(start, name="w").add_edge(start, takes_int).add(takes_note)
    with pytest.raises(WorkflowBuildError) as info:
        builder.build()
    problems = info.value.problems
    assert len(problems) >= 3
    assert any("cannot be reached" in p for p in problems)
    assert any("carries nothing" in p for p in problems)
    assert any("none of its edges accept it" in p for p in problems)
    assert str(info.value).startswith(f"{len(problems)} problems:")


def test_input_and_output_types_are_checked_against_the_graph() -> None:
    builder = WorkflowBuilder(takes_int, name="w", input_type=str, output_type=str)
    with pytest.raises(WorkflowBuildError) as info:
        builder.build()
    assert "does not accept the input type str" in str(info.value)
    assert "no final-output executor yields str" in str(info.value)


def test_outputs_from_must_yield_something() -> None:
    @executor
    async def silent(text: str) -> Report:
        return Report(text)

    builder = WorkflowBuilder(silent, name="w", outputs_from=[silent])
    builder.add_edge(silent, takes_report)
    with pytest.raises(WorkflowBuildError, match="outputs_from names 'silent', which yields"):
        builder.build()


def test_not_an_executor_is_a_type_error_naming_it() -> None:
    with pytest.raises(TypeError, match="is not an executor"):
        WorkflowBuilder(object(), name="w")


def test_handler_without_annotation_asks_for_one() -> None:
    @executor
    async def bare(message, ctx: WorkflowContext) -> None:  # type: ignore[no-untyped-def]  # the missing annotation is the point
        del message, ctx

    with pytest.raises(WorkflowBuildError, match=r"parameter 'message' .* has no annotation"):
        WorkflowBuilder(bare, name="w")


def test_a_built_workflow_exposes_its_shape() -> None:
    workflow = (
        WorkflowBuilder(start, name="shape", version="2", description="d")
        .add_fan_out(start, [takes_report, takes_note])
        .build()
    )
    assert workflow.name == "shape"
    assert workflow.version == "2"
    assert workflow.description == "d"
    assert workflow.executor_ids == ("start", "takes_report", "takes_note")
    assert workflow.input_types == (str,)
    assert "shape" in repr(workflow)


def test_fan_in_sequence_target_and_single_source_map_build() -> None:
    @executor
    async def split(n: int, ctx: WorkflowContext[Report]) -> None:
        for i in range(n):
            await ctx.send(Report(str(i)))

    @executor
    async def join(reports: Sequence[Report], ctx: WorkflowContext[Never, int]) -> None:
        await ctx.yield_output(len(reports))

    WorkflowBuilder(split, name="w").add_fan_in([split], join).build()
