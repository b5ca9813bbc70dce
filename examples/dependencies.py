"""Typed dependencies: give a run a database handle and the current user, offline.

``Agent(..., deps_type=Deps)`` is an ``Agent[Deps]``: every ``run(..., deps=...)`` must
pass a ``Deps`` (both type checkers and the run itself refuse anything else). Tools
read it as ``ToolContext[Deps].deps`` and middleware as ``context.deps``. Deps are
never saved: the session stays plain JSON, and a paused run resumed later gets the
deps of the call that resumes it. The script uses ``run_sync``, which suits scripts
and notebooks (in async code, ``await agent.run(...)``).
"""

from __future__ import annotations

import sqlite3

import attrs

from agentcore import (
    Agent,
    AgentContext,
    AgentSession,
    ChatResponse,
    FunctionCallContent,
    InMemoryHistoryStore,
    Message,
    ToolContext,
    tool,
)
from agentcore.middleware import CallNext
from agentcore.serialization import from_json, to_json
from agentcore.testing import ScriptedChatClient


@attrs.frozen
class Deps:
    """What the tools of one request need: never serialized."""

    db: sqlite3.Connection
    user: str


@tool
def my_orders(context: ToolContext[Deps]) -> list[str]:
    """The current user's orders."""
    rows = context.deps.db.execute(
        "SELECT item FROM orders WHERE user = ? ORDER BY item", (context.deps.user,)
    )
    return [item for (item,) in rows]


@tool(approval_mode="always_require")
def cancel_order(item: str, context: ToolContext[Deps]) -> str:
    """Cancel one of the current user's orders (a person must approve)."""
    deps = context.deps
    deps.db.execute("DELETE FROM orders WHERE user = ? AND item = ?", (deps.user, item))
    return f"cancelled {item} for {deps.user}"


async def audit(context: AgentContext[Deps], call_next: CallNext) -> None:
    """Agent middleware: sees the same deps as the tools."""
    print(f"[audit] run for {context.deps.user}")
    await call_next()


def call(name: str, arguments: str, call_id: str) -> ChatResponse[None]:
    return ChatResponse(
        messages=[Message("assistant", [FunctionCallContent(call_id, name, arguments)])],
        finish_reason="tool_calls",
    )


def main() -> None:
    # Sync tools run in worker threads: the connection must allow that.
    db = sqlite3.connect(":memory:", check_same_thread=False)
    db.execute("CREATE TABLE orders (user TEXT, item TEXT)")
    db.executemany(
        "INSERT INTO orders VALUES (?, ?)",
        [("ada", "croissant"), ("ada", "espresso"), ("bob", "tea")],
    )
    history = InMemoryHistoryStore()
    client = ScriptedChatClient(
        [
            call("my_orders", "{}", "c1"),
            "You ordered a croissant and an espresso.",
            call("cancel_order", '{"item": "espresso"}', "c2"),
            "Done: the espresso is cancelled.",
        ]
    )
    agent = Agent(
        client,
        tools=[my_orders, cancel_order],
        middleware=[audit],
        history=history,
        deps_type=Deps,
    )
    session = agent.create_session()

    response = agent.run_sync("What did I order?", session=session, deps=Deps(db, "ada"))
    print(response.text)

    paused = agent.run_sync("Cancel the espresso.", session=session, deps=Deps(db, "ada"))
    [request] = paused.approval_requests
    saved = to_json(session)  # what another process would load: no deps in it
    assert "Connection" not in saved

    # Later, maybe elsewhere: the resuming call brings its own deps.
    resumed = from_json(saved, AgentSession)
    decision = Message("user", [request.create_response(True)])
    done = agent.run_sync(decision, session=resumed, deps=Deps(db, "ada"))
    print(done.text)
    left = sorted(item for (item,) in db.execute("SELECT item FROM orders"))
    assert left == ["croissant", "tea"], left
    print("orders left:", left)


if __name__ == "__main__":
    main()
