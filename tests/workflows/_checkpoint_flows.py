"""A workflow whose paused checkpoint holds a pending request, a buffered fan-in and
executor state: used by the checkpoint tests, the fixture and the subprocess test."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

import attrs
from typing_extensions import Never

from agentcore.workflows import (
    Workflow,
    WorkflowBuilder,
    WorkflowContext,
    executor,
    handler,
    response_handler,
)
from agentcore.workflows.protocols import CheckpointStore


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


@attrs.frozen
class GateState:
    asked: int = 0


@executor
async def split(expenses: tuple[Expense, ...], ctx: WorkflowContext[Expense]) -> None:
    for expense in expenses:
        await ctx.send(expense)


class Gate:
    id = "gate"
    state_type = GateState

    @handler
    async def on_expense(self, expense: Expense, ctx: WorkflowContext[Decision]) -> None:
        if expense.amount <= 100:
            await ctx.send(Decision(expense.id, True))
            return
        state = ctx.get_state(GateState) or GateState()
        ctx.set_state(GateState(state.asked + 1))
        await ctx.request(Question(expense.id, expense.amount), bool, context={"n": state.asked})

    @response_handler
    async def on_answer(
        self, question: Question, approved: bool, ctx: WorkflowContext[Decision]
    ) -> None:
        await ctx.send(Decision(question.expense_id, approved))


@executor
async def ledger(decisions: Sequence[Decision], ctx: WorkflowContext[Never, str]) -> None:
    await ctx.yield_output(", ".join(f"{d.expense_id}={d.approved}" for d in decisions))


def expenses(
    checkpoints: CheckpointStore | str | None = None,
) -> Workflow[tuple[Expense, ...], str]:
    gate = Gate()
    return (
        WorkflowBuilder(split, name="expense-approval", version="1", checkpoints=checkpoints)
        .add_edge(split, gate)
        .add_fan_in([gate], ledger)
        .build()
    )


BATCH = (Expense("e-1", 50.0), Expense("e-2", 1200.0))


async def _main(path: str, step: str) -> None:
    workflow = expenses(path)
    if step == "start":
        result = await workflow.run(BATCH, run_id="expense-run")
        print(result.status, len(result.requests))
    else:
        snapshot = await workflow.inspect("expense-run")
        [question] = snapshot.requests
        print(snapshot.status, question.data.expense_id)
        done = await workflow.run(responses=[question.create_response(True)], run_id="expense-run")
        print(done.status, done.output)


if __name__ == "__main__":
    import anyio

    sys.path.insert(0, os.getcwd())
    anyio.run(_main, sys.argv[1], sys.argv[2])
