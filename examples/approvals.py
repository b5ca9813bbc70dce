"""Approvals: a run pauses before a sensitive tool and resumes after a person decides.

A tool marked ``approval_mode="always_require"`` is not run when the model calls
it: the run ends with ``response.approval_requests``, and the session keeps the
paused call. The session is plain JSON, so the decision can come much later, in
another process: here it is saved, loaded again, and the run resumed with the
decision. Offline by default; with ``OPENAI_API_KEY`` or ``ANTHROPIC_API_KEY`` set,
a real model drives the conversation.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import anyio

from agentcore import (
    Agent,
    AgentSession,
    ChatResponse,
    FunctionApprovalRequestContent,
    FunctionCallContent,
    Message,
    SqliteHistoryStore,
    tool,
)
from agentcore.serialization import from_json, to_json
from agentcore.testing import ScriptedChatClient

LIMIT_EUR = 500


@tool(approval_mode="always_require")
def transfer(to: str, amount_eur: float) -> str:
    """Send money from the user's account."""
    return f"sent €{amount_eur:.2f} to {to} (reference TX-1042)"


def offline_model() -> ScriptedChatClient:
    """Asks to transfer, then confirms once the tool has run."""
    call = FunctionCallContent("call_1", "transfer", '{"to": "Grace", "amount_eur": 120}')
    return ScriptedChatClient(
        [
            ChatResponse(messages=[Message("assistant", [call])], finish_reason="tool_calls"),
            "Done: €120.00 went to Grace, reference TX-1042.",
        ]
    )


def make_client() -> Any:
    if os.environ.get("OPENAI_API_KEY"):
        from agentcore_openai import OpenAIChatClient

        return OpenAIChatClient(os.environ.get("OPENAI_MODEL", "gpt-4o-mini"))
    if os.environ.get("ANTHROPIC_API_KEY"):
        from agentcore_anthropic import AnthropicChatClient

        return AnthropicChatClient(os.environ.get("ANTHROPIC_MODEL", "claude-sonnet-4-5"))
    return offline_model()


def decide(request: FunctionApprovalRequestContent) -> bool:
    """Stands in for a person: approves transfers up to the limit."""
    arguments = request.function_call.parse_arguments()
    approved = float(arguments.get("amount_eur", 0)) <= LIMIT_EUR
    print(f"[review] {request.function_call.name}({arguments}) -> {'yes' if approved else 'no'}")
    return approved


async def main(directory: Path) -> None:
    store = SqliteHistoryStore(directory / "history.db")
    agent = Agent(
        make_client(), "You manage the user's bank account.", tools=[transfer], history=store
    )
    session = agent.create_session()

    response = await agent.run("Please send Grace 120 euros for the concert.", session=session)
    while response.approval_requests:
        print(f"paused: {len(response.approval_requests)} call(s) wait for approval")
        saved = directory / "session.json"
        saved.write_text(to_json(session))  # ...the process could stop here...

        restored = from_json(saved.read_text(), AgentSession)
        decisions = [r.create_response(decide(r)) for r in restored.approval_requests]
        response = await agent.run(Message("user", decisions), session=restored)
        session = restored
    print(f"agent: {response.text}")
    print(f"stored messages: {[m.role for m in await store.load(session.session_id)]}")
    store.close()


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as temp:
        anyio.run(main, Path(temp))
