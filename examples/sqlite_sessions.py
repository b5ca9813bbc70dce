"""Sessions on SQLite: a conversation that survives the process, offline by default.

``SqliteHistoryStore(path)`` keeps each session's messages in a SQLite file (WAL
mode, one transaction per run). Two runs share a session, so the second one sees
the first; reopening the file shows the stored turns. The offline model answers
from the history it is sent; with ``OPENAI_API_KEY`` or ``ANTHROPIC_API_KEY`` set, a
real model does.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import anyio

from agentcore import Agent, AgentSession, Message, SqliteHistoryStore
from agentcore.serialization import from_json, to_json
from agentcore.testing import FunctionChatClient


def remembering_model(messages: Sequence[Message], _options: Mapping[str, Any]) -> str:
    """A stand-in model: greets by name, and recalls the name from the history it gets."""
    last = messages[-1].text
    if last.startswith("My name is "):
        return f"Nice to meet you, {last.removeprefix('My name is ').rstrip('.')}!"
    for earlier in messages[:-1]:
        if earlier.role == "user" and earlier.text.startswith("My name is "):
            name = earlier.text.removeprefix("My name is ").rstrip(".")
            return f"You are {name} ({len(messages) - 1} earlier messages were sent to me)."
    return "I don't know yet. Tell me your name?"


def make_client() -> Any:
    if os.environ.get("OPENAI_API_KEY"):
        from agentcore_openai import OpenAIChatClient

        return OpenAIChatClient(os.environ.get("OPENAI_MODEL", "gpt-4o-mini"))
    if os.environ.get("ANTHROPIC_API_KEY"):
        from agentcore_anthropic import AnthropicChatClient

        return AnthropicChatClient(os.environ.get("ANTHROPIC_MODEL", "claude-sonnet-4-5"))
    return FunctionChatClient(remembering_model)


async def main(directory: Path) -> None:
    db_path = directory / "history.db"
    store = SqliteHistoryStore(db_path)
    agent = Agent(make_client(), "Be friendly and brief.", history=store)
    session = agent.create_session()

    for text in ("My name is Ada.", "What is my name?"):
        response = await agent.run(text, session=session)
        print(f"user: {text}\nagent: {response.text}")
    store.close()

    # The session is plain data: save it (here as JSON) to continue another day.
    saved = to_json(session)
    restored = from_json(saved, AgentSession)
    reopened = SqliteHistoryStore(db_path)
    history = await reopened.load(restored.session_id)
    reopened.close()
    print(f"\n{len(history)} messages stored in {db_path.name}:")
    for message in history:
        print(f"  {message.role:>9}: {message.text}")


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as temp:
        anyio.run(main, Path(temp))
