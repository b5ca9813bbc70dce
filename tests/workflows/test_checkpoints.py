"""Checkpoints: JSON through the kernel's converter, reading only registered types,
a versioned format with a fixture, stores by protocol, resume in another process."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from typing_extensions import Never

from agentcore.errors import RunStateError
from agentcore.serialization import to_json
from agentcore.workflows import (
    CHECKPOINT_FORMAT,
    CheckpointError,
    CheckpointIncompatibleError,
    CheckpointStore,
    ExecutorFailedError,
    InMemoryCheckpointStore,
    SqliteCheckpointStore,
    WorkflowBuilder,
    WorkflowContext,
    executor,
)
from tests.workflows._checkpoint_flows import BATCH, Decision, Expense, GateState, expenses

pytestmark = pytest.mark.anyio
FIXTURES = Path(__file__).parent / "fixtures"
ROOT = Path(__file__).parents[2]


async def test_paused_checkpoint_round_trips_through_to_json_and_resumes() -> None:
    workflow = expenses()
    paused = await workflow.run(BATCH)
    assert paused.checkpoint is not None
    text = to_json(paused.checkpoint)
    document = json.loads(text)
    assert document["kind"] == "WorkflowCheckpoint"
    assert document["data"]["format"] == CHECKPOINT_FORMAT
    [request] = document["data"]["requests"]
    assert request["data"] == {
        "type": "tests.workflows._checkpoint_flows:Question",
        "value": {"expense_id": "e-2", "amount": 1200.0},
    }
    assert request["response_type"] == "builtins:bool"
    assert request["context"] == {"n": 0}
    assert document["data"]["executor_state"]["gate"]["value"] == {"asked": 1}
    [buffered] = document["data"]["fan_in"]["g1"]
    assert buffered["message"]["value"] == {"expense_id": "e-1", "approved": True}

    restored = expenses().restore(text)
    assert restored == paused.checkpoint
    assert restored.state is not None
    assert restored.state.states == {"gate": GateState(1)}
    [question] = restored.requests
    done = await expenses().run(responses=[question.create_response(False)], checkpoint=restored)
    assert done.output == "e-1=True, e-2=False"


async def test_unknown_type_key_is_checkpoint_error_and_reading_never_imports() -> None:
    paused = await expenses().run(BATCH)
    assert paused.checkpoint is not None
    document = json.loads(to_json(paused.checkpoint))
    document["data"]["requests"][0]["data"]["type"] = "shelve:Shelf"
    before = set(sys.modules)
    with pytest.raises(CheckpointError, match="'shelve:Shelf', which this workflow does not know"):
        expenses().restore(json.dumps(document))
    assert "shelve" not in sys.modules
    assert set(sys.modules) == before


async def test_renamed_type_is_read_through_an_alias() -> None:
    paused = await expenses().run(BATCH)
    assert paused.checkpoint is not None
    text = to_json(paused.checkpoint).replace(
        "tests.workflows._checkpoint_flows:Question", "old.module:Question"
    )
    with pytest.raises(CheckpointError):
        expenses().restore(text)
    from tests.workflows import _checkpoint_flows as flows

    gate = flows.Gate()
    aliased = (
        WorkflowBuilder(flows.split, name="expense-approval")
        .register_type(flows.Question, aliases=["old.module:Question"])
        .add_edge(flows.split, gate)
        .add_fan_in([gate], flows.ledger)
        .build()
    )
    [question] = aliased.restore(text).requests
    assert question.data == flows.Question("e-2", 1200.0)


async def test_newer_format_and_foreign_documents_are_refused() -> None:
    paused = await expenses().run(BATCH)
    assert paused.checkpoint is not None
    document = json.loads(to_json(paused.checkpoint))
    document["data"]["format"] = CHECKPOINT_FORMAT + 1
    with pytest.raises(CheckpointError, match="newer agentcore"):
        expenses().restore(json.dumps(document))
    with pytest.raises(CheckpointError, match="must be JSON"):
        expenses().restore("{not json")
    with pytest.raises(CheckpointError, match="not a workflow checkpoint"):
        expenses().restore('{"kind": "Message"}')
    document["data"]["format"] = 1
    document["data"]["workflow"]["name"] = "other"
    with pytest.raises(CheckpointError, match="belongs to workflow 'other'"):
        expenses().restore(json.dumps(document))


async def test_resume_from_checkpoint_written_by_format_1_fixture() -> None:
    """checkpoint_v1.json was written by format 1 (a pending request, a buffered fan-in
    and executor state); every later release must resume it to the same output."""
    text = (FIXTURES / "checkpoint_v1.json").read_text(encoding="utf-8")
    workflow = expenses()
    checkpoint = workflow.restore(text)
    assert checkpoint.status == "paused"
    [question] = checkpoint.requests
    done = await workflow.run(responses=[question.create_response(True)], checkpoint=checkpoint)
    assert done.output == "e-1=True, e-2=True"


async def test_compatible_definition_change_resumes_and_incompatible_lists_problems() -> None:
    from tests.workflows import _checkpoint_flows as flows

    paused = await expenses().run(BATCH)
    assert paused.checkpoint is not None
    text = to_json(paused.checkpoint)

    @executor
    async def audit(expense: Expense) -> None:
        del expense

    gate = flows.Gate()
    grown = (
        WorkflowBuilder(flows.split, name="expense-approval")
        .add_fan_out(flows.split, [gate, audit])
        .add_fan_in([gate], flows.ledger)
        .build()
    )
    [question] = grown.restore(text).requests
    done = await grown.run(
        responses=[question.create_response(True)], checkpoint=grown.restore(text)
    )
    assert done.output == "e-1=True, e-2=True"

    @executor(id="gate")
    async def plain_gate(expense: Expense, ctx: WorkflowContext[Decision]) -> None:
        await ctx.send(Decision(expense.id, True))

    @executor(id="ledger")
    async def no_join(d: Decision) -> None:
        del d

    shrunk = (
        WorkflowBuilder(flows.split, name="expense-approval")
        .register_type(GateState)
        .register_type(flows.Question)
        .register_type(bool)
        .add_edge(flows.split, plain_gate)
        .add_edge(plain_gate, no_join)
        .build()
    )
    with pytest.raises(CheckpointIncompatibleError) as info:
        shrunk.restore(text)
    problems = info.value.problems
    assert any("holds a GateState state" in p for p in problems)
    assert any("no response handler" in p for p in problems)
    assert any("fan-in g1 holds messages but is gone" in p for p in problems)


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[CheckpointStore]:
    if request.param == "memory":
        yield InMemoryCheckpointStore()
        return
    sqlite = SqliteCheckpointStore(tmp_path / "runs.db")
    yield sqlite
    sqlite.close()


async def test_store_keeps_the_lineage_and_resumes_by_run_id(store: CheckpointStore) -> None:
    workflow = expenses(store)
    paused = await workflow.run(BATCH, run_id="r1")
    snapshot = await workflow.inspect("r1")
    assert snapshot.status == "paused"
    assert snapshot.workflow_version == "1"
    assert snapshot.checkpoint_id == paused.checkpoint_id
    [question] = snapshot.requests
    done = await workflow.run(responses=[question.create_response(True)], run_id="r1")
    assert done.output == "e-1=True, e-2=True"
    infos = await store.list_checkpoints("r1")
    assert [i.status for i in infos][-1] == "completed"
    assert "paused" in [i.status for i in infos]
    for parent, child in itertools.pairwise(infos):
        assert child.parent_id == parent.checkpoint_id
    with pytest.raises(RunStateError, match="no run 'nope'"):
        await workflow.inspect("nope")
    await store.delete("r1")
    assert await store.load("r1") is None


async def test_answering_twice_through_the_store_is_refused_before_work(
    store: CheckpointStore,
) -> None:
    from agentcore.workflows import UnknownRequestError

    workflow = expenses(store)
    paused = await workflow.run(BATCH, run_id="r2")
    [question] = paused.requests
    await workflow.run(responses=[question.create_response(True)], run_id="r2")
    saved = len(await store.list_checkpoints("r2"))
    with pytest.raises(UnknownRequestError):
        await workflow.run(responses=[question.create_response(True)], run_id="r2")
    assert len(await store.list_checkpoints("r2")) == saved


async def test_failed_run_resumes_from_the_store_after_the_fix(store: CheckpointStore) -> None:
    broken = {"on": True}

    @executor
    async def first(n: int) -> str:
        return str(n)

    @executor
    async def second(text: str, ctx: WorkflowContext[Never, str]) -> None:
        if broken["on"]:
            raise RuntimeError("not yet")
        await ctx.yield_output(text + "!")

    workflow = (
        WorkflowBuilder(first, name="fragile", checkpoints=store).add_edge(first, second).build()
    )
    with pytest.raises(ExecutorFailedError) as info:
        await workflow.run(7, run_id="f1")
    assert info.value.checkpoint_id is not None
    latest = await store.load("f1")
    assert latest is not None
    assert latest.status == "failed"
    assert latest.checkpoint_id == info.value.checkpoint_id
    broken["on"] = False
    done = await workflow.run(run_id="f1")
    assert done.output == "7!"
    assert done.supersteps == 1


async def test_cancelling_the_caller_leaves_a_resumable_run(store: CheckpointStore) -> None:
    gate, started = anyio.Event(), anyio.Event()

    @executor
    async def first(n: int) -> str:
        return str(n)

    @executor
    async def slow(text: str, ctx: WorkflowContext[Never, str]) -> None:
        if not gate.is_set():
            started.set()
            await anyio.sleep(10)
        await ctx.yield_output(text)

    async def cancel_when_started(scope: anyio.CancelScope) -> None:
        await started.wait()
        scope.cancel()

    workflow = WorkflowBuilder(first, name="slow", checkpoints=store).add_edge(first, slow).build()
    async with anyio.create_task_group() as tg:  # cancelled mid-superstep 2, not by a clock
        tg.start_soon(cancel_when_started, tg.cancel_scope)
        await workflow.run(3, run_id="c1")
    latest = await store.load("c1")
    assert latest is not None
    assert latest.status == "cancelled"
    gate.set()
    assert (await workflow.run(run_id="c1")).output == "3"


async def test_resume_in_another_process(tmp_path: Path) -> None:
    path = str(tmp_path / "shared.db")

    def step(name: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "tests.workflows._checkpoint_flows", path, name],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        return done.stdout.strip()

    assert await anyio.to_thread.run_sync(step, "start") == "paused 1"
    assert await anyio.to_thread.run_sync(step, "answer") == (
        "paused e-2\ncompleted e-1=True, e-2=True"
    )
    store = SqliteCheckpointStore(path)
    try:
        statuses = [i.status for i in await store.list_checkpoints("expense-run")]
    finally:
        store.close()
    assert statuses[0] == "running"
    assert "paused" in statuses
    assert statuses[-1] == "completed"


async def test_a_path_opens_a_sqlite_store_and_bad_stores_are_refused(tmp_path: Path) -> None:
    workflow = expenses(str(tmp_path / "by-path.db"))
    paused = await workflow.run(BATCH, run_id="p")
    assert (await workflow.inspect("p")).checkpoint_id == paused.checkpoint_id
    with pytest.raises(TypeError, match="CheckpointStore or a SQLite path"):
        expenses(object())  # type: ignore[arg-type]  # the wrong store under test
