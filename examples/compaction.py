"""Compaction: a 500-turn conversation that stays under the model's window, offline.

An agent keeps one session in a SQLite file for 500 turns, some of which call a tool.
``Compaction`` summarizes the oldest turns whenever a request passes 80 % of an
8,192-token window; the summarizer here is scripted (a function that writes notes), so
the example runs without a model. ``ValidatingChatClient`` checks every request under
the OpenAI Chat, OpenAI Responses and Anthropic rules. At the end, the stored log still
holds every message (summaries are appended records, nothing is rewritten), while what
the model is sent stays small.
"""

from __future__ import annotations

import tempfile
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import anyio
from agentcore_contrib.compaction import Compaction, Summarizer

from agentcore import (
    Agent,
    ChatResponse,
    CompactionContent,
    ExperimentalWarning,
    FunctionCallContent,
    Message,
    SqliteHistoryStore,
    tool,
)
from agentcore.testing import FunctionChatClient, ValidatingChatClient
from agentcore.tokens import estimate_tokens

warnings.filterwarnings("ignore", category=ExperimentalWarning)  # compaction is experimental

TURNS = 500


@tool
def lookup_order(order: int) -> str:
    """Look up an order."""
    return f"order {order}: shipped, " + "tracking details " * 40


largest_request = 0


def model(messages: Sequence[Message], _options: Mapping[str, Any]) -> ChatResponse[Any]:
    """A stand-in model: looks an order up on every third question, else answers."""
    global largest_request
    largest_request = max(largest_request, estimate_tokens(messages))
    last = messages[-1]
    if last.role == "user" and "order" in last.text:
        number = int(last.text.rsplit(" ", 1)[1])
        call = FunctionCallContent(f"call_{number}", "lookup_order", f'{{"order": {number}}}')
        return ChatResponse(messages=[Message("assistant", [call])])
    return ChatResponse(messages=[Message("assistant", "Noted. " + "details " * 30)])


def summarizer_model(messages: Sequence[Message], _options: Mapping[str, Any]) -> str:
    """A scripted summarizer: notes on what it read (a real model writes better ones)."""
    transcript = messages[-1].text
    orders = transcript.count("lookup_order(")
    return f"Earlier: {transcript.count('[user]')} questions, {orders} order lookups."


async def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        store = SqliteHistoryStore(Path(folder) / "history.db")
        compaction = Compaction(
            context_window=8_192,
            summarizer=Summarizer(FunctionChatClient(summarizer_model)),
        )
        client = ValidatingChatClient(FunctionChatClient(model))
        agent = Agent(client, tools=[lookup_order], middleware=[compaction], history=store)
        session = agent.create_session()
        for turn in range(TURNS):
            question = f"look up order {turn}" if turn % 3 == 0 else f"question {turn}"
            await agent.run(question, session=session)

        log = await store.load(session.session_id)
        view = await store.load_view(session.session_id)
        records = sum(1 for m in log if isinstance(m.contents[0], CompactionContent))
        print(f"{TURNS} turns: {len(log)} messages stored, {records} of them summary records")
        seen = estimate_tokens(view.messages)
        print(f"the model now sees {len(view.messages)} messages ({seen} tokens)")
        print(f"largest request sent: {largest_request} tokens (window 8,192)")
        print(f"summaries written: {compaction.stats.summaries}; every request was valid")
        assert largest_request < 8_192
        store.close()


if __name__ == "__main__":
    anyio.run(main)
