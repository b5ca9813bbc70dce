"""A workflow as an agent whose inner agent needs an approval: the caller's code is the
code it would write for a plain Agent (``response.approval_requests``, then each
request's ``create_response`` in the same session). Offline, on a scripted model.
"""

from __future__ import annotations

from typing import Any

import anyio

from agentcore import Agent, AgentResponse, ChatResponse, FunctionCallContent, Message, tool
from agentcore.protocols import SupportsAgentRun
from agentcore.testing import ScriptedChatClient
from agentcore.workflows import WorkflowBuilder, executor


async def ask_and_approve(agent: SupportsAgentRun, text: str) -> AgentResponse[Any]:
    """Works the same for an ``Agent`` and for a workflow agent."""
    session = agent.create_session()
    response = await agent.run(text, session=session)
    while response.approval_requests:
        for question in response.approval_requests:
            call = question.function_call
            print(f"approve {call.name}({call.arguments})? yes")
        decisions = [q.create_response(approved=True) for q in response.approval_requests]
        response = await agent.run(Message("user", decisions), session=session)
    return response


async def main() -> None:
    sent: list[str] = []

    @tool(approval_mode="always_require")
    def transfer(to: str, amount: int) -> str:
        """Send money."""
        sent.append(f"{amount} to {to}")
        return f"sent {amount} to {to}"

    call = FunctionCallContent("call_1", "transfer", '{"to": "Grace", "amount": 120}')
    model = ScriptedChatClient(
        [
            ChatResponse(messages=[Message("assistant", [call])], finish_reason="tool_calls"),
            "Done: 120 sent to Grace.",
        ]
    )
    bank = Agent(model, "Move money when asked.", tools=[transfer], name="bank")

    @executor
    async def intake(text: str) -> str:
        return f"Customer request: {text}"

    desk = WorkflowBuilder(intake, name="bank-desk").add_edge(intake, bank).build()
    response = await ask_and_approve(desk.as_agent(name="desk"), "send Grace 120")
    print(response.text)
    print("transfers:", sent)  # the tool ran once, after the approval


if __name__ == "__main__":
    anyio.run(main)
