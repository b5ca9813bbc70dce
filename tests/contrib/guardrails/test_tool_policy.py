"""ToolPolicy: allow and deny lists, argument checks, fail-closed checks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from agentcore_contrib.guardrails import GuardrailError, ToolPolicy

from agentcore import Agent, AgentResponse, ChatResponse, FunctionCallContent, Message, tool
from agentcore.testing import ScriptedChatClient

pytestmark = pytest.mark.anyio

ran: list[str] = []


@tool
def read_file(path: str) -> str:
    """Read a file."""
    ran.append(f"read {path}")
    return "contents"


@tool
def delete_file(path: str) -> str:
    """Delete a file."""
    ran.append(f"delete {path}")
    return "deleted"


@pytest.fixture(autouse=True)
def clear_ran() -> None:
    ran.clear()


def call(name: str, arguments: str) -> ChatResponse[None]:
    return ChatResponse(
        messages=(Message("assistant", (FunctionCallContent("c1", name, arguments),)),),
        finish_reason="tool_calls",
    )


def tool_result(response: AgentResponse[Any]) -> Any:
    return next(
        c.result for m in response.messages for c in m.contents if c.type == "function_result"
    )


async def run(policy: ToolPolicy, name: str, arguments: str) -> AgentResponse[Any]:
    client = ScriptedChatClient([call(name, arguments), "done"])
    agent = Agent(client, tools=[read_file, delete_file], middleware=[policy])
    return await agent.run("go")


async def test_a_denied_tool_does_not_run_and_the_model_is_told() -> None:
    response = await run(ToolPolicy(deny=["delete_*"]), "delete_file", '{"path": "/a"}')
    assert ran == []
    assert tool_result(response) == (
        "Error: the call to delete_file was refused: the tool 'delete_file' is denied by policy."
    )
    assert response.text == "done"


async def test_a_tool_off_the_allow_list_does_not_run() -> None:
    await run(ToolPolicy(allow=["read_*"]), "delete_file", '{"path": "/a"}')
    assert ran == []


async def test_an_allowed_tool_runs() -> None:
    await run(ToolPolicy(allow=["read_*"]), "read_file", '{"path": "/a"}')
    assert ran == ["read /a"]


async def test_deny_wins_over_allow() -> None:
    await run(ToolPolicy(allow=["*"], deny=["delete_file"]), "delete_file", '{"path": "/a"}')
    assert ran == []


async def test_an_argument_check_returning_false_refuses_the_call() -> None:
    def inside_workspace(arguments: Mapping[str, Any]) -> bool:
        return str(arguments["path"]).startswith("/workspace/")

    response = await run(
        ToolPolicy(checks={"read_file": inside_workspace}), "read_file", '{"path": "/etc/passwd"}'
    )
    assert ran == []
    assert "failed the check 'inside_workspace'" in tool_result(response)


async def test_an_async_argument_check_can_give_a_reason() -> None:
    async def no_dotdot(arguments: Mapping[str, Any]) -> str | None:
        return "paths may not contain '..'" if ".." in str(arguments["path"]) else None

    response = await run(
        ToolPolicy(checks={"*_file": [no_dotdot]}), "read_file", '{"path": "/w/../etc"}'
    )
    assert ran == []
    assert tool_result(response).endswith("paths may not contain '..'.")


async def test_a_passing_argument_check_lets_the_tool_run() -> None:
    await run(ToolPolicy(checks={"read_file": lambda a: True}), "read_file", '{"path": "/w/x"}')
    assert ran == ["read /w/x"]


async def test_a_crashing_argument_check_fails_closed_and_is_reported() -> None:
    def broken(arguments: Mapping[str, Any]) -> bool:
        raise KeyError("missing")

    with pytest.raises(GuardrailError, match="raised KeyError") as caught:
        await run(ToolPolicy(checks={"read_file": broken}), "read_file", '{"path": "/x"}')
    assert ran == []
    assert caught.value.guard == "tool_policy"


async def test_terminate_mode_ends_the_run_with_the_refusal() -> None:
    client = ScriptedChatClient([call("delete_file", '{"path": "/a"}'), "never"])
    policy = ToolPolicy(deny=["delete_file"], on_violation="terminate")
    agent = Agent(client, tools=[delete_file], middleware=[policy])
    await agent.run("go")
    assert ran == []
    assert client.remaining == 1


async def test_a_violation_is_reported_as_an_event() -> None:
    response = await run(ToolPolicy(deny=["delete_file"]), "delete_file", '{"path": "/a"}')
    (event,) = response.events
    assert event.data == {
        "guard": "tool_policy",
        "reason": "the tool 'delete_file' is denied by policy",
        "stage": "tool_call",
        "tool": "delete_file",
    }


def test_a_single_string_is_refused_as_a_list() -> None:
    with pytest.raises(TypeError, match="must be a list of tool names or globs"):
        ToolPolicy(deny="delete_file")


def test_a_non_callable_check_is_refused() -> None:
    with pytest.raises(TypeError, match="must be a callable or a list of callables"):
        ToolPolicy(checks={"read_file": "yes"})  # type: ignore[dict-item]  # the wrong type is the point of the test
