"""A workflow agent passes an inner agent's approval and user-input requests through
unchanged, as a plain Agent returns them (design §3.11); the caller answers each with
the content's own ``create_response`` on the same session, and the run resumes."""

from __future__ import annotations

import json
from typing import Any

import pytest
from typing_extensions import Never

from agentcore import (
    Agent,
    AgentResponse,
    AgentSession,
    FunctionApprovalRequestContent,
    FunctionApprovalResponseContent,
    FunctionCallContent,
    FunctionResultContent,
    Message,
    UserInputResponseContent,
)
from agentcore.errors import RunStateError
from agentcore.serialization import structure, unstructure
from agentcore.testing import ScriptedChatClient
from agentcore.workflows import (
    REQUEST_INFO_TOOL_NAME,
    CheckpointStore,
    InMemoryCheckpointStore,
    RequestInfoArguments,
    Workflow,
    WorkflowAgent,
    WorkflowBuilder,
    WorkflowContext,
    WorkflowTypeError,
    executor,
)
from tests.loop.harness import one_call, run_agent, text
from tests.workflows._agent_flows import Bank, Clerk, calls
from tests.workflows.test_workflow_agent import Gate

pytestmark = pytest.mark.anyio
SEND = calls(("transfer", '{"to": "Grace", "amount": 120}'))


@pytest.fixture(params=[False, True], ids=["run", "stream"])
def stream(request: pytest.FixtureRequest) -> bool:
    return bool(request.param)


@pytest.fixture(params=["session", "store"])
def store(request: pytest.FixtureRequest) -> CheckpointStore | None:
    """Where the paused run lives: in the session (no store) or in a checkpoint store."""
    return None if request.param == "session" else InMemoryCheckpointStore()


async def turn(
    agent: WorkflowAgent, message: Any, session: AgentSession, stream: bool
) -> AgentResponse[Any]:
    if not stream:
        return await agent.run(message, session=session)
    running = agent.run(message, session=session, stream=True)
    updates = [u async for u in running]
    response = await running.get_final_response()
    folded = AgentResponse.from_updates(updates)  # what a caller reading updates sees
    assert folded.approval_requests == response.approval_requests
    assert folded.user_input_requests == response.user_input_requests
    return response


def request_info_calls(response: AgentResponse[Any]) -> list[FunctionCallContent]:
    return [
        c
        for m in response.messages
        for c in m.contents
        if isinstance(c, FunctionCallContent) and c.name == REQUEST_INFO_TOOL_NAME
    ]


@pytest.mark.parametrize("approve", [True, False])
async def test_inner_approval_passes_through_and_the_answer_resumes_the_run(
    stream: bool, store: CheckpointStore | None, approve: bool
) -> None:
    bank = Bank(SEND, "Done: sent 120." if approve else "Not sent.")
    agent = bank.workflow().as_agent(name="desk", checkpoints=store)
    session = agent.create_session()
    paused = await turn(agent, "send Grace 120", session, stream)
    [question] = paused.approval_requests  # as a plain Agent returns it
    assert question.function_call.name == "transfer"
    assert paused.user_input_requests == ()
    assert request_info_calls(paused) == []
    assert bank.sent == []
    done = await turn(agent, Message("user", [question.create_response(approve)]), session, stream)
    assert done.approval_requests == ()
    if approve:
        assert bank.sent == [("Grace", 120)]  # the tool ran once
        assert done.text == "Done: sent 120."
    else:
        assert bank.sent == []
        assert done.text == "Not sent."
        [result] = [
            c
            for m in bank.client.requests[-1].messages
            for c in m.contents
            if isinstance(c, FunctionResultContent)
        ]
        assert "rejected" in str(result.result)  # the agent was told


async def test_inner_user_input_passes_through(stream: bool, store: CheckpointStore | None) -> None:
    bank = Bank(calls(("verify", "{}")), "You are verified.")
    agent = bank.workflow().as_agent(name="desk", checkpoints=store)
    session = agent.create_session()
    paused = await turn(agent, "verify me", session, stream)
    [question] = paused.user_input_requests
    assert question.prompt == "Enter the code sent to your phone"
    done = await turn(agent, Message("user", [question.create_response("4711")]), session, stream)
    assert bank.codes == ["4711"]
    assert done.text == "You are verified."


async def test_a_mixed_pause_returns_both_kinds_and_takes_both_answers(stream: bool) -> None:
    bank = Bank(SEND, "Done: sent 120.")

    @executor
    async def desk(text: str, ctx: WorkflowContext[str]) -> None:
        await ctx.send(f"Customer: {text}")

    workflow = WorkflowBuilder(desk, name="mixed").add_fan_out(desk, [bank.agent, Gate()]).build()
    agent = workflow.as_agent(name="mixed")
    session = agent.create_session()
    paused = await turn(agent, "send Grace 120", session, stream)
    [approval] = paused.approval_requests
    [call] = request_info_calls(paused)
    assert RequestInfoArguments.from_call(call).executor_id == "gate"
    answers = Message(
        "user", [approval.create_response(True), FunctionResultContent(call.call_id, True)]
    )
    done = await turn(agent, answers, session, stream)
    assert bank.sent == [("Grace", 120)]
    assert sorted(m.text for m in done.messages if m.text) == ["Done: sent 120.", "approved 120"]


async def test_answers_that_are_not_pending_or_not_the_requests_own_are_refused() -> None:
    bank = Bank(SEND, "Done.")
    agent = bank.workflow().as_agent(name="desk")
    session = agent.create_session()
    paused = await agent.run("send Grace 120", session=session)
    [question] = paused.approval_requests
    stranger = FunctionApprovalResponseContent(
        id="apr_nope", function_call=question.function_call, approved=True
    )
    with pytest.raises(RunStateError, match=rf"'apr_nope'; pending: {question.id}$"):
        await agent.run(Message("user", [stranger]), session=session)
    forged_call = FunctionCallContent("call_0", "transfer", '{"to": "Mallory", "amount": 9000}')
    forged = FunctionApprovalResponseContent(
        id=question.id, function_call=forged_call, approved=True
    )
    with pytest.raises(WorkflowTypeError, match="answer with"):
        await agent.run(Message("user", [forged]), session=session)
    wrong_kind = UserInputResponseContent(
        id=question.id, function_call=question.function_call, text="yes"
    )
    with pytest.raises(WorkflowTypeError, match="UserInputResponseContent"):
        await agent.run(Message("user", [wrong_kind]), session=session)
    assert bank.sent == []
    # nothing ran: the request is still pending and its own answer still resumes the run
    done = await agent.run(Message("user", [question.create_response(True)]), session=session)
    assert bank.sent == [("Grace", 120)]
    assert done.text == "Done."
    with pytest.raises(RunStateError, match="pending: none"):
        await agent.run(Message("user", [question.create_response(True)]), session=session)


@pytest.mark.parametrize("together", [True, False], ids=["one message", "two messages"])
async def test_answers_with_new_text_in_the_same_turn_are_refused_and_nothing_is_lost(
    stream: bool, store: CheckpointStore | None, together: bool
) -> None:
    bank = Bank(SEND, "Done: sent 120.")
    agent = bank.workflow().as_agent(name="desk", checkpoints=store)
    session = agent.create_session()
    paused = await turn(agent, "send Grace 120", session, stream)
    [question] = paused.approval_requests
    answer = question.create_response(True)
    mixed: Any = (
        Message("user", [answer, *Message("user", "and pay Bob too").contents])
        if together
        else [Message("user", [answer]), Message("user", "and pay Bob too")]
    )
    with pytest.raises(RunStateError, match="answers in one run\\(\\) and the new message"):
        await turn(agent, mixed, session, stream)
    assert bank.sent == []  # nothing ran, and the request is still pending
    done = await turn(agent, Message("user", [answer]), session, stream)
    assert bank.sent == [("Grace", 120)]
    assert done.text == "Done: sent 120."


async def test_an_approval_passes_through_a_nested_workflow_agent_unchanged(stream: bool) -> None:
    bank = Bank(SEND, "Done: sent 120.")
    inner = bank.workflow().as_agent(name="inner")

    @executor
    async def front(text: str, ctx: WorkflowContext[str]) -> None:
        await ctx.send(text)

    outer = WorkflowBuilder(front, name="outer").add_edge(front, inner).build()
    agent = outer.as_agent(name="outer")
    session = agent.create_session()
    paused = await turn(agent, "send Grace 120", session, stream)
    [question] = paused.approval_requests
    assert question.function_call.name == "transfer"
    done = await turn(agent, Message("user", [question.create_response(True)]), session, stream)
    assert bank.sent == [("Grace", 120)]
    assert done.text == "Done: sent 120."


async def test_requests_under_a_fallback_id_pass_through_under_that_id(stream: bool) -> None:
    """Agents that keep their own ids can ask under one id twice; the caller still sees
    one id per question (the request's), and each answer reaches its own agent."""
    clerks = [Clerk("first"), Clerk("second")]

    @executor
    async def desk(text: str, ctx: WorkflowContext[str]) -> None:
        await ctx.send(text)

    workflow = WorkflowBuilder(desk, name="clerks").add_fan_out(desk, clerks).build()
    agent = workflow.as_agent(name="clerks")
    session = agent.create_session()
    paused = await turn(agent, "pay", session, stream)
    questions = paused.approval_requests
    assert [q.id for q in questions] == ["apr_same", "req_2_1_0"]
    answers = [q.create_response(q.id == "apr_same") for q in questions]
    done = await turn(agent, Message("user", answers), session, stream)
    assert sorted(m.text for m in done.messages) == [
        "first approved=True",
        "second approved=False",
    ]


async def test_as_tool_keeps_asking_an_inner_approval_through_tool_context_ask(
    stream: bool,
) -> None:
    """The tool form bridges every request, approvals too, to ``ToolContext.ask``: the
    outer agent pauses on a question, and the answer (the approval as JSON) resumes the
    same workflow run."""
    bank = Bank(SEND, "Done: sent 120.")
    tool = bank.workflow().as_agent(name="desk").as_tool(name="bank_desk")
    outer = Agent(
        ScriptedChatClient([one_call("bank_desk", '{"task": "send Grace 120"}'), text("Sent.")]),
        tools=[tool],
    )
    session = outer.create_session()
    paused, _ = await run_agent(outer, "pay Grace", stream=stream, session=session)
    [question] = paused.user_input_requests  # the outer agent's own pause, through ask()
    assert paused.approval_requests == ()
    assert "transfer" in question.prompt
    assert "approved" in question.prompt
    assert bank.sent == []
    asked, _ = json.JSONDecoder().raw_decode(question.prompt, question.prompt.index("asks: ") + 6)
    approval = structure(asked, FunctionApprovalRequestContent).create_response(True)
    answer = Message("user", [question.create_response(json.dumps(unstructure(approval)))])
    done, _ = await run_agent(outer, answer, stream=stream, session=session)
    assert bank.sent == [("Grace", 120)]
    assert done.text == "Sent."


async def test_an_approval_from_a_sub_workflow_asking_the_caller_passes_through(
    stream: bool,
) -> None:
    @executor
    async def front(text: str, ctx: WorkflowContext[str]) -> None:
        await ctx.send(text)

    @executor
    async def report(answer: AgentResponse[Any], ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(answer.text)

    def outer(bank: Bank) -> Workflow[str, str]:
        return (
            WorkflowBuilder(front, name="outer")
            .add(bank.workflow(), id="branch", forward_requests="caller")
            .add_edge(front, "branch")
            .add_edge("branch", report)
            .build()
        )

    paused = await outer(Bank(SEND, "Done.")).run("send Grace 120")
    [request] = paused.requests
    assert request.path == ("branch",)
    assert request.id == request.data.id  # the inner agent's id, up to the top
    bank = Bank(SEND, "Done: sent 120.")
    agent = outer(bank).as_agent(name="outer")
    session = agent.create_session()
    response = await turn(agent, "send Grace 120", session, stream)
    [question] = response.approval_requests
    done = await turn(agent, Message("user", [question.create_response(True)]), session, stream)
    assert bank.sent == [("Grace", 120)]
    assert done.text == "Done: sent 120."
