"""A workflow as a tool of another agent: the tool runs the workflow on a task; a
pending request pauses the calling agent (a ``UserInputRequestContent``) and the answer
resumes the same workflow run; on asyncio and trio, streaming and not."""

from __future__ import annotations

import attrs
import pytest
from typing_extensions import Never

from agentcore import (
    Agent,
    AgentSession,
    ChatResponse,
    InMemoryHistoryStore,
    Message,
    UserInputRequestContent,
)
from agentcore.serialization import from_json, to_json
from agentcore.testing import ScriptedChatClient
from agentcore.tools import FunctionTool
from agentcore.workflows import (
    WorkflowBuilder,
    WorkflowContext,
    handler,
    response_handler,
)
from tests.loop.harness import one_call, results, run_agent, text

pytestmark = pytest.mark.anyio
STREAM = pytest.mark.parametrize("stream", [False, True], ids=["non-streaming", "streaming"])


@attrs.frozen
class Approve:
    what: str
    amount: int


class Expenses:
    """An expense workflow whose start executor counts how often it ran."""

    def __init__(self, limit: int = 100) -> None:
        self.started = 0
        self.limit = limit
        flow = self

        class Intake:
            id = "intake"

            @handler
            async def on_task(self, task: str, ctx: WorkflowContext[Never, str]) -> None:
                flow.started += 1
                what, amount = task.rsplit(" ", 1)
                if int(amount) <= flow.limit:
                    await ctx.yield_output(f"{what} filed")
                    return
                await ctx.request(Approve(what, int(amount)), bool)

            @response_handler
            async def on_answer(
                self, ask: Approve, approved: bool, ctx: WorkflowContext[Never, str]
            ) -> None:
                await ctx.yield_output(f"{ask.what} {'approved' if approved else 'refused'}")

        self.workflow = WorkflowBuilder(Intake(), name="expenses").build()


def assistant(
    expenses: Expenses, *script: ChatResponse[None] | str
) -> tuple[Agent, ScriptedChatClient]:
    client = ScriptedChatClient(list(script))
    tool = expenses.workflow.as_tool(name="file_expense", description="File an expense.")
    return Agent(client, tools=[tool], history=InMemoryHistoryStore()), client


@STREAM
async def test_a_workflow_without_questions_answers_as_a_tool(stream: bool) -> None:
    expenses = Expenses()
    agent, client = assistant(
        expenses, one_call("file_expense", '{"task": "taxi 30"}'), text("Done.")
    )
    done, _ = await run_agent(agent, "file my taxi", stream=stream)
    assert [r.result for r in results(done.messages)] == ["taxi filed"]
    assert done.text == "Done."
    assert expenses.started == 1
    [tool] = agent.tools
    assert isinstance(tool, FunctionTool)
    assert (tool.name, tool.description) == ("file_expense", "File an expense.")
    assert len(client.requests) == 2


@STREAM
async def test_a_request_pauses_the_caller_and_the_answer_resumes_the_same_run(
    stream: bool,
) -> None:
    expenses = Expenses()
    agent, client = assistant(
        expenses, one_call("file_expense", '{"task": "hotel 1200"}'), text("Filed.")
    )
    session = agent.create_session()
    paused, _ = await run_agent(agent, "file my hotel", stream=stream, session=session)
    [question] = paused.user_input_requests
    assert isinstance(question, UserInputRequestContent)
    assert question.function_call.name == "file_expense"
    assert '"amount": 1200' in question.prompt
    assert "intake" in question.prompt
    assert expenses.started == 1

    saved = from_json(to_json(session), AgentSession)  # the paused workflow travels with it
    answer = Message("user", [question.create_response("true")])
    done, _ = await run_agent(agent, answer, stream=stream, session=saved)
    assert expenses.started == 1  # resumed, not started again
    assert [r.result for r in results(done.messages)] == ["hotel approved"]
    assert done.text == "Filed."
    assert saved.pending_requests == ()
    assert len(client.requests) == 2


async def test_an_answer_that_does_not_fit_is_asked_again_and_the_run_is_kept() -> None:
    expenses = Expenses()
    agent, _ = assistant(
        expenses, one_call("file_expense", '{"task": "hotel 1200"}'), text("Sorry.")
    )
    session = agent.create_session()
    paused = await agent.run("file my hotel", session=session)
    [question] = paused.user_input_requests
    again = await agent.run(Message("user", [question.create_response("maybe")]), session=session)
    [retry] = again.user_input_requests  # asked again, saying why; the workflow run is kept
    assert "was refused" in retry.prompt
    assert "does not fit bool" in retry.prompt
    done = await agent.run(Message("user", [retry.create_response("false")]), session=session)
    assert [r.result for r in results(done.messages)] == ["hotel refused"]
    assert expenses.started == 1


async def test_a_text_response_type_takes_the_answer_as_is() -> None:
    class Echo:
        id = "echo"

        @handler
        async def on_task(self, task: str, ctx: WorkflowContext[Never, str]) -> None:
            await ctx.request(task, str)

        @response_handler
        async def on_answer(self, task: str, reply: str, ctx: WorkflowContext[Never, str]) -> None:
            await ctx.yield_output(f"{task}: {reply}")

    tool = WorkflowBuilder(Echo(), name="echo").build().as_tool()
    assert tool.name == "echo"
    client = ScriptedChatClient([one_call("echo", '{"task": "colour"}'), text("ok")])
    agent = Agent(client, tools=[tool], history=InMemoryHistoryStore())
    session = agent.create_session()
    paused = await agent.run("ask", session=session)
    [question] = paused.user_input_requests
    assert "Answer in text." in question.prompt
    done = await agent.run(Message("user", [question.create_response("blue")]), session=session)
    assert [r.result for r in results(done.messages)] == ["colour: blue"]
