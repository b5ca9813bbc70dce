"""Human in the loop: typed requests, response handlers in both modes, answers
checked before anything runs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import attrs
import pytest
from typing_extensions import Never

from agentcore.errors import RunStateError
from agentcore.workflows import (
    ExecutorFailedError,
    PendingRequest,
    UnknownRequestError,
    Workflow,
    WorkflowBuilder,
    WorkflowContext,
    WorkflowResponse,
    WorkflowTypeError,
    executor,
    handler,
    response_handler,
)

pytestmark = pytest.mark.anyio


@attrs.frozen
class Expense:
    id: str
    amount: float


@attrs.frozen
class ApprovalQuestion:
    expense_id: str
    amount: float


@attrs.frozen
class Decision:
    expense_id: str
    approved: bool


class ApprovalGate:
    id = "approver"

    def __init__(self) -> None:
        self.asked: list[str] = []  # a test probe, not run data
        self.contexts: list[Any] = []

    @handler
    async def on_expense(self, expense: Expense, ctx: WorkflowContext[Decision]) -> None:
        self.asked.append(expense.id)
        if expense.amount <= 100:
            await ctx.send(Decision(expense.id, approved=True))
            return
        await ctx.request(
            ApprovalQuestion(expense.id, expense.amount), bool, context={"asked_by": "gate"}
        )

    @response_handler
    async def on_answer(
        self, question: ApprovalQuestion, approved: bool, ctx: WorkflowContext[Decision]
    ) -> None:
        self.contexts.append((ctx.request_id, ctx.request_context))
        await ctx.send(Decision(question.expense_id, approved))


class ExplicitOnly:
    id = "approver"

    def __init__(self) -> None:
        self.asked: list[str] = []

    @handler(input=Expense, output=Decision)
    async def on_expense(self, expense: Any, ctx: Any) -> None:
        self.asked.append(expense.id)
        await ctx.request(ApprovalQuestion(expense.id, expense.amount), bool)

    @response_handler(request=ApprovalQuestion, response=bool, output=Decision)
    async def on_answer(self, question, approved, ctx):  # type: ignore[no-untyped-def]  # explicit mode needs no annotations
        await ctx.send(Decision(question.expense_id, approved))


@executor
async def split(expenses: tuple[Expense, ...], ctx: WorkflowContext[Expense]) -> None:
    for expense in expenses:
        await ctx.send(expense)


@executor
async def record(decision: Decision, ctx: WorkflowContext[Never, Decision]) -> None:
    await ctx.yield_output(decision)


def approvals(gate: object) -> Workflow[Any, Any]:
    return WorkflowBuilder(gate, name="expenses").add_edge(gate, record).build()


def batch_approvals(gate: object) -> Workflow[Any, Any]:
    return WorkflowBuilder(split, name="batch").add_chain(split, gate, record).build()


async def test_run_pauses_with_pending_request_and_checkpoint_reported_with_the_pause() -> None:
    gate = ApprovalGate()
    result = await approvals(gate).run(Expense("e-1", 500.0))
    assert result.status == "paused"
    [question] = result.requests
    assert question.data == ApprovalQuestion("e-1", 500.0)
    assert question.executor_id == "approver"
    assert question.response_type is bool
    paused = result.events[-1]
    assert paused.type == "run_paused"
    assert paused.request_ids == (question.id,)
    assert result.checkpoint is not None
    assert paused.checkpoint_id == result.checkpoint.checkpoint_id
    assert result.checkpoint.status == "paused"
    assert result.checkpoint.requests == (question,)
    assert [e.type for e in result.events].count("request_info") == 1


async def test_answer_resumes_and_the_requesting_handler_is_not_rerun() -> None:
    gate = ApprovalGate()
    workflow = approvals(gate)
    paused = await workflow.run(Expense("e-1", 500.0))
    [question] = paused.requests
    done = await workflow.run(
        responses=[question.create_response(True)], checkpoint=paused.checkpoint
    )
    assert done.status == "completed"
    assert done.output == Decision("e-1", True)
    assert gate.asked == ["e-1"]
    assert gate.contexts == [(question.id, {"asked_by": "gate"})]
    assert done.run_id == paused.run_id
    assert done.checkpoint is not None
    assert done.checkpoint.parent_id is not None


async def test_request_without_matching_response_handler_raises_at_request() -> None:
    class Asker:
        id = "asker"

        @handler
        async def on_text(self, text: str, ctx: WorkflowContext) -> None:
            await ctx.request(text, int)

    with pytest.raises(ExecutorFailedError) as info:
        await WorkflowBuilder(Asker(), name="w").build().run("x")
    cause = info.value.__cause__
    assert isinstance(cause, WorkflowTypeError)
    assert "no response handler for that pair" in str(cause)


@pytest.mark.parametrize("case", ["unknown", "answered", "cancelled", "twice"])
async def test_response_for_unknown_request_raises_before_any_work(case: str) -> None:
    gate = ApprovalGate()
    workflow = batch_approvals(gate)
    paused = await workflow.run((Expense("a", 500.0), Expense("b", 600.0)))
    first, second = paused.requests
    checkpoint = paused.checkpoint
    assert checkpoint is not None
    if case == "unknown":
        responses = [WorkflowResponse("req_nope", True)]
    elif case == "answered":
        half = await workflow.run(responses=[first.create_response(True)], checkpoint=checkpoint)
        checkpoint = half.checkpoint
        assert checkpoint is not None
        responses = [first.create_response(False)]
    elif case == "cancelled":
        fresh = await workflow.run(
            (Expense("c", 700.0),), checkpoint=checkpoint, cancel_pending=True
        )
        cancelled = [e for e in fresh.events if e.type == "request_cancelled"]
        assert {e.request_id for e in cancelled} == {first.id, second.id}
        checkpoint = fresh.checkpoint
        assert checkpoint is not None
        responses = [first.create_response(True)]
    else:
        responses = [first.create_response(True), first.create_response(False)]
    before = (gate.asked[:], gate.contexts[:])
    with pytest.raises(UnknownRequestError) as info:
        await workflow.run(responses=responses, checkpoint=checkpoint)
    assert isinstance(info.value, RunStateError)
    assert "Nothing was run" in str(info.value)
    assert (gate.asked, gate.contexts) == before
    assert tuple(info.value.pending) == tuple(r.id for r in checkpoint.requests)


async def test_partial_responses_keep_the_rest_pending() -> None:
    workflow = batch_approvals(ApprovalGate())
    paused = await workflow.run((Expense("a", 500.0), Expense("b", 600.0)))
    first, second = paused.requests
    half = await workflow.run(
        responses=[second.create_response(False)], checkpoint=paused.checkpoint
    )
    assert half.status == "paused"
    assert half.requests == (first,)
    assert half.outputs == (Decision("b", False),)
    rest = await workflow.run(responses=[first.create_response(True)], checkpoint=half.checkpoint)
    assert rest.status == "completed"
    assert rest.outputs == (Decision("a", True),)


async def test_responses_are_ordered_by_their_requests_not_by_argument_order() -> None:
    workflow = batch_approvals(ApprovalGate())
    paused = await workflow.run((Expense("a", 500.0), Expense("b", 600.0)))
    first, second = paused.requests
    answers = [second.create_response(False), first.create_response(True)]
    done = await workflow.run(responses=answers, checkpoint=paused.checkpoint)
    assert done.outputs == (Decision("a", True), Decision("b", False))


async def test_new_message_on_paused_run_requires_cancel_pending_and_cancelled_never_run() -> None:
    gate = ApprovalGate()
    workflow = batch_approvals(gate)
    paused = await workflow.run((Expense("a", 500.0),))
    with pytest.raises(RunStateError, match="cancel_pending=True"):
        await workflow.run((Expense("b", 50.0),), checkpoint=paused.checkpoint)
    fresh = await workflow.run(
        (Expense("b", 50.0),), checkpoint=paused.checkpoint, cancel_pending=True
    )
    assert fresh.status == "completed"
    assert fresh.outputs == (Decision("b", True),)
    assert gate.contexts == []


@pytest.mark.parametrize("make", [ApprovalGate, ExplicitOnly])
async def test_response_handler_introspected_and_explicit_modes_route_the_same(make: Any) -> None:
    gate = make()
    workflow = approvals(gate)
    paused = await workflow.run(Expense("e", 500.0))
    [question] = paused.requests
    done = await workflow.run(
        responses=[question.create_response(False)], checkpoint=paused.checkpoint
    )
    assert done.output == Decision("e", False)


@attrs.frozen
class Base:
    x: int


@attrs.frozen
class Derived(Base):
    pass


async def test_create_response_type_checks_strictly() -> None:
    def pending(response_type: Any) -> PendingRequest[Any, Any]:
        return PendingRequest("req_1", "e", "question", response_type, 1)

    with pytest.raises(TypeError, match="'req_1' must be an int"):
        pending(int).create_response("1")
    with pytest.raises(TypeError, match="must be a bool"):
        pending(bool).create_response(1)
    with pytest.raises(TypeError, match="must be an int"):
        pending(int).create_response(True)
    assert pending(Base).create_response(Derived(1)).data == Derived(1)
    with pytest.raises(TypeError, match="must be a Base"):
        pending(Base).create_response({"x": 1})
    choice = pending(Literal["yes", "no"])
    assert choice.create_response("yes").data == "yes"
    with pytest.raises(TypeError, match="Literal"):
        choice.create_response("maybe")
    numbers = pending(tuple[int, ...])
    with pytest.raises(TypeError):
        numbers.create_response(("a",))
    assert numbers.create_response((1, 2)).request_id == "req_1"


async def test_answers_are_type_checked_again_when_accepted() -> None:
    workflow = approvals(ApprovalGate())
    paused = await workflow.run(Expense("e", 500.0))
    [question] = paused.requests
    with pytest.raises(TypeError, match="must be a bool"):
        await workflow.run(
            responses=[WorkflowResponse(question.id, "yes")], checkpoint=paused.checkpoint
        )


async def test_fan_in_waits_while_a_region_executor_has_a_pending_request() -> None:
    @executor
    async def gather(decisions: Sequence[Decision], ctx: WorkflowContext[Never, int]) -> None:
        await ctx.yield_output(len(decisions))

    gate = ApprovalGate()
    workflow = (
        WorkflowBuilder(split, name="w").add_edge(split, gate).add_fan_in([gate], gather).build()
    )
    paused = await workflow.run((Expense("a", 50.0), Expense("b", 500.0)))
    assert paused.status == "paused"
    assert paused.outputs == ()
    [question] = paused.requests
    done = await workflow.run(
        responses=[question.create_response(True)], checkpoint=paused.checkpoint
    )
    assert done.output == 2


async def test_responses_without_a_checkpoint_are_refused() -> None:
    with pytest.raises(TypeError, match="pass the paused run's checkpoint"):
        await approvals(ApprovalGate()).run(responses=[WorkflowResponse("r", True)])


async def test_checkpoint_of_another_workflow_or_run_is_refused() -> None:
    paused = await approvals(ApprovalGate()).run(Expense("e", 500.0))
    other = batch_approvals(ApprovalGate())
    with pytest.raises(RunStateError, match="belongs to workflow 'expenses'"):
        await other.run(checkpoint=paused.checkpoint)
    with pytest.raises(RunStateError, match="belongs to run"):
        await approvals(ApprovalGate()).run(checkpoint=paused.checkpoint, run_id="other")
    with pytest.raises(RunStateError, match="nothing to resume"):
        await approvals(ApprovalGate()).run(checkpoint=paused.checkpoint)


async def test_a_completed_run_continues_with_a_new_message_and_keeps_state() -> None:
    @attrs.frozen
    class Seen:
        count: int

    class Tally:
        id = "tally"
        state_type = Seen

        async def handle(self, message: str, ctx: WorkflowContext[Never, int]) -> None:
            seen = ctx.get_state(Seen) or Seen(0)
            ctx.set_state(Seen(seen.count + 1))
            await ctx.yield_output(seen.count + 1)

    workflow = WorkflowBuilder(Tally(), name="tally").build()
    first = await workflow.run("a", run_id="mine")
    assert first.run_id == "mine"
    second = await workflow.run("b", checkpoint=first.checkpoint)
    assert (first.output, second.output) == (1, 2)
    assert second.run_id == "mine"


async def test_pending_requests_alone_never_raise_convergence() -> None:
    workflow = approvals(ApprovalGate())
    # the one superstep the limit allows asks; nothing is left to deliver: a pause
    paused = await workflow.run(Expense("e-1", 500.0), max_supersteps=1)
    assert paused.status == "paused"
    [question] = paused.requests
    done = await workflow.run(
        responses=[question.create_response(True)],
        checkpoint=paused.checkpoint,
        max_supersteps=2,
    )
    assert done.output == Decision("e-1", True)


@pytest.mark.parametrize("stream", [False, True])
async def test_explicit_mode_resolves_string_forward_references(stream: bool) -> None:
    """Seed 002's explicit mode: ``@response_handler(request="Later", response="Answer",
    yields="Answer")`` and ``@handler(input="Later")``, with classes defined after the
    executor, resolved against the handler's module; the run asks and answers with them."""
    from tests.workflows._future_module import Answer, Asker, Later, first

    workflow = WorkflowBuilder(first, name="w").add_edge(first, Asker()).build()
    assert workflow.request_pairs == ((Later, Answer),)
    assert workflow.output_types == (Answer,)
    if stream:
        running = workflow.run("otters", stream=True)
        async for _ in running:
            pass
        paused = await running.get_final_response()
    else:
        paused = await workflow.run("otters")
    [asked] = paused.requests
    assert asked.data == Later("OTTERS")
    assert asked.response_type is Answer
    with pytest.raises(TypeError):
        asked.create_response("hold hands")  # a str for an Answer
    done = await workflow.run(
        responses=[asked.create_response(Answer("hold hands"))], checkpoint=paused.checkpoint
    )
    assert done.output == Answer("OTTERS: hold hands")
