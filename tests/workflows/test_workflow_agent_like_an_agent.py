"""A workflow used as an agent behaves like an agent (issue 28 §1.3): streamed updates
keep each message's author and additional properties; a message its producer left
unsigned carries the executor's id; with a session the start executor receives the
conversation so far; run() takes what Agent.run takes (a bare content too); an
executor's approval request keeps its own id up to the caller. In run() and
run(stream=True), with the run kept in the session or in a store, on asyncio and
trio."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from typing_extensions import Never

from agentcore import (
    AgentResponse,
    AgentSession,
    FunctionApprovalRequestContent,
    FunctionApprovalResponseContent,
    FunctionCallContent,
    Message,
)
from agentcore.workflows import (
    CheckpointStore,
    InMemoryCheckpointStore,
    WorkflowAgent,
    WorkflowBuilder,
    WorkflowContext,
    executor,
    handler,
    response_handler,
)

pytestmark = pytest.mark.anyio


@pytest.fixture(params=[False, True], ids=["run", "stream"])
def stream(request: pytest.FixtureRequest) -> bool:
    return bool(request.param)


@pytest.fixture(params=["session", "store"])
def store(request: pytest.FixtureRequest) -> CheckpointStore | None:
    return None if request.param == "session" else InMemoryCheckpointStore()


async def turn(
    agent: WorkflowAgent, message: Any, session: AgentSession | None, stream: bool
) -> AgentResponse[Any]:
    if not stream:
        return await agent.run(message, session=session)
    running = agent.run(message, session=session, stream=True)
    updates = [u async for u in running]
    response = await running.get_final_response()
    # every update carries its message's author and additional properties
    assert [(u.author_name, u.additional_properties) for u in updates] == [
        (m.author_name, m.additional_properties) for m in response.messages
    ]
    assert [m.author_name for m in AgentResponse.from_updates(updates).messages] == [
        m.author_name for m in response.messages
    ]
    return response


def chat(store: CheckpointStore | None = None) -> WorkflowAgent:
    """``echo`` answers with how many messages it received and the last one's text; a
    signed message and an unsigned one."""

    @executor(id="echo")
    async def echo(
        conversation: Sequence[Message], ctx: WorkflowContext[Never, tuple[Message, ...]]
    ) -> None:
        texts = " | ".join(m.text for m in conversation)
        await ctx.yield_output(
            (
                Message("assistant", f"saw {len(conversation)}: {texts}"),
                Message(
                    "assistant",
                    "signed",
                    author_name="Echo Bot",
                    additional_properties={"score": 0.5},
                ),
            )
        )

    workflow = WorkflowBuilder(echo, name="chat").build()
    return workflow.as_agent(checkpoints=store)


async def test_authors_and_properties_are_kept_and_unsigned_messages_carry_the_executor(
    stream: bool,
) -> None:
    response = await turn(chat(), "hi", None, stream)
    assert [(m.author_name, m.additional_properties) for m in response.messages] == [
        ("echo", None),
        ("Echo Bot", {"score": 0.5}),
    ]


async def test_with_a_session_the_start_executor_receives_the_conversation_so_far(
    stream: bool, store: CheckpointStore | None
) -> None:
    agent = chat(store)
    session = agent.create_session()
    first = await turn(agent, "hello", session, stream)
    assert first.messages[0].text == "saw 1: hello"
    second = await turn(agent, "and again", session, stream)
    assert second.messages[0].text == ("saw 4: hello | saw 1: hello | signed | and again")


async def test_without_a_session_each_run_starts_afresh(stream: bool) -> None:
    agent = chat()
    await turn(agent, "hello", None, stream)
    assert (await turn(agent, "again", None, stream)).messages[0].text == "saw 1: again"


CALL = FunctionCallContent("call_7", "wire_money", {"amount": 120})


class Approver:
    """Asks the caller to approve a call, under the approval's own id."""

    id = "approver"

    @handler
    async def ask(self, text: str, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.request(
            FunctionApprovalRequestContent(CALL, "apr_own"), FunctionApprovalResponseContent
        )

    @response_handler
    async def decided(
        self,
        question: FunctionApprovalRequestContent,
        answer: FunctionApprovalResponseContent,
        ctx: WorkflowContext[Never, str],
    ) -> None:
        await ctx.yield_output(f"{question.id}: {'yes' if answer.approved else 'no'}")


async def test_an_executors_approval_request_keeps_its_own_id_across_the_agent(
    stream: bool, store: CheckpointStore | None
) -> None:
    agent = WorkflowBuilder(Approver(), name="approve").build().as_agent(checkpoints=store)
    session = agent.create_session()
    asked = await turn(agent, "wire it", session, stream)
    (request,) = asked.approval_requests
    assert request.id == "apr_own"
    # run() takes a bare content, as Agent.run does
    done = await turn(agent, request.create_response(True), session, stream)
    assert done.text == "apr_own: yes"


async def test_a_request_id_the_executor_chooses_is_kept_unless_it_collides() -> None:
    class Twice:
        id = "twice"

        @handler
        async def ask(self, text: str, ctx: WorkflowContext[Never, str]) -> None:
            await ctx.request(text, str, request_id="mine")
            await ctx.request(text + "!", str, request_id="mine")

        @response_handler
        async def answered(self, q: str, a: str, ctx: WorkflowContext[Never, str]) -> None:
            await ctx.yield_output(a)

    paused = await WorkflowBuilder(Twice(), name="twice").build().run("q")
    first, second = paused.requests
    assert first.id == "mine"
    assert second.id != "mine"  # a real collision: the run names the second
