# pyright: reportUnnecessaryTypeIgnoreComment=true
"""Static types of deps: ``Agent(..., deps_type=Deps)`` is an ``Agent[Deps]`` whose
``run``/``run_sync`` take only a ``Deps``, and ``ToolContext[Deps]`` and the middleware
contexts type ``.deps`` as ``Deps``. Checked by mypy and basedpyright (each ``type:
ignore`` below must be needed: the checker proves the mistake is caught), run by pytest."""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from typing_extensions import assert_type

from agentcore import (
    Agent,
    AgentContext,
    AgentResponse,
    ChatContext,
    FunctionInvocationContext,
    ToolContext,
    tool,
)
from agentcore.middleware import CallNext
from agentcore.testing import ScriptedChatClient

pytestmark = pytest.mark.anyio


@attrs.frozen
class Deps:
    user: str


@attrs.frozen
class OtherDeps:
    tenant: int


@tool
def whoami(context: ToolContext[Deps]) -> str:
    """The current user."""
    assert_type(context.deps, Deps)
    return context.deps.user


async def agent_mw(context: AgentContext[Deps], call_next: CallNext) -> None:
    assert_type(context.deps, Deps)
    await call_next()


async def chat_mw(context: ChatContext[Deps], call_next: CallNext) -> None:
    assert_type(context.deps, Deps)
    await call_next()


async def function_mw(context: FunctionInvocationContext[Deps], call_next: CallNext) -> None:
    assert_type(context.deps, Deps)
    await call_next()


def _agent() -> Agent[Deps]:
    agent = Agent(
        ScriptedChatClient(["hi"]),
        tools=[whoami],
        middleware=[agent_mw, chat_mw, function_mw],
        deps_type=Deps,
    )
    assert_type(agent, Agent[Deps])
    return agent


async def test_the_right_deps_type_checks_and_reaches_the_run() -> None:
    response = await _agent().run("hi", deps=Deps("ada"))
    assert_type(response, AgentResponse[None])
    assert response.text == "hi"


def test_a_wrong_deps_type_is_a_type_error() -> None:
    agent = _agent()
    with pytest.raises(TypeError, match="deps must be a Deps"):
        agent.run("hi", deps=OtherDeps(1))  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="deps must be a Deps"):
        agent.run_sync("hi", deps="ada")  # type: ignore[call-overload]


def test_run_sync_is_typed_like_run() -> None:
    response = _agent().run_sync("hi", deps=Deps("ada"))
    assert_type(response, AgentResponse[None])
    assert response.text == "hi"


def test_an_agent_without_deps_type_takes_any_deps() -> None:
    agent = Agent(ScriptedChatClient(["hi"]))
    assert_type(agent, Agent[Any])
    assert agent.run_sync("hi", deps=object()).text == "hi"


def test_a_plain_context_types_deps_as_any() -> None:
    def read(context: ToolContext) -> None:
        assert_type(context.deps, Any)

    assert callable(read)
