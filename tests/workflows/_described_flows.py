"""Workflows of every shape ``describe()`` and its renderers know, one builder each,
for the golden files of ``test_describe.py`` (and the docs' picture: ``expenses``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import attrs
from typing_extensions import Never

from agentcore import Agent
from agentcore.testing import ScriptedChatClient
from agentcore.workflows import (
    AgentTurn,
    Case,
    Default,
    RetryPolicy,
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


@attrs.frozen
class Draft:
    text: str


@attrs.frozen
class Report:
    text: str


# -- chain -------------------------------------------------------------------------------


@executor
async def upper(text: str) -> str:
    return text.upper()


@executor
async def exclaim(text: str) -> str:
    return text + "!"


@executor
async def emit(text: str, ctx: WorkflowContext[Never, str]) -> None:
    await ctx.yield_output(text)


def chain() -> Workflow[str, str]:
    return (
        WorkflowBuilder(upper, name="chain", description="Shout a text.")
        .add_chain(upper, exclaim, emit)
        .build()
    )


# -- conditional and switch ---------------------------------------------------------------


@executor
async def intake(expense: Expense) -> Expense:
    return expense


@executor
async def auto_file(expense: Expense) -> Decision:
    return Decision(expense.id, True)


@executor
async def file_it(decision: Decision, ctx: WorkflowContext[Never, Decision]) -> None:
    await ctx.yield_output(decision)


def is_big(expense: Expense) -> bool:
    return expense.amount > 100


class Approver:
    """Asks a person about big expenses."""

    id = "approver"

    @handler
    async def on_expense(self, expense: Expense, ctx: WorkflowContext[Decision]) -> None:
        await ctx.request(Question(expense.id, expense.amount), bool)

    @response_handler
    async def on_answer(
        self, question: Question, approved: bool, ctx: WorkflowContext[Decision]
    ) -> None:
        await ctx.send(Decision(question.expense_id, approved))


def _is_small() -> Callable[[Expense], bool]:
    return lambda e: e.amount <= 100  # a lambda: its condition is drawn as "when λ"


def conditional() -> Workflow[Expense, Decision]:
    approver = Approver()
    return (
        WorkflowBuilder(intake, name="conditional")
        .add_edge(intake, approver, when=is_big)
        .add_edge(intake, auto_file, when=_is_small())
        .add_edge(approver, file_it)
        .add_edge(auto_file, file_it)
        .build()
    )


def expenses() -> Workflow[Expense, Decision]:
    """The docs' example: a switch to a person or to filing, both to the ledger."""
    approver = Approver()
    return (
        WorkflowBuilder(intake, name="expenses", version="1")
        .add_switch(intake, Case(is_big, approver), Default(auto_file))
        .add_edge(approver, file_it)
        .add_edge(auto_file, file_it)
        .build()
    )


@executor
async def classify(value: Draft | Report | str) -> Draft | Report | str:
    return value


@executor
async def on_draft(draft: Draft, ctx: WorkflowContext[Never, str]) -> None:
    await ctx.yield_output(draft.text)


@executor
async def on_report(report: Report, ctx: WorkflowContext[Never, str]) -> None:
    await ctx.yield_output(report.text)


@executor
async def on_text(text: str, ctx: WorkflowContext[Never, str]) -> None:
    await ctx.yield_output(text)


def switch() -> Workflow[Any, str]:
    return (
        WorkflowBuilder(classify, name="switch")
        .add_switch(classify, Case(Draft, on_draft), Case(Report, on_report), Default(on_text))
        .build()
    )


# -- fan-out, fan-in, select ----------------------------------------------------------------


@executor
async def split(text: str, ctx: WorkflowContext[str]) -> None:
    await ctx.send(text)


@executor
async def count_words(text: str) -> int:
    return len(text.split())


@executor
async def count_letters(text: str) -> int:
    return sum(c.isalpha() for c in text)


@executor
async def total(counts: tuple[int, ...], ctx: WorkflowContext[Never, int]) -> None:
    await ctx.yield_output(sum(counts))


def fan_out_fan_in() -> Workflow[str, int]:
    return (
        WorkflowBuilder(split, name="fan_out_fan_in")
        .add_fan_out(split, [count_words, count_letters])
        .add_fan_in([count_words, count_letters], total, require="each_source")
        .add(count_letters, max_concurrency=4, timeout=2.5, retry=RetryPolicy(max_attempts=5))
        .build()
    )


def pick_short(text: str, targets: Sequence[str]) -> Sequence[str]:
    return [targets[0]] if len(text) < 10 else list(targets)


def select() -> Workflow[str, str]:
    return (
        WorkflowBuilder(split, name="select")
        .add_fan_out(split, [emit, on_text], select=pick_short)
        .build()
    )


# -- a loop with shared state -------------------------------------------------------------------


@executor
async def guess(number: int, ctx: WorkflowContext[int, int]) -> None:
    if number >= 3:
        await ctx.yield_output(number)
    else:
        await ctx.send(number)


@executor
async def bump(number: int) -> int:
    return number + 1


def loop() -> Workflow[int, int]:
    return (
        WorkflowBuilder(guess, name="loop", outputs_from=[guess])
        .add_edge(guess, bump)
        .add_edge(bump, guess)
        .add_shared("tries", initial=0, merge=lambda a, b: a + b)
        .add_shared("last", initial=None)
        .build()
    )


# -- a sub-workflow -----------------------------------------------------------------------------


@executor
async def to_expense(text: str) -> Expense:
    return Expense(text, float(len(text)))


def subworkflow() -> Workflow[str, Decision]:
    child = expenses()
    outer = WorkflowBuilder(to_expense, name="outer").add(
        child, id="review", forward_requests="caller"
    )
    return outer.add_edge(to_expense, "review").add_edge("review", file_it).build()


# -- agents -------------------------------------------------------------------------------------


def agents() -> Workflow[str, Any]:
    writer = Agent(ScriptedChatClient([]), "Write.", name="writer", description="Drafts it.")
    editor = Agent(ScriptedChatClient([]), "Edit.", name="editor")

    @executor
    async def publish(turn: AgentTurn, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(turn.text)

    return WorkflowBuilder(writer, name="agents").add_chain(writer, editor, publish).build()


# -- requests -----------------------------------------------------------------------------------


class Stateful:
    """An executor with ``handle`` (no ``@handler``), explicit types and state."""

    id = "ledger"
    input_types = (Decision,)
    output_types = ()
    yield_types = (Decision,)

    async def handle(self, message: Any, ctx: WorkflowContext[Any, Any]) -> None:
        await ctx.yield_output(message)


def requests() -> Workflow[Expense, Decision]:
    approver = Approver()
    return (
        WorkflowBuilder(approver, name="requests")
        .add_edge(approver, Stateful())
        .add("ledger", state_type=Decision)
        .build()
    )


# -- hostile ids ----------------------------------------------------------------------------------


def _named(ident: str, fn: Callable[..., Any]) -> Any:
    return executor(id=ident)(fn)


def hostile_ids() -> Workflow[str, str]:
    async def first(text: str) -> str:
        return text

    async def second(text: str) -> str:
        return text

    async def third(text: str, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(text)

    a = _named('say "hi" <b>', first)
    b = _named("back\\slash\nnew line #1 `tick`", second)
    c = _named("end]|}; digraph x {", third)
    return WorkflowBuilder(a, name='hostile "name"').add_chain(a, b, c).build()


FLOWS: dict[str, Callable[[], Workflow[Any, Any]]] = {
    "chain": chain,
    "conditional": conditional,
    "switch": switch,
    "fan_out_fan_in": fan_out_fan_in,
    "select": select,
    "loop": loop,
    "subworkflow": subworkflow,
    "agents": agents,
    "requests": requests,
    "hostile_ids": hostile_ids,
}
"""Each golden's workflow, by the golden's name."""
