"""Draws the expense-review workflow of docs/workflows.md ("Drawing a workflow") as SVG.

    python docs/pictures/expense_review.py            # rewrites docs/pictures/expense_review.svg
    python docs/pictures/expense_review.py --stdout   # prints the SVG instead

The picture is ``workflow.to_svg()``: ``to_dot()`` piped into Graphviz's ``dot -Tsvg``
(``apt-get install graphviz``). tests/workflows/test_describe.py checks that the
committed SVG is what this script draws from the current code.
"""

from __future__ import annotations

import sys
from pathlib import Path

import attrs
from typing_extensions import Never

from agentcore.workflows import (
    Case,
    Default,
    Workflow,
    WorkflowBuilder,
    WorkflowContext,
    executor,
    handler,
    response_handler,
)


@attrs.frozen
class Expense:
    id: str
    amount: float


@attrs.frozen
class Question:
    expense_id: str
    amount: float


@attrs.frozen
class Decision:
    expense_id: str
    approved: bool


@executor
async def intake(expense: Expense) -> Expense:
    return expense


def is_big(expense: Expense) -> bool:
    return expense.amount > 100


class Approver:
    id = "approver"

    @handler
    async def on_expense(self, expense: Expense, ctx: WorkflowContext[Decision]) -> None:
        await ctx.request(Question(expense.id, expense.amount), bool)

    @response_handler
    async def on_answer(
        self, question: Question, approved: bool, ctx: WorkflowContext[Decision]
    ) -> None:
        await ctx.send(Decision(question.expense_id, approved))


@executor
async def auto_approve(expense: Expense) -> Decision:
    return Decision(expense.id, True)


@executor
async def record(decision: Decision, ctx: WorkflowContext[Never, Decision]) -> None:
    await ctx.yield_output(decision)


def expense_review() -> Workflow[Expense, Decision]:
    approver = Approver()
    return (
        WorkflowBuilder(intake, name="expense review")
        .add_switch(intake, Case(is_big, approver), Default(auto_approve))
        .add_edge(approver, record)
        .add_edge(auto_approve, record)
        .build()
    )


def main(argv: list[str]) -> None:
    picture = expense_review().to_svg()
    if "--stdout" in argv:
        sys.stdout.buffer.write(picture.encode("utf-8"))
    else:
        Path(__file__).with_suffix(".svg").write_bytes(picture.encode("utf-8"))


if __name__ == "__main__":
    main(sys.argv[1:])
