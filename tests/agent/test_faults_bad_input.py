"""Bad input gets a clear error where it is made, and nothing the user had is lost.

A caller's wrong types fail at the call that took them, naming what was wrong; a
session whose saved paused run was corrupted fails with a typed error and keeps
its history; arguments a model sends that Python's ``json`` could read but JSON
does not allow (``NaN``, ``Infinity``) or that are nested too deep to read become
an error result the model sees, never an exception that ends the run.
"""

from __future__ import annotations

from typing import Any

import pytest

from agentcore import (
    Agent,
    FunctionCallContent,
    FunctionInvocationConfiguration,
    FunctionResultContent,
    InMemoryHistoryStore,
    Message,
    TextContent,
    ToolLoop,
    tool,
)
from agentcore.errors import RunStateError
from agentcore.testing import ScriptedChatClient

from ..loop.harness import assert_history_valid, one_call, results, run_agent
from .test_tool_protocols import EchoTool

pytestmark = pytest.mark.anyio


@tool
def scale(factor: float) -> str:
    """Scale by a factor."""
    return f"scaled by {factor}"


@tool
def store(payload: dict[str, Any]) -> str:
    """Store a JSON payload."""
    return "stored"


def test_text_content_refuses_a_non_str() -> None:
    with pytest.raises(TypeError, match=r"TextContent takes a str, got int 123"):
        TextContent(123)  # type: ignore[arg-type]  # the mistake under test


def test_agent_refuses_default_options_that_are_not_a_mapping() -> None:
    with pytest.raises(TypeError, match=r"chat options must be a mapping .* got list \[1\]"):
        Agent(ScriptedChatClient([]), default_options=[1])  # type: ignore[arg-type]  # the mistake under test


def test_agent_and_loop_refuse_a_tool_loop_that_is_not_a_configuration() -> None:
    with pytest.raises(TypeError, match=r"FunctionInvocationConfiguration\(\*\*settings\)"):
        Agent(ScriptedChatClient([]), tool_loop={"max_iterations": 2})  # type: ignore[arg-type]  # the mistake under test
    with pytest.raises(TypeError, match=r"config must be a FunctionInvocationConfiguration"):
        ToolLoop(ScriptedChatClient([]), config={"max_iterations": 2})  # type: ignore[arg-type]  # the mistake under test


@pytest.mark.parametrize("stream", [False, True])
async def test_run_refuses_options_that_are_not_a_mapping(stream: bool) -> None:
    client = ScriptedChatClient(["hello"])
    agent = Agent(client)

    with pytest.raises(TypeError, match=r"chat options must be a mapping .* got str 'x'"):
        agent.run("hi", stream=stream, options="x")  # type: ignore[call-overload]  # the mistake under test
    assert client.requests == []


@pytest.mark.parametrize("stream", [False, True])
async def test_run_refuses_a_tool_loop_dict_when_called(stream: bool) -> None:
    client = ScriptedChatClient(["hello"])
    agent = Agent(client)

    with pytest.raises(TypeError, match=r"tool_loop must be a FunctionInvocationConfiguration"):
        agent.run("hi", stream=stream, tool_loop={"max_iterations": 1})  # type: ignore[call-overload]  # the mistake under test
    assert client.requests == []


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(
    ("key", "corrupt"),
    [
        ("agentcore.pending_approvals", {"calls": 5, "requests": [1]}),
        ("agentcore.pending_approvals", {"requests": [{"type": "text", "text": "hi"}]}),
        ("agentcore.pending_approvals", "not a paused run"),
        ("agentcore.run_locals", "not an object"),
    ],
)
async def test_a_corrupt_paused_run_is_a_typed_error_and_history_is_kept(
    stream: bool, key: str, corrupt: object
) -> None:
    history = InMemoryHistoryStore()
    agent = Agent(ScriptedChatClient(["first answer", "second answer"]), history=history)
    session = agent.create_session()
    await run_agent(agent, "first", stream=stream, session=session)
    before = list(await history.load(session.session_id))
    session.state[key] = corrupt

    with pytest.raises(RunStateError, match=r"corrupt.*delete that key"):
        await run_agent(agent, "second", stream=stream, session=session)

    assert list(await history.load(session.session_id)) == before
    assert session.state[key] == corrupt
    # Deleting the key, as the error says, gets the session going again.
    del session.state[key]
    response, _ = await run_agent(agent, "second", stream=stream, session=session)
    assert response.text == "second answer"


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        ('{"factor": NaN}', "NaN is not a JSON number"),
        ('{"factor": Infinity}', "Infinity is not a JSON number"),
        ('{"factor": -Infinity}', "-Infinity is not a JSON number"),
    ],
)
async def test_non_finite_numbers_become_an_error_result(
    stream: bool, arguments: str, said: str
) -> None:
    client = ScriptedChatClient([one_call("scale", arguments), "sorry"])
    agent = Agent(client, tools=[scale])

    response, _ = await run_agent(agent, "go", stream=stream)

    [result] = results(response.messages)
    assert result.error == "invalid arguments"
    assert said in str(result.result)
    assert response.text == "sorry"
    assert_history_valid(client.requests)


@pytest.mark.parametrize("stream", [False, True])
async def test_arguments_nested_100000_deep_become_an_error_result(stream: bool) -> None:
    deep = '{"payload": ' + '{"a": ' * 100_000 + "1" + "}" * 100_000 + "}"
    client = ScriptedChatClient([one_call("store", deep), "sorry"])
    agent = Agent(client, tools=[store])

    response, _ = await run_agent(agent, "go", stream=stream)

    assert results(response.messages) == [
        FunctionResultContent(
            "c1",
            result=(
                "Error: invalid arguments for store: arguments are nested too deeply to read; "
                "send a flatter JSON object"
            ),
            error="invalid arguments",
        )
    ]
    assert response.text == "sorry"


@pytest.mark.parametrize("stream", [False, True])
async def test_ordinary_numbers_still_parse(stream: bool) -> None:
    client = ScriptedChatClient([one_call("scale", '{"factor": 1.5e3}'), "done"])
    agent = Agent(
        client, tools=[scale], tool_loop=FunctionInvocationConfiguration(max_iterations=2)
    )

    response, _ = await run_agent(agent, [Message("user", "go")], stream=stream)

    assert results(response.messages)[0].result == "scaled by 1500.0"


DEEP = '{"text": ' + "[" * 100_000 + "]" * 100_000 + "}"


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (DEEP, "nested too deeply to read"),
        ('{"text": NaN}', "NaN is not a JSON number"),
        ('{"text": -Infinity}', "-Infinity is not a JSON number"),
    ],
    ids=["deep", "nan", "-infinity"],
)
def test_a_calls_parse_arguments_refuses_what_json_does_not_allow(
    arguments: str, said: str
) -> None:
    call = FunctionCallContent("c1", "echo", arguments)

    with pytest.raises(ValueError, match=said):
        call.parse_arguments()


@pytest.mark.parametrize("stream", [False, True])
async def test_an_approval_policy_reading_deep_arguments_does_not_end_the_run(
    stream: bool,
) -> None:
    # A policy reads the call's arguments itself (as contrib's ToolApproval does); the
    # ValueError it is documented to get lets it decide, where a RecursionError ended
    # the run.
    def needs_approval(call: FunctionCallContent, tool: object) -> bool:
        try:
            return "secret" in str(call.parse_arguments())
        except ValueError:
            return False

    client = ScriptedChatClient([one_call("store", DEEP.replace("text", "payload")), "sorry"])
    agent = Agent(
        client,
        tools=[store],
        tool_loop=FunctionInvocationConfiguration(approval_policy=needs_approval),
    )

    response, _ = await run_agent(agent, "go", stream=stream)

    [result] = results(response.messages)
    assert result.error == "invalid arguments"
    assert "nested too deeply" in str(result.result)
    assert response.text == "sorry"


@pytest.mark.parametrize("stream", [False, True])
async def test_a_tool_of_another_shape_reading_deep_arguments_gets_an_error_result(
    stream: bool,
) -> None:
    echo = EchoTool()  # its parse_arguments reads with plain json.loads
    client = ScriptedChatClient([one_call("echo", DEEP), "sorry"])

    response, _ = await run_agent(Agent(client, tools=[echo]), "go", stream=stream)

    assert results(response.messages) == [
        FunctionResultContent(
            "c1",
            result=(
                "Error: invalid arguments for echo: arguments are nested too deeply to read; "
                "send a flatter JSON object"
            ),
            error="invalid arguments",
        )
    ]
    assert echo.calls == []
    assert response.text == "sorry"
    assert_history_valid(client.requests)
