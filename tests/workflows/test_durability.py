"""Durability modes: what a run with a store writes, and when (design §3.13 table),
counted with a store that implements the protocols, on asyncio and trio, for
``run()``, ``run(stream=True)`` and ``open_run``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import anyio
import pytest
from typing_extensions import Never

from agentcore.errors import RunStateError
from agentcore.workflows import (
    ExecutorFailedError,
    InMemoryCheckpointStore,
    SqliteCheckpointStore,
    Workflow,
    WorkflowBuilder,
    WorkflowContext,
    WorkflowRunResult,
    executor,
    handler,
    response_handler,
)
from tests.workflows._checkpoint_flows import BATCH, Gate, expenses, ledger, split
from tests.workflows._counting_store import CountingStore
from tests.workflows._replay_flows import Flow

pytestmark = pytest.mark.anyio
DONE = "counted 5 + flaky 5 (seen 5)"
How = Literal["run", "stream", "open_run"]


@pytest.fixture(params=["memory", "sqlite"])
def counting(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[CountingStore]:
    if request.param == "memory":
        yield CountingStore(InMemoryCheckpointStore())
        return
    sqlite = SqliteCheckpointStore(tmp_path / "runs.db")
    yield CountingStore(sqlite)
    sqlite.close()


@pytest.fixture(params=["run", "stream", "open_run"])
def how(request: pytest.FixtureRequest) -> How:
    value: How = request.param
    return value


async def drive(
    workflow: Workflow[Any, Any], how: How, store: CountingStore, *args: Any, **kwargs: Any
) -> WorkflowRunResult[Any]:
    """Run ``workflow`` the way ``how`` says; when streaming, check that a pause or
    completion is in the store before the stream reports it."""
    if how == "run":
        result: WorkflowRunResult[Any] = await workflow.run(*args, **kwargs)
        return result
    if how == "stream":
        stream = workflow.run(*args, stream=True, **kwargs)
        async for event in stream:
            _saved_before_reported(event, store)
        return await stream.get_final_response()
    async with workflow.open_run(*args, **kwargs) as live:
        async for event in live:
            _saved_before_reported(event, store)
        return await live.get_final_response()


def _saved_before_reported(event: Any, store: CountingStore) -> None:
    if event.type in ("run_paused", "run_completed"):
        last = store.saved[-1]
        assert last.status == event.type.removeprefix("run_")
        assert last.checkpoint_id == event.checkpoint_id


async def test_durability_modes_write_what_they_promise(
    tmp_path: Path, counting: CountingStore, how: How
) -> None:
    # sync (the default): every barrier before the next superstep, each finished
    # invocation of a superstep with several as it finishes, then the completion
    flow = Flow(tmp_path / "log", mode="ok")
    done = await drive(flow.build(counting), how, counting, 5, run_id="s")
    assert done.output == DONE
    assert counting.statuses() == ["running", "running", "running", "completed"]
    assert len(counting.writes) == 2  # superstep 2's two invocations
    assert counting.log == [
        "claim",  # before the first superstep (quick supersteps need no renewal)
        "save running",  # superstep 1 (start) committed before superstep 2 began
        "write",
        "write",
        "save running",  # superstep 2 (counted, flaky)
        "save running",  # superstep 3 (join)
        "save completed",
        "release",  # after the completion was saved
    ]
    assert done.checkpoint_id == counting.saved[-1].checkpoint_id

    # exit: nothing until the run ends, then its one checkpoint
    exit_store = CountingStore(counting.inner)
    done = await drive(flow.build(exit_store), how, exit_store, 5, run_id="e", durability="exit")
    assert done.output == DONE
    assert exit_store.log == ["claim", "save completed", "release"]
    assert exit_store.writes == []
    [record] = exit_store.saved
    assert record.checkpoint_id == done.checkpoint_id
    assert record.parent_id is None  # no unsaved barrier is named as its parent


async def test_exit_mode_writes_pauses_and_failures_and_they_resume(
    tmp_path: Path, counting: CountingStore, how: How
) -> None:
    paused = await drive(expenses(counting), how, counting, BATCH, run_id="p", durability="exit")
    assert paused.status == "paused"
    assert counting.statuses() == ["paused"]
    [question] = paused.requests
    answered = await drive(
        expenses(counting),
        how,
        counting,
        run_id="p",
        responses=[question.create_response(True)],
        durability="exit",
    )
    assert answered.output == "e-1=True, e-2=True"
    assert counting.statuses() == ["paused", "completed"]
    assert counting.saved[1].parent_id == counting.saved[0].checkpoint_id  # lineage kept

    # a failure is written (with the finished sibling's work inside the checkpoint) ...
    failing = CountingStore(counting.inner)
    flow = Flow(tmp_path / "log", mode="fail")
    flow.arm()
    with pytest.raises(ExecutorFailedError):
        await drive(flow.build(failing), how, failing, 5, run_id="f", durability="exit")
    assert failing.statuses() == ["failed"]
    assert failing.writes == []
    # ... and resumes without running the finished invocation again
    flow.mode = "ok"
    resumed = await drive(flow.build(failing), how, failing, run_id="f", durability="exit")
    assert resumed.output == DONE
    assert flow.runs() == 1
    assert failing.statuses() == ["failed", "completed"]


async def test_durability_per_run_overrides_the_builder(tmp_path: Path) -> None:
    store = CountingStore(InMemoryCheckpointStore())
    exiting = (
        WorkflowBuilder(split, name="expense-approval", checkpoints=store, durability="exit")
        .add_edge(split, Gate())
        .add_fan_in(["gate"], ledger)
        .build()
    )
    await exiting.run(BATCH, run_id="b")
    assert store.statuses() == ["paused"]
    paused = await exiting.run(BATCH, run_id="c", durability="sync")
    assert store.statuses() == ["paused", "running", "running", "paused"]
    [question] = paused.requests
    await exiting.run(responses=[question.create_response(True)], run_id="c", durability="sync")
    # the accepted answer, the two barriers after it (gate, ledger), the completion
    assert store.statuses()[4:] == ["running", "running", "running", "completed"]
    syncing = Flow(tmp_path / "log", mode="ok").build(store)
    await syncing.run(5, run_id="d", durability="exit")
    assert store.statuses()[-1:] == ["completed"]
    assert len(store.saved) == 9  # the exit run wrote only its completion


def test_a_bad_durability_is_refused_where_it_is_given() -> None:
    with pytest.raises(ValueError, match='there is no "async" mode'):
        WorkflowBuilder(split, name="x", durability="async")  # type: ignore[arg-type]  # the mistake under test
    workflow = expenses(InMemoryCheckpointStore())
    with pytest.raises(ValueError, match=r"durability must be \"sync\".*got 'never'"):
        workflow.run(BATCH, durability="never")  # type: ignore[call-overload]  # the mistake under test
    with pytest.raises(ValueError, match="durability must be"):
        workflow.open_run(BATCH, durability="always")  # type: ignore[arg-type]  # the mistake under test
    with pytest.raises(ValueError, match="claim_ttl is a number of seconds above 0"):
        WorkflowBuilder(split, name="x", claim_ttl=0)


async def test_a_long_superstep_renews_the_claim_at_its_barrier(how: How) -> None:
    """A claim is renewed at a barrier once a tenth of its ttl has passed since it was
    taken: here after a superstep that sleeps past it."""
    store = CountingStore(InMemoryCheckpointStore())

    @executor
    async def quick(n: int) -> int:
        return n

    @executor
    async def slow(n: int) -> int:
        await anyio.sleep(0.15)  # past a tenth of the 1 s ttl (a wait, not a measurement)
        return n

    @executor
    async def last(n: int, ctx: WorkflowContext[Never, int]) -> None:
        await ctx.yield_output(n)

    workflow = (
        WorkflowBuilder(quick, name="long", checkpoints=store, claim_ttl=1.0)
        .add_edge(quick, slow)
        .add_edge(slow, last)
        .build()
    )
    assert (await drive(workflow, how, store, 4, run_id="l")).output == 4
    barriers = [n for n, entry in enumerate(store.log) if entry == "save running"]
    assert len(barriers) == 3
    assert store.log[barriers[1] + 1] == "claim"  # slow's barrier renewed the claim
    assert store.log[-1] == "release"


class Crash(BaseException):
    """The process dying inside a handler: nothing after it runs, nothing more is saved
    (a failure or a cancellation would still save their own checkpoint)."""


def asking(store: CountingStore, handled: list[bool]) -> Workflow[str, str]:
    """One question; its response handler crashes the first time it runs."""

    class Desk:
        id = "desk"

        @handler
        async def on_text(self, text: str, ctx: WorkflowContext[Never, str]) -> None:
            await ctx.request(text, bool)

        @response_handler
        async def on_answer(
            self, question: str, ok: bool, ctx: WorkflowContext[Never, str]
        ) -> None:
            handled.append(ok)
            if len(handled) == 1:
                raise Crash
            await ctx.yield_output(f"{question} {ok}")

    return WorkflowBuilder(Desk(), name="desk", checkpoints=store).build()


async def crashes(
    workflow: Workflow[Any, Any], how: How, store: CountingStore, **kwargs: Any
) -> None:
    """Drive ``workflow`` into its crash (``open_run``'s task group hands it on in a group)."""
    try:
        await drive(workflow, how, store, **kwargs)
    except BaseException as exc:  # the crash under test, checked below
        leaves = getattr(exc, "exceptions", (exc,))
        assert [type(e) for e in leaves] == [Crash]
    else:
        pytest.fail("the response handler did not crash the run")


async def test_accepted_responses_are_saved_before_their_handlers_run(
    counting: CountingStore, how: How
) -> None:
    handled: list[bool] = []
    workflow = asking(counting, handled)
    paused = await drive(workflow, how, counting, "pay?", run_id="a")
    assert counting.statuses() == ["running", "paused"]
    [question] = paused.requests
    await crashes(workflow, how, counting, run_id="a", responses=[question.create_response(True)])
    # sync: the answer was saved on the inbox ("running") before the handler ran
    assert counting.statuses() == ["running", "paused", "running"]
    accepted = counting.saved[-1]
    assert accepted.parent_id == counting.saved[1].checkpoint_id
    assert workflow.restore(accepted).requests == ()  # no longer pending: on the inbox
    # so the crashed run resumes with it, asking nothing again
    done = await drive(workflow, how, counting, run_id="a")
    assert done.output == "pay? True"
    assert handled == [True, True]
    assert counting.statuses()[-2:] == ["running", "completed"]

    # exit: the accepted answer is not written; the run is still paused on the question
    exiting = CountingStore(counting.inner)
    handled.clear()
    workflow = asking(exiting, handled)
    paused = await drive(workflow, how, exiting, "pay?", run_id="b", durability="exit")
    [question] = paused.requests
    answer = question.create_response(True)
    await crashes(workflow, how, exiting, run_id="b", responses=[answer], durability="exit")
    assert exiting.statuses() == ["paused"]
    with pytest.raises(RunStateError, match="nothing to resume"):
        await drive(workflow, how, exiting, run_id="b", durability="exit")
    answer = question.create_response(False)
    done = await drive(workflow, how, exiting, run_id="b", responses=[answer], durability="exit")
    assert done.output == "pay? False"
    assert exiting.statuses() == ["paused", "completed"]
