"""Typed dependencies (``deps=``): given per call, read by tools and every middleware
scope, never saved with a session; a resumed run gets the deps of the resuming call."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

import attrs
import pytest

from agentcore import (
    Agent,
    AgentContext,
    AgentSession,
    ChatContext,
    FunctionInvocationConfiguration,
    FunctionInvocationContext,
    InMemoryHistoryStore,
    Message,
    ToolContext,
    tool,
)
from agentcore.middleware import CallNext
from agentcore.serialization import from_json, to_json
from agentcore.testing import ScriptedChatClient
from tests.agent._runs import call_turn, run_agent

pytestmark = pytest.mark.anyio


class Database:
    """A handle that must never be serialized: it holds an open connection."""

    def __init__(self, user: str) -> None:
        self.connection = sqlite3.connect(":memory:")
        self.user = user

    def __getstate__(self) -> Any:
        raise AssertionError("deps must never be serialized")


@attrs.frozen
class Deps:
    db: Database


@tool
def whoami(context: ToolContext[Deps]) -> str:
    """The current user."""
    return f"user={context.deps.db.user}"


@tool(approval_mode="always_require")
def drop_table(name: str, context: ToolContext[Deps]) -> str:
    """Drop a table (a person must approve)."""
    return f"{context.deps.db.user} dropped {name}"


def _results(response: Any) -> list[Any]:
    return [c.result for m in response.messages for c in m.contents if c.type == "function_result"]


async def test_a_tool_and_every_middleware_scope_see_the_runs_deps(stream: bool) -> None:
    seen: list[tuple[str, str]] = []

    async def agent_mw(context: AgentContext[Deps], call_next: CallNext) -> None:
        seen.append(("agent", context.deps.db.user))
        await call_next()

    async def chat_mw(context: ChatContext[Deps], call_next: CallNext) -> None:
        seen.append(("chat", context.deps.db.user))
        await call_next()

    async def function_mw(context: FunctionInvocationContext[Deps], call_next: CallNext) -> None:
        seen.append(("function", context.deps.db.user))
        await call_next()

    client = ScriptedChatClient([call_turn("whoami", "{}"), "done"])
    agent = Agent(
        client, tools=[whoami], middleware=[agent_mw, chat_mw, function_mw], deps_type=Deps
    )
    deps = Deps(Database("ada"))
    if stream:
        result = agent.run("who am I?", stream=True, deps=deps)
        async for _ in result:
            pass
        response = await result.get_final_response()
    else:
        response = await agent.run("who am I?", deps=deps)
    assert _results(response) == ["user=ada"]
    assert seen == [
        ("agent", "ada"),
        ("chat", "ada"),
        ("function", "ada"),
        ("chat", "ada"),
    ]
    # The schema the model sees has no trace of the context parameter.
    assert whoami.parameters["properties"] == {}


async def test_concurrent_runs_each_see_their_own_deps() -> None:
    import anyio

    agent = Agent(
        ScriptedChatClient([call_turn("whoami", "{}"), call_turn("whoami", "{}"), "a", "b"]),
        tools=[whoami],
        deps_type=Deps,
    )
    results: dict[str, list[Any]] = {}

    async def one(user: str) -> None:
        results[user] = _results(await agent.run("who?", deps=Deps(Database(user))))

    async with anyio.create_task_group() as group:
        group.start_soon(one, "ada")
        group.start_soon(one, "bob")
    assert results == {"ada": ["user=ada"], "bob": ["user=bob"]}


async def test_a_tool_reading_deps_of_a_run_given_none_is_told_how_to_pass_them() -> None:
    agent = Agent(
        ScriptedChatClient([call_turn("whoami", "{}"), "done"]),
        tools=[whoami],
        tool_loop=FunctionInvocationConfiguration(include_detailed_errors=True),
    )
    response = await agent.run("who am I?")
    [result] = [c for m in response.messages for c in m.contents if c.type == "function_result"]
    assert "LookupError: this run has no deps" in result.result
    assert "agent.run(..., deps=...)" in result.result


async def test_has_deps_tells_without_raising() -> None:
    seen: list[bool] = []

    @tool
    def check(context: ToolContext) -> str:
        """Whether the run has deps."""
        seen.append(context.run.has_deps)
        return "ok"

    agent = Agent(
        ScriptedChatClient([call_turn("check", "{}"), "a", call_turn("check", "{}"), "b"]),
        tools=[check],
    )
    await agent.run("go")
    await agent.run("go", deps=None)  # None is a value like any other
    assert seen == [False, True]


def test_deps_of_the_wrong_type_are_refused_at_the_call() -> None:
    agent = Agent(ScriptedChatClient(["x"]), deps_type=Deps)
    with pytest.raises(TypeError, match=r"deps must be a Deps .*got str.*deps=Deps\(\.\.\.\)"):
        agent.run("hi", deps="ada")  # type: ignore[call-overload]


def test_deps_type_must_be_a_class() -> None:
    with pytest.raises(TypeError, match="deps_type must be a class"):
        Agent(ScriptedChatClient(["x"]), deps_type="Deps")  # type: ignore[arg-type]


async def test_a_paused_run_resumed_from_saved_json_gets_the_resuming_calls_deps(
    stream: bool,
) -> None:
    history = InMemoryHistoryStore()

    def make_agent(*answers: Any) -> Agent[Deps]:
        return Agent(
            ScriptedChatClient(list(answers)),
            tools=[drop_table],
            history=history,
            deps_type=Deps,
        )

    session = AgentSession()
    paused = await run_agent(
        make_agent(call_turn("drop_table", '{"name": "logs"}')),
        "drop the logs table",
        stream=stream,
        session=session,
        deps=Deps(Database("user-zoe")),
    )
    [request] = paused.response.approval_requests
    # The session (as another process would load it) holds no trace of the deps. (The
    # marker has letters a hex id never holds: "ada" once matched a random session id.)
    saved = to_json(session)
    assert "user-zoe" not in saved
    assert "Database" not in saved
    loaded = from_json(saved, AgentSession)
    assert json.loads(saved)  # plain JSON, nothing pickled

    resumed_agent = make_agent("dropped it")
    decision = Message("user", [request.create_response(True)])
    resume_deps = Deps(Database("bob"))
    if stream:
        result = resumed_agent.run(decision, session=loaded, stream=True, deps=resume_deps)
        async for _ in result:
            pass
        response = await result.get_final_response()
    else:
        response = await resumed_agent.run(decision, session=loaded, deps=resume_deps)
    assert _results(response) == ["bob dropped logs"]
    assert response.text == "dropped it"
