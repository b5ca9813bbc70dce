"""A workflow as an agent: SupportsAgentRun, sessions as runs, and seed 002's
``request_info`` bridge for pending requests."""

from __future__ import annotations

from typing import Any, cast

import attrs
import pytest
from typing_extensions import Never

from agentcore import (
    AgentResponse,
    AgentSession,
    FunctionCallContent,
    FunctionInvocationConfiguration,
    FunctionResultContent,
    Message,
    SupportsAgentRun,
)
from agentcore.errors import RunStateError
from agentcore.serialization import from_json, to_json
from agentcore.workflows import (
    REQUEST_INFO_TOOL_NAME,
    RequestInfoArguments,
    WorkflowAgent,
    WorkflowBuilder,
    WorkflowContext,
    executor,
    handler,
    response_handler,
)

pytestmark = pytest.mark.anyio


@attrs.frozen
class Approve:
    amount: float


class Gate:
    id = "gate"

    @handler
    async def on_text(self, text: str, ctx: WorkflowContext[Never, str]) -> None:
        amount = float(text.split()[-1])
        if amount <= 100:
            await ctx.yield_output(f"filed {amount:.0f}")
            return
        await ctx.request(Approve(amount), bool)

    @response_handler
    async def on_answer(self, ask: Approve, ok: bool, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(f"{'approved' if ok else 'rejected'} {ask.amount:.0f}")


def expenses() -> WorkflowAgent:
    return WorkflowBuilder(Gate(), name="expenses").build().as_agent(name="expenses")


def reply(call_id: str, value: object) -> Message:
    return Message("user", [FunctionResultContent(call_id, value)])


def calls(response: Any) -> list[FunctionCallContent]:
    return [
        c
        for m in response.messages
        for c in m.contents
        if isinstance(c, FunctionCallContent) and c.name == REQUEST_INFO_TOOL_NAME
    ]


async def test_workflow_agent_satisfies_supports_agent_run() -> None:
    agent: SupportsAgentRun = expenses()
    assert isinstance(agent, SupportsAgentRun)
    assert agent.name == "expenses"
    response = await agent.run("hotel 40")
    assert response.text == "filed 40"


async def test_request_info_call_and_function_result_round_trip() -> None:
    agent = expenses()
    session = agent.create_session()
    response = await agent.run("hotel 1200", session=session)
    [call] = calls(response)
    args = RequestInfoArguments.from_call(call)
    assert args.request == {"amount": 1200.0}
    assert args.response_schema == {"type": "boolean"}
    assert args.response_type == "builtins:bool"
    assert args.executor_id == "gate"
    answered = await agent.run(Message("user", [args.create_result(True)]), session=session)
    assert answered.text == "approved 1200"
    assert calls(answered) == []


async def test_request_info_arguments_from_dict_rejects_missing_or_empty_id() -> None:
    with pytest.raises(ValueError, match="request_id"):
        RequestInfoArguments.from_dict({"request": {}})
    with pytest.raises(ValueError, match="request_id"):
        RequestInfoArguments.from_dict({"request_id": "", "request": {}})
    with pytest.raises(ValueError, match="'request'"):
        RequestInfoArguments.from_dict({"request_id": "r"})
    with pytest.raises(ValueError, match="not a request_info call"):
        RequestInfoArguments.from_call(FunctionCallContent("c", "other", {}))
    args = RequestInfoArguments("r", "e", "k", {"a": 1}, "builtins:int", None, ("sub",))
    assert RequestInfoArguments.from_dict(args.to_dict()) == args
    assert (
        RequestInfoArguments.from_call(
            FunctionCallContent("r", "request_info", '{"request_id": "r", "request": 1}')
        ).request
        == 1
    )


async def test_function_result_for_unknown_call_id_or_wrong_type_raises_run_state_error() -> None:
    agent = expenses()
    session = agent.create_session()
    await agent.run("hotel 1200", session=session)
    with pytest.raises(RunStateError, match="no pending request has id 'nope'"):
        await agent.run(reply("nope", True), session=session)
    [call] = calls(await agent.run("hotel 1300", session=session))
    with pytest.raises(RunStateError, match="does not fit bool"):
        await agent.run(reply(call.call_id, "yes"), session=session)
    answered = await agent.run(reply(call.call_id, False), session=session)
    assert answered.text == "rejected 1300"


async def test_paused_workflow_agent_session_round_trips_through_to_json() -> None:
    agent = expenses()
    session = agent.create_session()
    [call] = calls(await agent.run("hotel 1200", session=session))
    restored = from_json(to_json(session), AgentSession)
    done = await expenses().run(reply(call.call_id, True), session=restored)
    assert done.text == "approved 1200"


async def test_new_user_message_cancels_pending_requests() -> None:
    agent = expenses()
    session = agent.create_session()
    [call] = calls(await agent.run("hotel 1200", session=session))
    response = await agent.run("taxi 30", session=session)
    assert response.text == "filed 30"
    with pytest.raises(RunStateError):
        await agent.run(reply(call.call_id, True), session=session)


async def test_streaming_workflow_agent_final_equals_non_streaming() -> None:
    agent = expenses()
    plain = await agent.run("hotel 40")
    stream = agent.run("hotel 40", stream=True)
    updates = [u async for u in stream]
    final = await stream.get_final_response()
    assert final.text == plain.text == "filed 40"
    assert "".join(u.text for u in updates) == "filed 40"


@pytest.mark.parametrize("stream", [False, True])
async def test_a_turn_of_several_messages_folds_back_into_as_many(stream: bool) -> None:
    @executor
    async def two_outputs(text: str, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(f"first: {text}")
        await ctx.yield_output(f"second: {text}")

    agent = WorkflowBuilder(two_outputs, name="two").build().as_agent()
    if stream:
        running = agent.run("go", stream=True)
        updates = [u async for u in running]
        response = await running.get_final_response()
        # what a caller folding the updates itself reads: the same two messages
        folded = AgentResponse.from_updates(updates)
        assert [m.text for m in folded.messages] == ["first: go", "second: go"]
        assert [m.message_id for m in folded.messages] == [m.message_id for m in response.messages]
    else:
        response = await agent.run("go")
    assert [m.text for m in response.messages] == ["first: go", "second: go"]
    first, second = (m.message_id for m in response.messages)
    assert None not in (first, second)
    assert first != second


async def test_as_agent_refuses_unconvertible_input_or_output_types() -> None:
    @executor
    async def numbers(n: int, ctx: WorkflowContext[Never, int]) -> None:
        await ctx.yield_output(n)

    workflow = WorkflowBuilder(numbers, name="numbers").build()
    with pytest.raises(TypeError, match="input_adapter"):
        workflow.as_agent()
    with pytest.raises(TypeError, match="output_adapter"):
        workflow.as_agent(input_adapter=lambda messages: len(messages))
    adapted = workflow.as_agent(
        input_adapter=lambda messages: len(messages[-1].text),
        output_adapter=lambda n: [Message("assistant", f"{n} characters")],
    )
    assert (await adapted.run("four")).text == "4 characters"


async def test_request_info_tool_declares_the_calls_arguments_and_is_not_run_here() -> None:
    agent = expenses()
    tool = agent.request_info_tool
    assert tool.name == REQUEST_INFO_TOOL_NAME
    schema = tool.declaration()["parameters"]
    response = await agent.run("hotel 1200", session=agent.create_session())
    [call] = calls(response)
    arguments = RequestInfoArguments.from_call(call).to_dict()
    assert set(arguments) == set(schema["properties"])
    assert set(schema["required"]) <= set(arguments)
    parsed = tool.parse_arguments(arguments)  # the call's own arguments fit the declaration
    assert parsed["request_id"] == call.call_id
    FunctionInvocationConfiguration(additional_tools=[tool])  # accepted as caller-side
    with pytest.raises(RunStateError, match="answered by the caller"):
        tool(**parsed)


@pytest.mark.parametrize("stream", [False, True])
async def test_a_workflow_agent_inside_a_run_takes_its_ids_from_that_run(stream: bool) -> None:
    """Run as an agent executor of another workflow, a workflow agent's own run and
    checkpoint ids derive from the outer run's id source: seeded, they repeat exactly;
    by default, they are random."""
    from agentcore.workflows import CheckpointRecord, InMemoryCheckpointStore, SeededIds

    class Recording(InMemoryCheckpointStore):
        def __init__(self) -> None:
            super().__init__()
            self.saved: list[tuple[str, str]] = []

        async def save(self, record: CheckpointRecord) -> None:
            self.saved.append((record.run_id, record.checkpoint_id))
            await super().save(record)

    @executor(id="echo")
    async def echo(text: str, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(f"echo: {text}")

    @executor(id="desk")
    async def desk(text: str, ctx: WorkflowContext[str]) -> None:
        await ctx.send(text)

    async def inner_ids(ids: SeededIds | None) -> list[tuple[str, str]]:
        store = Recording()
        helper = WorkflowBuilder(echo, name="helper", checkpoints=store).build()
        outer = WorkflowBuilder(desk, name="outer").add_edge(desk, helper.as_agent()).build()
        if stream:
            running = outer.run("hello", ids=ids, stream=True)
            async for _ in running:
                pass
            result = await running.get_final_response()
        else:
            result = await outer.run("hello", ids=ids)
        assert result.outputs[0].text == "echo: hello"
        return store.saved

    seeded = await inner_ids(SeededIds(7))
    assert seeded
    assert await inner_ids(SeededIds(7)) == seeded
    assert await inner_ids(SeededIds(8)) != seeded
    assert await inner_ids(None) != await inner_ids(None)


@pytest.mark.parametrize("stream", [False, True])
async def test_with_a_store_the_session_keeps_the_run_id_and_the_store_keeps_the_run(
    stream: bool, tmp_path: Any
) -> None:
    from agentcore.workflows import SqliteCheckpointStore

    store = SqliteCheckpointStore(tmp_path / "runs.db")
    try:
        workflow = WorkflowBuilder(Gate(), name="expenses").build()
        agent = workflow.as_agent(name="expenses", checkpoints=store)

        async def turn(message: Any, session: AgentSession) -> Any:
            if stream:
                running = agent.run(message, session=session, stream=True)
                async for _ in running:
                    pass
                return await running.get_final_response()
            return await agent.run(message, session=session)

        session = agent.create_session()
        [call] = calls(await turn("hotel 1200", session))
        raw = session.state["agentcore.workflow"]
        assert isinstance(raw, dict)
        saved = cast("dict[str, str]", raw)
        assert set(saved) == {"run_id"}
        snapshot = await workflow.inspect(saved["run_id"], checkpoints=store)
        assert snapshot.status == "paused"
        assert [r.id for r in snapshot.requests] == [call.call_id]

        # Another agent on the same store (another process, say) answers from the
        # session saved as JSON.
        restored = from_json(to_json(session), AgentSession)
        other = workflow.as_agent(name="expenses", checkpoints=store)
        done = await other.run(reply(call.call_id, True), session=restored)
        assert done.text == "approved 1200"
        assert (await workflow.inspect(saved["run_id"], checkpoints=store)).status == "completed"

        # A new message on the completed run continues that run, under the same id.
        more = await turn("taxi 30", restored)
        assert more.text == "filed 30"
        assert restored.state["agentcore.workflow"] == saved
    finally:
        store.close()


async def test_a_session_and_an_agent_that_keep_the_run_differently_are_refused(
    tmp_path: Any,
) -> None:
    from agentcore.workflows import InMemoryCheckpointStore

    store = InMemoryCheckpointStore()
    workflow = WorkflowBuilder(Gate(), name="expenses").build()
    with_store = workflow.as_agent(checkpoints=store)
    without = workflow.as_agent()
    kept_by_store = with_store.create_session()
    await with_store.run("hotel 1200", session=kept_by_store)
    with pytest.raises(RunStateError, match=r"pass the same store to as_agent\(checkpoints="):
        await without.run("taxi 30", session=kept_by_store)
    kept_in_session = without.create_session()
    await without.run("hotel 1200", session=kept_in_session)
    with pytest.raises(RunStateError, match="without checkpoints="):
        await with_store.run("taxi 30", session=kept_in_session)
    gone = with_store.create_session()
    gone.state["agentcore.workflow"] = {"run_id": "r-that-was-pruned"}
    with pytest.raises(RunStateError, match="holds no run 'r-that-was-pruned'"):
        await with_store.run("taxi 30", session=gone)
    with pytest.raises(TypeError, match="checkpoints= takes a checkpoint store"):
        workflow.as_agent(checkpoints="runs.db")  # type: ignore[arg-type]  # the mistake under test
