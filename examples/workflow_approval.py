"""Human in the loop: a workflow pauses on a typed question and resumes with the
answer, here from a SQLite checkpoint file as a second process would.

Runs offline. The answer is checked against the question's response type, the
handler that asked never runs again, and answering twice is refused.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import anyio
import attrs
from typing_extensions import Never

from agentcore.workflows import (
    UnknownRequestError,
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
    submitter: str


@attrs.frozen
class ApprovalQuestion:
    expense_id: str
    amount: float
    question: str


@attrs.frozen
class Decision:
    expense_id: str
    approved: bool


class ApprovalGate:
    """A plain class: no base class, an id and decorated methods."""

    id = "approver"

    @handler
    async def on_expense(self, expense: Expense, ctx: WorkflowContext[Decision]) -> None:
        if expense.amount <= 100:
            await ctx.send(Decision(expense.id, approved=True))
            return
        question = f"Approve {expense.amount:.0f} EUR for {expense.submitter}?"
        await ctx.request(ApprovalQuestion(expense.id, expense.amount, question), bool)

    @response_handler
    async def on_answer(
        self, question: ApprovalQuestion, approved: bool, ctx: WorkflowContext[Decision]
    ) -> None:
        await ctx.send(Decision(question.expense_id, approved))


@executor
async def record(decision: Decision, ctx: WorkflowContext[Never, Decision]) -> None:
    await ctx.yield_output(decision)


def expense_workflow(database: Path) -> Workflow[Expense, Decision]:
    gate = ApprovalGate()
    return (
        WorkflowBuilder(
            gate,
            name="expense-approval",
            version="3",
            input_type=Expense,
            output_type=Decision,
            checkpoints=database,
        )
        .add_edge(gate, record)
        .build()
    )


async def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        database = Path(folder) / "approvals.db"

        # "Process A": the expense comes in and the run pauses on the question.
        paused = await expense_workflow(database).run(
            Expense("e-18", 1200.0, "grace"), run_id="expense-e-18"
        )
        print(paused.status, "-", paused.requests[0].data.question)

        # "Process B", later: a fresh definition reads the store and answers.
        workflow = expense_workflow(database)
        snapshot = await workflow.inspect("expense-e-18")
        [question] = snapshot.requests
        try:
            question.create_response("yes")  # checked against bool when it is made
        except TypeError as exc:
            print("refused:", exc)
        done = await workflow.run(responses=[question.create_response(True)], run_id="expense-e-18")
        print(done.status, "-", done.output)
        try:
            await workflow.run(responses=[question.create_response(False)], run_id="expense-e-18")
        except UnknownRequestError as exc:
            print("refused:", str(exc).split(";")[0])


if __name__ == "__main__":
    anyio.run(main)
