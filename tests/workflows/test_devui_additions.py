"""The small public pieces a dev UI reads: stores that list their runs
(``SupportsListRuns``), a pending request presented as ``request_info`` arguments
(``RequestInfoArguments.from_request``), and the store a workflow was built with
(``Workflow.checkpoint_store``)."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest

from agentcore import FunctionCallContent, Message
from agentcore.workflows import (
    CheckpointStore,
    InMemoryCheckpointStore,
    RequestInfoArguments,
    SqliteCheckpointStore,
    SupportsListRuns,
    WorkflowBuilder,
)

from ._described_flows import Expense, Question, emit, expenses
from ._list_runs_conformance import check_list_runs

pytestmark = pytest.mark.anyio


async def test_the_in_memory_store_lists_runs_as_the_protocol_says() -> None:
    await check_list_runs(InMemoryCheckpointStore())


async def test_the_sqlite_store_lists_runs_as_the_protocol_says(tmp_path: Path) -> None:
    store = SqliteCheckpointStore(tmp_path / "runs.db")
    try:
        await check_list_runs(store)
    finally:
        store.close()


def test_a_store_without_runs_is_not_one() -> None:
    class Plain:
        async def save(self, record: object) -> None: ...

    assert not isinstance(Plain(), SupportsListRuns)


async def test_from_request_presents_a_pending_request_with_its_answer_schema() -> None:
    result = await expenses().run(Expense("e-7", 500.0))
    [request] = result.requests
    arguments = RequestInfoArguments.from_request(request)
    assert arguments == RequestInfoArguments(
        request.id,
        "approver",
        "tests.workflows._described_flows:Question",
        {"expense_id": "e-7", "amount": 500.0},
        "builtins:bool",
        {"type": "boolean"},
        (),
    )
    assert request.data == Question("e-7", 500.0)
    assert RequestInfoArguments.from_dict(arguments.to_dict()) == arguments


async def test_from_request_is_what_a_workflow_agent_asks_its_caller() -> None:
    workflow = expenses()
    [request] = (await workflow.run(Expense("e-8", 900.0))).requests
    agent = workflow.as_agent(
        input_adapter=lambda _: Expense("e-8", 900.0),
        output_adapter=lambda decision: [Message("assistant", str(decision))],
    )
    response = await agent.run("file it")
    [call] = [
        c for m in response.messages for c in m.contents if isinstance(c, FunctionCallContent)
    ]
    asked = RequestInfoArguments.from_call(call)
    # the same question in another run: the same arguments but for the request's id
    assert attrs.evolve(asked, request_id=request.id) == RequestInfoArguments.from_request(request)


async def test_from_request_keeps_the_sub_workflow_path() -> None:
    from ._described_flows import subworkflow

    result = await subworkflow().run("x" * 150)  # above 100: a person approves it
    [request] = result.requests
    arguments = RequestInfoArguments.from_request(request)
    assert arguments.path == ("review",) == request.path
    assert arguments.response_schema == {"type": "boolean"}


def test_checkpoint_store_is_the_store_given_at_build_or_none(tmp_path: Path) -> None:
    store = InMemoryCheckpointStore()
    built: CheckpointStore | None = expenses().checkpoint_store
    assert built is None
    with_store = WorkflowBuilder(emit, name="kept", checkpoints=store).build()
    assert with_store.checkpoint_store is store
    from_path = WorkflowBuilder(emit, name="file", checkpoints=tmp_path / "c.db").build()
    assert isinstance(from_path.checkpoint_store, SqliteCheckpointStore)
    assert from_path.checkpoint_store.path == str(tmp_path / "c.db")
    from_path.checkpoint_store.close()
