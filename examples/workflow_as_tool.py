"""A workflow as a tool of another agent, and live events under ``open_run``.

The assistant's (scripted) model calls the expense workflow as a tool; the workflow
asks for approval, which pauses the assistant with a question for its user; the answer
resumes the same workflow run. Then two checkers run in one superstep and their
progress reaches the consumer as it happens. Offline, on agentcore.testing's doubles.
"""

from __future__ import annotations

from collections.abc import Sequence

import anyio
import attrs
from typing_extensions import Never

from agentcore import Agent, ChatResponse, FunctionCallContent, InMemoryHistoryStore, Message
from agentcore.testing import ScriptedChatClient
from agentcore.workflows import (
    ExecutorEvent,
    WorkflowBuilder,
    WorkflowContext,
    executor,
    handler,
    response_handler,
)


@attrs.frozen
class Approve:
    what: str
    amount: int


class Intake:
    id = "intake"

    @handler
    async def on_task(self, task: str, ctx: WorkflowContext[Never, str]) -> None:
        what, amount = task.rsplit(" ", 1)
        if int(amount) <= 100:
            await ctx.yield_output(f"{what} filed")
        else:
            await ctx.request(Approve(what, int(amount)), bool)

    @response_handler
    async def on_answer(
        self, ask: Approve, approved: bool, ctx: WorkflowContext[Never, str]
    ) -> None:
        await ctx.yield_output(f"{ask.what} {'approved' if approved else 'refused'}")


async def as_a_tool() -> None:
    expenses = WorkflowBuilder(Intake(), name="expenses").build()
    call = FunctionCallContent("c1", "file_expense", '{"task": "hotel 1200"}')
    model = ScriptedChatClient(
        [ChatResponse(messages=(Message("assistant", [call]),)), "Your hotel bill is approved."]
    )
    assistant = Agent(
        model,
        "Help employees with their paperwork.",
        tools=[expenses.as_tool(name="file_expense", description="File an expense.")],
        history=InMemoryHistoryStore(),
    )
    session = assistant.create_session()
    paused = await assistant.run("File my 1200 EUR hotel bill.", session=session)
    [question] = paused.user_input_requests
    print("asked :", question.prompt)
    done = await assistant.run(Message("user", [question.create_response("true")]), session=session)
    print("answer:", done.text)


async def live_events() -> None:
    @executor
    async def start(text: str, ctx: WorkflowContext[str]) -> None:
        await ctx.send(text)

    @executor(id="spelling")
    async def spelling(text: str, ctx: WorkflowContext[str]) -> None:
        await ctx.emit("checking spelling")
        await ctx.send("spelling ok")

    @executor(id="facts")
    async def facts(text: str, ctx: WorkflowContext[str]) -> None:
        await ctx.emit("checking facts")
        await ctx.send("facts ok")

    @executor
    async def report(parts: Sequence[str], ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(", ".join(parts))

    review = (
        WorkflowBuilder(start, name="review")
        .add_fan_out(start, [spelling, facts])
        .add_fan_in([spelling, facts], report)
        .build()
    )
    async with review.open_run("Otters hold hands.") as stream:
        async for event in stream:
            if isinstance(event, ExecutorEvent):
                print("live  :", event.executor_id, event.data)
        result = await stream.get_final_response()
    print("report:", result.output)


async def main() -> None:
    await as_a_tool()
    await live_events()


if __name__ == "__main__":
    anyio.run(main)
