"""Agents for the workflow tests: a bank agent on a scripted client whose tools pause
(an approval, a question for the user), and a clerk that keeps its own request ids."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from agentcore import (
    Agent,
    AgentResponse,
    AgentResponseUpdate,
    AgentSession,
    ChatResponse,
    FunctionApprovalRequestContent,
    FunctionApprovalResponseContent,
    FunctionCallContent,
    HistoryStore,
    Message,
    ResponseStream,
    ToolContext,
    tool,
)
from agentcore.testing import ScriptedChatClient
from agentcore.workflows import Workflow, WorkflowBuilder, executor


def calls(*pairs: tuple[str, str]) -> ChatResponse[Any]:
    contents = [FunctionCallContent(f"call_{i}", n, args) for i, (n, args) in enumerate(pairs)]
    return ChatResponse(messages=[Message("assistant", contents)], finish_reason="tool_calls")


class Bank:
    """Two tools: ``transfer`` needs an approval, ``verify`` asks the user for a code."""

    def __init__(self, *script: Any, history: HistoryStore | None = None) -> None:
        self.sent: list[tuple[str, int]] = []
        self.codes: list[str] = []
        self.client = ScriptedChatClient(list(script))

        @tool(approval_mode="always_require")
        def transfer(to: str, amount: int) -> str:
            """Send money."""
            self.sent.append((to, amount))
            return f"sent {amount} to {to}"

        @tool
        def verify(ctx: ToolContext) -> str:
            """Check the user's code."""
            code = ctx.ask("Enter the code sent to your phone")
            self.codes.append(code)
            return "verified"

        self.agent = Agent(
            self.client, "Bank.", tools=[transfer, verify], name="bank", history=history
        )

    def workflow(self) -> Workflow[str, Any]:
        @executor
        async def ask(text: str) -> str:
            return f"Customer: {text}"

        return WorkflowBuilder(ask, name="bank-flow").add_edge(ask, self.agent).build()


class Clerk:
    """An agent that keeps its own request ids (no ``session.paused``): every pause asks
    for the approval ``apr_same``; a decision ends its turn."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.description = None
        self.decisions: list[bool] = []

    def create_session(self) -> AgentSession:
        return AgentSession()

    def run(
        self, messages: Any = None, *, session: AgentSession | None = None, stream: bool = False
    ) -> Any:
        decided = [
            c
            for m in messages or ()
            for c in m.contents
            if isinstance(c, FunctionApprovalResponseContent)
        ]
        if decided:
            self.decisions.extend(d.approved for d in decided)
            reply = Message("assistant", f"{self.name} approved={decided[0].approved}")
        else:
            call = FunctionCallContent("c1", "pay", "{}")
            reply = Message("assistant", [FunctionApprovalRequestContent(call, id="apr_same")])
        response: AgentResponse[Any] = AgentResponse(messages=(reply,), agent_name=self.name)
        if not stream:

            async def done() -> AgentResponse[Any]:
                return response

            return done()

        async def updates() -> AsyncIterator[AgentResponseUpdate]:
            yield AgentResponseUpdate(reply.contents, reply.role, agent_name=self.name)

        return ResponseStream(updates(), finalizer=lambda _: response)
