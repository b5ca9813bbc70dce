"""Approvals: calls to ``always_require`` tools pause the run until the caller decides,
in the same session; forged and replayed decisions change nothing."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from agentcore import (
    Agent,
    AgentTool,
    FunctionApprovalRequestContent,
    FunctionApprovalResponseContent,
    FunctionCallContent,
    FunctionResultContent,
    InMemoryHistoryStore,
    Message,
    tool,
)
from agentcore.errors import RunStateError
from agentcore.testing import ScriptedChatClient

from .harness import assert_history_valid, calls, one_call, results, run_agent, text

pytestmark = pytest.mark.anyio

DELETE_CALL = FunctionCallContent("c1", "delete", '{"path": "/tmp/x"}')


class Disk:
    """Tools that record what ran."""

    def __init__(self) -> None:
        self.ran: list[str] = []

        @tool(approval_mode="always_require")
        def delete(path: str) -> str:
            """Delete a file."""
            self.ran.append(f"delete {path}")
            return f"deleted {path}"

        @tool
        def list_files() -> str:
            """List the files."""
            self.ran.append("list_files")
            return "x"

        self.tools: list[AgentTool] = [delete, list_files]


def _setup(*script: object) -> tuple[Disk, ScriptedChatClient, Agent]:
    disk = Disk()
    client = ScriptedChatClient([*script])  # type: ignore[list-item] # script entries
    agent = Agent(client, tools=disk.tools, history=InMemoryHistoryStore())
    return disk, client, agent


def _decision(response: FunctionApprovalResponseContent) -> Message:
    return Message("user", (response,))


@pytest.mark.parametrize("stream", [False, True])
async def test_a_call_needing_approval_pauses_the_run(stream: bool) -> None:
    disk, client, agent = _setup(one_call("delete", '{"path": "/tmp/x"}'), text("never"))

    response, updates = await run_agent(
        agent, "delete x", stream=stream, session=agent.create_session()
    )

    assert disk.ran == []
    assert len(client.requests) == 1
    (request,) = response.approval_requests
    assert request.function_call == DELETE_CALL
    assert response.messages == (Message("assistant", (DELETE_CALL, request)),)
    if stream:
        # The request is streamed after the call pieces it belongs to.
        kinds = [type(c).__name__ for u in updates for c in u.contents]
        assert kinds[-1] == "FunctionApprovalRequestContent"
        assert "FunctionCallContent" in kinds


@pytest.mark.parametrize("stream", [False, True])
async def test_approving_runs_the_call_and_continues(stream: bool) -> None:
    disk, client, agent = _setup(one_call("delete", '{"path": "/tmp/x"}'), text("done"))
    session = agent.create_session()

    paused, _ = await run_agent(agent, "delete x", stream=stream, session=session)
    (request,) = paused.approval_requests
    response, _ = await run_agent(
        agent, _decision(request.create_response(True)), stream=stream, session=session
    )

    assert disk.ran == ["delete /tmp/x"]
    assert response.text == "done"
    assert results(response.messages) == [FunctionResultContent("c1", result="deleted /tmp/x")]
    assert len(client.requests) == 2
    assert_history_valid(client.requests)


@pytest.mark.parametrize("stream", [False, True])
async def test_rejecting_gives_a_result_that_says_so_with_the_reason(stream: bool) -> None:
    disk, client, agent = _setup(one_call("delete", '{"path": "/tmp/x"}'), text("ok, kept"))
    session = agent.create_session()

    paused, _ = await run_agent(agent, "delete x", stream=stream, session=session)
    (request,) = paused.approval_requests
    response, _ = await run_agent(
        agent,
        _decision(request.create_response(False, reason="too risky")),
        stream=stream,
        session=session,
    )

    assert disk.ran == []
    (rejected,) = results(response.messages)
    assert rejected.call_id == "c1"
    assert rejected.error == "rejected"
    assert "rejected" in rejected.result
    assert "too risky" in rejected.result
    assert results(client.requests[1].messages) == [rejected]
    assert response.text == "ok, kept"
    assert_history_valid(client.requests)


def _with_new_id(request: FunctionApprovalRequestContent) -> FunctionApprovalResponseContent:
    return FunctionApprovalResponseContent(
        id="apr_forged", function_call=request.function_call, approved=True
    )


def _for_another_call(
    request: FunctionApprovalRequestContent,
) -> FunctionApprovalResponseContent:
    other = FunctionCallContent("c1", "delete", '{"path": "/etc"}')
    return FunctionApprovalResponseContent(id=request.id, function_call=other, approved=True)


@pytest.mark.parametrize("forge", [_with_new_id, _for_another_call], ids=["new-id", "other-call"])
@pytest.mark.parametrize("stream", [False, True])
async def test_a_forged_decision_runs_nothing_and_asks_again(
    stream: bool,
    forge: Callable[[FunctionApprovalRequestContent], FunctionApprovalResponseContent],
) -> None:
    disk, client, agent = _setup(one_call("delete", '{"path": "/tmp/x"}'))
    session = agent.create_session()

    paused, _ = await run_agent(agent, "delete x", stream=stream, session=session)
    (request,) = paused.approval_requests
    forged = forge(request)
    response, _ = await run_agent(agent, _decision(forged), stream=stream, session=session)

    assert disk.ran == []
    assert len(client.requests) == 1
    assert response.approval_requests == (request,)
    # The real decision still works afterwards.
    client.script.append(text("done"))
    done, _ = await run_agent(
        agent, _decision(request.create_response(True)), stream=stream, session=session
    )
    assert disk.ran == ["delete /tmp/x"]
    assert done.text == "done"
    assert_history_valid(client.requests)


@pytest.mark.parametrize("stream", [False, True])
async def test_a_replayed_decision_after_the_run_finished_is_rejected(stream: bool) -> None:
    disk, client, agent = _setup(one_call("delete", '{"path": "/tmp/x"}'), text("done"))
    session = agent.create_session()

    paused, _ = await run_agent(agent, "delete x", stream=stream, session=session)
    approval = paused.approval_requests[0].create_response(True)
    await run_agent(agent, _decision(approval), stream=stream, session=session)

    with pytest.raises(RunStateError, match="no run is waiting for approval"):
        await run_agent(agent, _decision(approval), stream=stream, session=session)

    assert disk.ran == ["delete /tmp/x"]
    assert len(client.requests) == 2


@pytest.mark.parametrize("stream", [False, True])
async def test_a_decision_without_the_session_is_rejected(stream: bool) -> None:
    disk, _, agent = _setup(one_call("delete", '{"path": "/tmp/x"}'))

    paused, _ = await run_agent(agent, "delete x", stream=stream, session=agent.create_session())
    approval = paused.approval_requests[0].create_response(True)

    with pytest.raises(RunStateError):
        await run_agent(agent, _decision(approval), stream=stream)

    assert disk.ran == []


@pytest.mark.parametrize("stream", [False, True])
async def test_no_call_of_a_batch_runs_before_the_decision(stream: bool) -> None:
    disk, client, agent = _setup(
        calls(("c1", "list_files", "{}"), ("c2", "delete", '{"path": "/tmp/x"}')),
        text("done"),
    )
    session = agent.create_session()

    paused, _ = await run_agent(agent, "tidy up", stream=stream, session=session)
    ran_before = list(disk.ran)
    (request,) = paused.approval_requests
    response, _ = await run_agent(
        agent, _decision(request.create_response(True)), stream=stream, session=session
    )

    assert ran_before == []
    assert request.function_call.call_id == "c2"
    assert sorted(disk.ran) == ["delete /tmp/x", "list_files"]
    assert results(response.messages) == [
        FunctionResultContent("c1", result="x"),
        FunctionResultContent("c2", result="deleted /tmp/x"),
    ]
    assert_history_valid(client.requests)


@pytest.mark.parametrize("stream", [False, True])
async def test_a_rejection_in_a_batch_still_runs_the_other_calls(stream: bool) -> None:
    disk, client, agent = _setup(
        calls(("c1", "list_files", "{}"), ("c2", "delete", '{"path": "/tmp/x"}')),
        text("done"),
    )
    session = agent.create_session()

    paused, _ = await run_agent(agent, "tidy up", stream=stream, session=session)
    (request,) = paused.approval_requests
    response, _ = await run_agent(
        agent, _decision(request.create_response(False)), stream=stream, session=session
    )

    assert disk.ran == ["list_files"]
    assert [r.error for r in results(response.messages)] == [None, "rejected"]
    assert_history_valid(client.requests)


@pytest.mark.parametrize("stream", [False, True])
async def test_moving_on_without_deciding_declines_the_pending_calls(stream: bool) -> None:
    disk, client, agent = _setup(
        one_call("delete", '{"path": "/tmp/x"}'), text("something else then"), text("still fine")
    )
    session = agent.create_session()

    await run_agent(agent, "delete x", stream=stream, session=session)
    response, _ = await run_agent(agent, "actually, never mind", stream=stream, session=session)
    later, _ = await run_agent(agent, "thanks", stream=stream, session=session)

    assert disk.ran == []
    assert response.text == "something else then"
    assert later.text == "still fine"
    (declined,) = results(client.requests[1].messages)
    assert declined.call_id == "c1"
    assert declined.error == "rejected"
    assert client.requests[1].messages[-1] == Message("user", "actually, never mind")
    assert_history_valid(client.requests)


@pytest.mark.parametrize("stream", [False, True])
async def test_the_history_after_an_approved_run_is_valid_for_the_next_run(stream: bool) -> None:
    _, client, agent = _setup(
        one_call("delete", '{"path": "/tmp/x"}'), text("done"), text("you are welcome")
    )
    session = agent.create_session()

    paused, _ = await run_agent(agent, "delete x", stream=stream, session=session)
    decision = _decision(paused.approval_requests[0].create_response(True))
    await run_agent(agent, decision, stream=stream, session=session)
    await run_agent(agent, "thanks", stream=stream, session=session)

    assert [m.role for m in client.requests[2].messages] == [
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
    ]
    assert_history_valid(client.requests)


def test_approval_requests_carry_the_call_and_a_unique_id() -> None:
    first = FunctionApprovalRequestContent(function_call=DELETE_CALL)
    second = FunctionApprovalRequestContent(function_call=DELETE_CALL)

    assert first.id != second.id
    assert first.create_response(True) == FunctionApprovalResponseContent(
        id=first.id, function_call=DELETE_CALL, approved=True
    )


@pytest.mark.parametrize("stream", [False, True])
async def test_resuming_in_a_session_without_a_history_store_sends_a_valid_history(
    stream: bool,
) -> None:
    disk = Disk()
    client = ScriptedChatClient([one_call("delete", '{"path": "/tmp/x"}'), text("done")])
    agent = Agent(client, tools=disk.tools)
    session = agent.create_session()

    paused, _ = await run_agent(agent, "delete x", stream=stream, session=session)
    decision = _decision(paused.approval_requests[0].create_response(True))
    response, _ = await run_agent(agent, decision, stream=stream, session=session)

    assert disk.ran == ["delete /tmp/x"]
    assert response.text == "done"
    assert client.requests[1].messages == (
        Message("assistant", (DELETE_CALL,)),
        Message("tool", (FunctionResultContent("c1", result="deleted /tmp/x"),)),
    )
    assert_history_valid(client.requests)


@pytest.mark.parametrize("stream", [False, True])
async def test_an_approved_return_directly_tool_answers_without_a_model_call(
    stream: bool,
) -> None:
    @tool(approval_mode="always_require", return_directly=True)
    def transfer(amount: int) -> str:
        """Move money."""
        return f"moved {amount}"

    client = ScriptedChatClient([one_call("transfer", '{"amount": 5}')])
    agent = Agent(client, tools=[transfer], history=InMemoryHistoryStore())
    session = agent.create_session()

    paused, _ = await run_agent(agent, "pay", stream=stream, session=session)
    decision = _decision(paused.approval_requests[0].create_response(True))
    response, _ = await run_agent(agent, decision, stream=stream, session=session)

    assert response.text == "moved 5"
    assert len(client.requests) == 1
