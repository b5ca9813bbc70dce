"""ToolApproval: standing allow / deny / ask rules on top of the loop's approval flow."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from agentcore_contrib.tool_approval import ApprovalRule, ToolApproval

from agentcore import (
    Agent,
    AgentResponse,
    ChatResponse,
    FunctionCallContent,
    FunctionResultContent,
    Message,
    tool,
)
from agentcore.testing import ScriptedChatClient

pytestmark = pytest.mark.anyio

DOCS = Path(__file__).resolve().parents[2] / "docs" / "middleware" / "tool_approval.md"
ran: list[str] = []


@tool
def transfer(amount: int, to: str) -> str:
    """Transfer money."""
    ran.append(f"transfer {amount}")
    return "sent"


@tool
def delete_file(path: str) -> str:
    """Delete a file."""
    ran.append(f"delete {path}")
    return "deleted"


@tool(approval_mode="always_require")
def close_account(account: str) -> str:
    """Close an account."""
    ran.append(f"close {account}")
    return "closed"


@pytest.fixture(autouse=True)
def clear_ran() -> None:
    ran.clear()


def call(name: str, arguments: str) -> ChatResponse[None]:
    return ChatResponse(
        messages=(Message("assistant", (FunctionCallContent("c1", name, arguments),)),),
        finish_reason="tool_calls",
    )


def result_of(response: AgentResponse[Any]) -> Any:
    return next(
        c.result
        for m in response.messages
        for c in m.contents
        if isinstance(c, FunctionResultContent)
    )


async def run(
    approval: ToolApproval, name: str, arguments: str, stream: bool = False
) -> AgentResponse[Any]:
    client = ScriptedChatClient([call(name, arguments), "done"])
    agent = Agent(client, tools=[transfer, delete_file, close_account], middleware=[approval])
    if stream:
        updates = agent.run("go", stream=True)
        async for _ in updates:
            pass
        return await updates.get_final_response()
    return await agent.run("go")


@pytest.mark.parametrize("stream", [False, True])
async def test_deny_answers_the_model_without_running_the_tool(stream: bool) -> None:
    approval = ToolApproval([ApprovalRule("delete_*", "deny", reason="deletes are off")])
    response = await run(approval, "delete_file", '{"path": "/a"}', stream)
    assert ran == []
    assert result_of(response) == "Error: the call to delete_file was denied: deletes are off."
    assert response.text == "done"


async def test_allow_runs_the_tool() -> None:
    await run(
        ToolApproval([ApprovalRule("transfer", "allow")]), "transfer", '{"amount": 5, "to": "b"}'
    )
    assert ran == ["transfer 5"]


async def test_a_predicate_on_the_arguments_selects_the_rule() -> None:
    def large(arguments: Mapping[str, Any]) -> bool:
        return int(arguments["amount"]) > 100

    approval = ToolApproval([ApprovalRule("transfer", "deny", when=large)])
    await run(approval, "transfer", '{"amount": 500, "to": "b"}')
    await run(approval, "transfer", '{"amount": 50, "to": "b"}')
    assert ran == ["transfer 50"]


async def test_the_first_matching_rule_wins() -> None:
    approval = ToolApproval(
        [ApprovalRule("delete_file", "allow"), ApprovalRule("delete_*", "deny")]
    )
    await run(approval, "delete_file", '{"path": "/tmp/x"}')
    assert ran == ["delete /tmp/x"]


async def test_the_default_applies_when_no_rule_matches() -> None:
    await run(ToolApproval([], default="deny"), "transfer", '{"amount": 1, "to": "b"}')
    assert ran == []


async def test_a_failing_predicate_denies_the_call() -> None:
    def broken(arguments: Mapping[str, Any]) -> bool:
        raise KeyError("nope")

    response = await run(
        ToolApproval([ApprovalRule("transfer", "allow", when=broken)]),
        "transfer",
        '{"amount": 1, "to": "b"}',
    )
    assert ran == []
    assert "could not be checked (KeyError)" in result_of(response)


async def test_ask_on_a_tool_without_approval_mode_fails_closed() -> None:
    response = await run(
        ToolApproval([ApprovalRule("transfer", "ask")]), "transfer", '{"amount": 1, "to": "b"}'
    )
    assert ran == []
    assert "tool_loop=<this ToolApproval>.tool_loop()" in result_of(response)


async def test_ask_on_an_always_require_tool_runs_once_the_caller_approves() -> None:
    client = ScriptedChatClient([call("close_account", '{"account": "A"}'), "closed it"])
    approval = ToolApproval([ApprovalRule("close_*", "ask")])
    agent = Agent(client, tools=[close_account], middleware=[approval])
    session = agent.create_session()
    paused = await agent.run("close A", session=session)
    assert ran == []
    (request,) = paused.approval_requests
    done = await agent.run(Message("user", (request.create_response(True),)), session=session)
    assert ran == ["close A"]
    assert [e.data["outcome"] for e in done.events] == ["approved"]


@pytest.mark.parametrize("stream", [False, True])
async def test_ask_pauses_any_tool_when_the_rules_are_the_loops_approval_policy(
    stream: bool,
) -> None:
    client = ScriptedChatClient([call("transfer", '{"amount": 500, "to": "b"}'), "sent it"])
    approval = ToolApproval([ApprovalRule("transfer", "ask")])
    agent = Agent(client, tools=[transfer], middleware=[approval], tool_loop=approval.tool_loop())
    session = agent.create_session()

    async def run_once(message: Any) -> AgentResponse[Any]:
        if not stream:
            return await agent.run(message, session=session)
        updates = agent.run(message, session=session, stream=True)
        async for _ in updates:
            pass
        return await updates.get_final_response()

    paused = await run_once("send 500")
    assert ran == []
    (request,) = paused.approval_requests
    assert request.function_call.name == "transfer"
    done = await run_once(Message("user", (request.create_response(True),)))
    assert ran == ["transfer 500"]
    assert done.text == "sent it"
    assert [e.data["outcome"] for e in done.events] == ["approved"]


async def test_calls_the_rules_allow_do_not_pause_under_the_policy() -> None:
    client = ScriptedChatClient([call("transfer", '{"amount": 5, "to": "b"}'), "ok"])
    approval = ToolApproval([ApprovalRule("transfer", "ask", when=lambda a: a["amount"] > 100)])
    agent = Agent(client, tools=[transfer], middleware=[approval], tool_loop=approval.tool_loop())
    response = await agent.run("send 5")
    assert response.approval_requests == ()
    assert ran == ["transfer 5"]


async def test_a_denial_is_reported_as_an_event() -> None:
    response = await run(
        ToolApproval([ApprovalRule("delete_file", "deny")]), "delete_file", '{"path": "/a"}'
    )
    (event,) = response.events
    assert event.data == {"tool": "delete_file", "call_id": "c1", "outcome": "denied"}


def test_requires_approval_is_true_for_ask_rules_only() -> None:
    approval = ToolApproval([ApprovalRule("transfer", "ask", when=lambda a: a["amount"] > 10)])
    big = FunctionCallContent("c1", "transfer", '{"amount": 20, "to": "b"}')
    small = FunctionCallContent("c2", "transfer", '{"amount": 5, "to": "b"}')
    assert approval.requires_approval(big, transfer)
    assert not approval.requires_approval(small, transfer)


def test_requires_approval_asks_when_arguments_do_not_parse() -> None:
    approval = ToolApproval([])
    assert approval.requires_approval(FunctionCallContent("c", "transfer", "{oops"), transfer)


def test_an_unknown_decision_is_refused() -> None:
    with pytest.raises(ValueError, match="decision must be one of"):
        ApprovalRule("x", "maybe")  # type: ignore[arg-type]  # the wrong type is the point of the test


def test_rules_must_be_a_list_of_rules() -> None:
    with pytest.raises(TypeError, match="rules must be a list of ApprovalRule"):
        ToolApproval(ApprovalRule("x", "allow"))  # type: ignore[arg-type]  # the wrong type is the point of the test


async def test_the_docs_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    source = re.search(r"```python\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.DOTALL)
    assert source is not None
    namespace: dict[str, Any] = {"__name__": "docs_example"}
    exec(compile(source.group(1), str(DOCS), "exec"), namespace)
    await namespace["main"]()
    assert capsys.readouterr().out.splitlines() == [
        "Error: the call to transfer was denied: transfers over 1000 need a banker.",
        "Your account is closed.",
    ]
