"""Sub-workflows: a child asks its parent through SubWorkflowRequest messages."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import anyio
import pytest
from typing_extensions import Never

from agentcore.serialization import to_json
from agentcore.workflows import (
    CheckpointError,
    CheckpointStore,
    EdgeDelivery,
    ExecutorFailedError,
    InMemoryCheckpointStore,
    SqliteCheckpointStore,
    SubWorkflowExecutor,
    SubWorkflowRequest,
    SubWorkflowResponse,
    Workflow,
    WorkflowBuilder,
    WorkflowContext,
    executor,
    handler,
    response_handler,
)
from tests.workflows import _nested_flows as nested
from tests.workflows._nested_flows import Checker, Claim, NeedSource, Verdict

pytestmark = pytest.mark.anyio


ARCHIVE = "otters hold hands. otters sleep on water."


class Librarian:
    id = "librarian"

    def __init__(self, wrong: bool = False) -> None:
        self.wrong = wrong

    @handler
    async def on_request(
        self,
        msg: SubWorkflowRequest[NeedSource, str],
        ctx: WorkflowContext[SubWorkflowResponse[str]],
    ) -> None:
        if self.wrong:
            await ctx.send(msg.create_response(42))  # type: ignore[arg-type]  # the wrong type under test
        await ctx.send(msg.create_response(ARCHIVE))


@executor
async def split_claims(article: str, ctx: WorkflowContext[Claim]) -> None:
    for sentence in article.split(". "):
        await ctx.send(Claim(sentence))


@executor
async def tally(verdicts: Sequence[Verdict], ctx: WorkflowContext[Never, str]) -> None:
    supported = sum(v.supported for v in verdicts)
    await ctx.yield_output(f"{supported}/{len(verdicts)} claims supported")


def fact_check() -> Workflow[Claim, Verdict]:
    return WorkflowBuilder(Checker(), name="fact-check").build()


def article_check(librarian: Librarian) -> Workflow[str, str]:
    return (
        WorkflowBuilder(split_claims, name="article-check")
        .add(fact_check(), id="fact_check")
        .add_edge(split_claims, "fact_check")
        .add_edge("fact_check", librarian)
        .add_edge(librarian, "fact_check")
        .add_fan_in(["fact_check"], tally)
        .build()
    )


async def test_child_request_reaches_parent_handler_and_answer_resumes_child() -> None:
    result = await article_check(Librarian()).run("Otters hold hands. Otters can fly")
    assert result.status == "completed"
    assert result.output == "1/2 claims supported"


async def test_each_input_gets_a_fresh_child_run() -> None:
    seen: list[str] = []

    class Recorder(Librarian):
        @handler
        async def on_request(
            self,
            msg: SubWorkflowRequest[NeedSource, str],
            ctx: WorkflowContext[SubWorkflowResponse[str]],
        ) -> None:
            seen.append(msg.child_run_id)
            await ctx.send(msg.create_response(ARCHIVE))

    await article_check(Recorder()).run("a. b. c")
    assert len(seen) == 3
    assert len(set(seen)) == 3
    assert all("/fact_check/" in run_id for run_id in seen)


async def test_sub_workflow_create_response_type_checks() -> None:
    with pytest.raises(ExecutorFailedError) as info:
        await article_check(Librarian(wrong=True)).run("Otters hold hands")
    assert isinstance(info.value.__cause__, TypeError)
    assert "must be a str" in str(info.value.__cause__)


async def test_sub_workflow_response_is_dropped_as_target_mismatch_on_other_edges() -> None:
    @executor
    async def audit(answer: SubWorkflowResponse[str]) -> None:
        del answer

    librarian = Librarian()
    workflow = (
        WorkflowBuilder(split_claims, name="article-check")
        .add(fact_check(), id="fact_check")
        .add_edge(split_claims, "fact_check")
        .add_edge("fact_check", librarian)
        .add_fan_out(librarian, ["fact_check", audit])
        .add_fan_in(["fact_check"], tally)
        .build()
    )
    result = await workflow.run("Otters hold hands", verbose_events=True)
    assert result.output == "1/1 claims supported"
    answers = [
        (e.target_id, e.status)
        for e in result.events
        if isinstance(e, EdgeDelivery) and e.source_id == "librarian"
    ]
    assert answers == [("fact_check", "delivered"), ("audit", "dropped_target_mismatch")]


async def test_sub_workflow_node_needs_an_id() -> None:
    with pytest.raises(TypeError, match="needs an id"):
        WorkflowBuilder(split_claims, name="w").add_edge(split_claims, fact_check())


class HumanGate:
    """Forwards a child's question to the outside and sends the answer back down."""

    id = "human_gate"

    @handler
    async def on_request(
        self,
        msg: SubWorkflowRequest[NeedSource, str],
        ctx: WorkflowContext[SubWorkflowResponse[str]],
    ) -> None:
        await ctx.request(msg, str, context={"child": msg.child_run_id})

    @response_handler
    async def on_answer(
        self,
        msg: SubWorkflowRequest[NeedSource, str],
        source: str,
        ctx: WorkflowContext[SubWorkflowResponse[str]],
    ) -> None:
        await ctx.send(msg.create_response(source))


def gated_check(store: CheckpointStore | str) -> Workflow[str, str]:
    return (
        WorkflowBuilder(split_claims, name="gated-check", checkpoints=store)
        .add(fact_check(), id="fact_check")
        .add_edge(split_claims, "fact_check")
        .add_edge("fact_check", HumanGate())
        .add_edge("human_gate", "fact_check")
        .add_fan_in(["fact_check"], tally)
        .build()
    )


async def test_sub_workflow_asking_its_parent_pauses_saves_and_resumes_in_a_fresh_run(
    tmp_path: Path,
) -> None:
    path = str(tmp_path / "runs.db")
    paused = await gated_check(path).run("Otters hold hands. Otters can fly", run_id="g")
    assert paused.status == "paused"
    assert len(paused.requests) == 2

    fresh = gated_check(path)  # a new definition object, reading only what the store holds
    snapshot = await fresh.inspect("g")
    assert snapshot.status == "paused"
    asked = [r.data for r in snapshot.requests]
    assert all(isinstance(a, SubWorkflowRequest) for a in asked)
    assert sorted(a.request.data.claim for a in asked) == ["Otters can fly", "Otters hold hands"]
    assert all(a.request.response_type is str for a in asked)
    answers = [r.create_response(ARCHIVE) for r in snapshot.requests]
    done = await fresh.run(responses=answers, run_id="g")
    assert done.status == "completed"
    assert done.output == "1/2 claims supported"

    store = SqliteCheckpointStore(path)
    try:
        infos = await store.list_checkpoints("g")
        assert [i.status for i in infos][-1] == "completed"
        for info in infos:  # every checkpoint, with sub-workflow messages in flight, reads back
            record = await store.load("g", info.checkpoint_id)
            assert record is not None
            assert fresh.restore(record).checkpoint_id == info.checkpoint_id
    finally:
        store.close()


def test_a_sub_workflow_node_made_by_hand_brings_its_childs_types_like_an_added_workflow() -> None:
    # the builder asks whether a node is a SubWorkflowExecutor without importing its
    # module; a node made by hand (the module loaded by the user) must still be seen
    child = fact_check()
    by_hand = (
        WorkflowBuilder(split_claims, name="by-hand")
        .add(SubWorkflowExecutor(child, id="fact_check"))
        .add_edge(split_claims, "fact_check")
        .add_edge("fact_check", HumanGate())
        .add_edge("human_gate", "fact_check")
        .add_fan_in(["fact_check"], tally)
        .build()
    )
    added = gated_check(InMemoryCheckpointStore())
    child_keys = set(child.checkpoint_types.values())
    assert "tests.workflows._nested_flows:NeedSource" in child_keys
    assert child_keys <= set(by_hand.checkpoint_types.values())
    assert set(by_hand.checkpoint_types.values()) == set(added.checkpoint_types.values())


async def test_sub_workflow_messages_in_flight_round_trip_as_json() -> None:
    store = InMemoryCheckpointStore()
    workflow = gated_check(store)
    paused = await workflow.run("Otters hold hands", run_id="j")
    [request] = paused.requests
    answered = await workflow.run(responses=[request.create_response(ARCHIVE)], run_id="j")
    assert answered.output == "1/1 claims supported"
    infos = await store.list_checkpoints("j")
    inbox_types: set[str] = set()
    for info in infos:
        record = await store.load("j", info.checkpoint_id)
        assert record is not None
        for item in json.loads(record.payload)["data"]["inbox"]:
            inbox_types.add(item["message"]["type"].split("[")[0])
        assert "<class" not in record.payload
    assert {
        "agentcore.workflows._subtypes:SubWorkflowRequest",
        "agentcore.workflows._subtypes:SubWorkflowResponse",
    } <= inbox_types


async def test_a_stored_sub_workflow_message_of_an_unknown_child_type_is_refused() -> None:
    store = InMemoryCheckpointStore()
    paused = await gated_check(store).run("Otters hold hands", run_id="u")
    text = to_json(paused.checkpoint).replace(
        "tests.workflows._nested_flows:NeedSource", "evil.module:Payload"
    )
    with pytest.raises(CheckpointError, match=r"evil\.module:Payload"):
        gated_check(store).restore(text)


def article_check_by_hand(store: CheckpointStore | None = None) -> Workflow[str, str]:
    return (
        WorkflowBuilder(split_claims, name="article-check-manual", checkpoints=store)
        .add(fact_check(), id="fact_check", forward_requests="caller")
        .add_edge(split_claims, "fact_check")
        .add_fan_in(["fact_check"], tally)
        .build()
    )


async def test_forward_requests_caller_surfaces_requests_with_path() -> None:
    workflow = article_check_by_hand()
    paused = await workflow.run("Otters hold hands. Otters can fly")
    assert paused.status == "paused"
    assert len(paused.requests) == 2
    for request in paused.requests:
        assert request.path == ("fact_check",)
        assert request.executor_id == "fact_check"
        assert isinstance(request.data, NeedSource)
    first, second = paused.requests
    # answered from JSON, one at a time: the join waits for both children
    half = await workflow.run(
        responses=[first.create_response(ARCHIVE)],
        checkpoint=workflow.restore(to_json(paused.checkpoint)),
    )
    assert half.status == "paused"
    assert [r.id for r in half.requests] == [second.id]
    done = await workflow.run(
        responses=[second.create_response(ARCHIVE)], checkpoint=half.checkpoint
    )
    assert done.output == "1/2 claims supported"
    with pytest.raises(TypeError):
        first.create_response(42)


async def test_forward_requests_caller_through_a_store_and_refuses_a_repeated_answer() -> None:
    from agentcore.workflows import UnknownRequestError

    store = InMemoryCheckpointStore()
    workflow = article_check_by_hand(store)
    paused = await workflow.run("Otters hold hands", run_id="m1")
    [request] = paused.requests
    done = await workflow.run(responses=[request.create_response(ARCHIVE)], run_id="m1")
    assert done.output == "1/1 claims supported"
    with pytest.raises(UnknownRequestError):
        await workflow.run(responses=[request.create_response(ARCHIVE)], run_id="m1")


async def test_forward_requests_is_for_sub_workflows_only() -> None:
    with pytest.raises(TypeError, match="sub-workflows only"):
        WorkflowBuilder(split_claims, name="x").add(tally, forward_requests="caller")


async def test_child_events_are_prefixed_with_the_node_id() -> None:
    @executor(id="shout")
    async def shout(claim: Claim, ctx: WorkflowContext[Never, Verdict]) -> None:
        await ctx.emit(claim.text.upper(), name="loud")
        await ctx.yield_output(Verdict(claim.text, True))

    child = WorkflowBuilder(shout, name="shouter").build()
    parent = (
        WorkflowBuilder(split_claims, name="parent")
        .add(child, id="review")
        .add_edge(split_claims, "review")
        .add_fan_in(["review"], tally)
        .build()
    )
    for stream in (False, True):
        if stream:
            running = parent.run("a. b", stream=True)
            seen = [e async for e in running]
            result = await running.get_final_response()
        else:
            result = await parent.run("a. b")
            seen = list(result.events)
        emitted = [e for e in seen if e.type == "executor_event"]
        assert [(e.executor_id, e.name, e.data) for e in emitted] == [
            ("review/shout", "loud", "A"),
            ("review/shout", "loud", "B"),
        ]
        assert all(e.source == "executor" for e in emitted)
        assert result.output == "2/2 claims supported"


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("through_json", [False, True])
async def test_replayed_child_events_keep_the_node_prefix(stream: bool, through_json: bool) -> None:
    """A sub-workflow node that finished before its superstep failed is replayed on
    resume: its child's events come back as ``review/shout``, not as ``review``."""
    from agentcore.workflows import WorkflowRunResult

    down = [True]

    @executor(id="shout")
    async def shout(claim: Claim, ctx: WorkflowContext[Never, Verdict]) -> None:
        await ctx.emit(claim.text.upper(), name="loud")
        await ctx.yield_output(Verdict(claim.text, True))

    @executor
    async def doubter(claim: Claim, ctx: WorkflowContext[Verdict]) -> None:
        if down[0]:
            raise RuntimeError("the doubter is out")
        await ctx.send(Verdict(claim.text, False))

    child = WorkflowBuilder(shout, name="shouter").build()
    parent = (
        WorkflowBuilder(split_claims, name="parent")
        .add(child, id="review")
        .add_fan_out(split_claims, ["review", doubter])
        .add_fan_in(["review", doubter], tally)
        .build()
    )
    # one invocation at a time, in commit order: review finishes before doubter fails
    with pytest.raises(ExecutorFailedError) as info:
        await parent.run("a", max_concurrency=1)
    failed = info.value.checkpoint
    assert failed is not None
    assert failed.state is not None
    [(ordinal, done)] = failed.state.finished.items()
    assert done.executor_id == "review"
    if through_json:
        failed = parent.restore(to_json(failed))
    down[0] = False
    result: WorkflowRunResult[str]
    if stream:
        running = parent.run(checkpoint=failed, stream=True)
        seen = [e async for e in running]
        result = await running.get_final_response()
    else:
        result = await parent.run(checkpoint=failed)
        seen = list(result.events)
    replayed = [e for e in seen if e.type == "executor_replayed"]
    assert [(e.executor_id, e.ordinal) for e in replayed] == [("review", ordinal)]
    emitted = [(e.executor_id, e.name, e.data) for e in seen if e.type == "executor_event"]
    assert emitted == [("review/shout", "loud", "A")]
    assert result.output == "1/2 claims supported"


@pytest.mark.parametrize("stream", [False, True])
async def test_a_branch_wrapped_as_subworkflow_crosses_one_parent_barrier(stream: bool) -> None:
    """Design 3.5 (P9): a two-step branch wrapped as a sub-workflow runs both steps
    inside one parent invocation, so its second step runs while its slow sibling is
    still in the parent's superstep (unwrapped, it would wait for the barrier: see
    test_runs.py::test_a_fast_branch_waits_at_the_barrier)."""
    import anyio

    from agentcore.workflows import WorkflowRunResult

    order: list[str] = []
    second_step_ran = anyio.Event()

    @executor
    async def go(n: int, ctx: WorkflowContext[int]) -> None:
        await ctx.send(n)

    @executor(id="slow")
    async def slow(n: int, ctx: WorkflowContext[Never, str]) -> None:
        with anyio.fail_after(10):  # a hang guard: crossing the barrier would deadlock here
            await second_step_ran.wait()
        order.append("slow done")
        await ctx.yield_output("slow")

    @executor(id="fast")
    async def fast(n: int) -> str:
        order.append("fast done")
        return "fast"

    @executor(id="next")
    async def after_fast(text: str, ctx: WorkflowContext[Never, str]) -> None:
        order.append("after fast")
        second_step_ran.set()
        await ctx.yield_output(text)

    branch = WorkflowBuilder(fast, name="branch").add_edge(fast, after_fast).build()

    @executor(id="done")
    async def done(text: str, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(text)

    workflow = (
        WorkflowBuilder(go, name="w", outputs_from=[slow, done])
        .add(branch, id="branch")
        .add_fan_out(go, [slow, "branch"])
        .add_edge("branch", done)
        .build()
    )
    result: WorkflowRunResult[str]
    if stream:
        running = workflow.run(1, stream=True)
        seen = [e async for e in running]
        result = await running.get_final_response()
    else:
        result = await workflow.run(1)
        seen = list(result.events)
    assert order == ["fast done", "after fast", "slow done"]
    # go, then slow beside the whole branch, then the branch's output on to done
    started = [e.superstep for e in seen if e.type == "superstep_started"]
    assert started == [1, 2, 3]
    assert result.outputs == ("slow", "fast")


async def test_nested_three_levels_resume_across_process(tmp_path: Path) -> None:
    """A grandchild's question reaches the caller through two levels; one process
    pauses and exits, a fresh one reads the SQLite file, answers and completes."""
    db = str(tmp_path / "nested.db")

    def step(name: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "tests.workflows._nested_flows", db, name],
            cwd=Path(__file__).parents[2],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        return done.stdout.strip()

    assert await anyio.to_thread.run_sync(step, "start") == "paused 2"
    assert await anyio.to_thread.run_sync(step, "answer") == (
        "review review/fact_check Otters hold hands\n"
        "review review/fact_check Otters can fly\n"
        "completed 1/2 claims supported"
    )
    store = SqliteCheckpointStore(db)
    try:
        [latest] = await store.runs()
    finally:
        store.close()
    assert (latest.run_id, latest.status) == (nested.RUN_ID, "completed")
    # the same answers in this process give the same result as the two processes did
    workflow = nested.article_check()
    paused = await workflow.run("Otters hold hands. Otters can fly")
    answers = [r.create_response(nested.ARCHIVE) for r in paused.requests]
    done = await workflow.run(responses=answers, checkpoint=paused.checkpoint)
    assert done.output == "1/2 claims supported"
