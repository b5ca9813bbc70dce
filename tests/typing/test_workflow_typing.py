# pyright: reportUnnecessaryTypeIgnoreComment=true
"""Static types of workflows: checked by mypy and basedpyright (strict), run by pytest.

A handler's ``WorkflowContext[SendT, YieldT]`` types what it may send and yield;
``WorkflowBuilder(..., input_type=, output_type=)`` types the definition, so
``run()`` takes the input type and ``result.output`` is the output type. Lines that
must be *rejected* carry ``# type: ignore[...]``; both checkers report the comment
as unused if the error ever stops happening, so the comment proves the rejection.
"""

from __future__ import annotations

import anyio
import attrs
import pytest
from typing_extensions import Never, assert_type

from agentcore import SupportsAgentRun
from agentcore.workflows import (
    Executor,
    FunctionExecutor,
    PendingRequest,
    Workflow,
    WorkflowBuilder,
    WorkflowContext,
    WorkflowResponse,
    WorkflowRunResult,
    executor,
)


@attrs.frozen
class Question:
    text: str


@executor
async def count(text: str, ctx: WorkflowContext[int]) -> None:
    if text == "wrong":
        await ctx.send("not an int")  # type: ignore[arg-type]
    await ctx.send(len(text))


@executor
async def report(n: int, ctx: WorkflowContext[Never, str]) -> None:
    if n < 0:
        await ctx.yield_output(n)  # type: ignore[arg-type]
        await ctx.send(n)  # type: ignore[arg-type]
    await ctx.yield_output(f"{n} characters")


def build() -> Workflow[str, str]:
    return (
        WorkflowBuilder(count, name="typed", input_type=str, output_type=str)
        .add_edge(count, report)
        .build()
    )


async def _static_checks() -> None:
    workflow = build()
    result = await workflow.run("otters")
    assert_type(result, WorkflowRunResult[str])
    assert_type(result.output, str)
    assert_type(result.outputs, tuple[str, ...])
    await workflow.run("wrong")
    await workflow.run(3)  # type: ignore[call-overload]
    request: PendingRequest[Question, bool] = PendingRequest("r", "e", Question("?"), bool, 1)
    answer = request.create_response(True)
    assert_type(answer, WorkflowResponse[bool])
    request.create_response("yes")  # type: ignore[arg-type]
    as_agent: SupportsAgentRun = workflow.as_agent()
    del as_agent
    as_executor: Executor = count
    assert_type(count, FunctionExecutor)
    del as_executor


def test_the_typed_workflow_runs() -> None:
    async def main() -> str:
        return (await build().run("otters")).output

    assert anyio.run(main) == "6 characters"


def test_checked_lines_fail_at_run_time_too() -> None:
    async def main() -> None:
        await _static_checks()

    with pytest.raises(Exception, match="sent a str"):
        anyio.run(main)
