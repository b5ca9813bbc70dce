"""``FunctionInvocationConfiguration``: its defaults, its checks, and where it applies."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from agentcore import (
    Agent,
    FunctionCallContent,
    FunctionInvocationConfiguration,
    Message,
    ToolLoop,
    tool,
)
from agentcore.testing import ScriptedChatClient

from .harness import assert_history_valid, one_call, results, run_agent, run_loop, text

pytestmark = pytest.mark.anyio


@tool
def boom() -> str:
    """Always fails."""
    raise RuntimeError("kaput")


@tool
def ping() -> str:
    """Answer pong."""
    return "pong"


def test_defaults_match_the_documented_table() -> None:
    config = FunctionInvocationConfiguration()

    assert config.enabled is True
    assert config.max_iterations == 40
    assert config.max_consecutive_errors_per_request == 3
    assert config.terminate_on_unknown_calls is False
    assert list(config.additional_tools) == []
    assert config.include_detailed_errors is False
    assert config.max_concurrency is None


def test_configuration_has_exactly_the_documented_settings() -> None:
    assert [f.name for f in attrs.fields(FunctionInvocationConfiguration)] == [
        "enabled",
        "max_iterations",
        "max_consecutive_errors_per_request",
        "terminate_on_unknown_calls",
        "additional_tools",
        "include_detailed_errors",
        "max_concurrency",
        "approval_policy",
    ]


def test_configuration_is_frozen() -> None:
    config = FunctionInvocationConfiguration()

    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        config.max_iterations = 3  # type: ignore[misc] # the mistake is the point


def test_additional_tools_are_kept_as_an_immutable_tuple() -> None:
    declared: list[dict[str, Any]] = [{"name": "lookup", "description": "", "parameters": {}}]

    config = FunctionInvocationConfiguration(additional_tools=declared)
    declared.clear()

    assert config.additional_tools == ({"name": "lookup", "description": "", "parameters": {}},)


def test_configurations_with_equal_settings_are_equal() -> None:
    assert FunctionInvocationConfiguration(max_iterations=5) == FunctionInvocationConfiguration(
        max_iterations=5
    )


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"max_iterations": 0}, "max_iterations must be at least 1, got 0"),
        (
            {"max_consecutive_errors_per_request": 0},
            "max_consecutive_errors_per_request must be at least 1, got 0",
        ),
        ({"max_concurrency": 0}, "max_concurrency must be None"),
        ({"max_concurrency": -2}, "max_concurrency must be None"),
    ],
)
def test_out_of_range_settings_raise_value_error_naming_them(
    settings: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        FunctionInvocationConfiguration(**settings)


@pytest.mark.parametrize(
    ("settings", "name"),
    [
        ({"max_iterations": "3"}, "max_iterations"),
        ({"max_iterations": 2.5}, "max_iterations"),
        ({"max_iterations": True}, "max_iterations"),
        ({"max_consecutive_errors_per_request": None}, "max_consecutive_errors_per_request"),
        ({"max_concurrency": "4"}, "max_concurrency"),
        ({"enabled": "yes"}, "enabled"),
        ({"terminate_on_unknown_calls": 1}, "terminate_on_unknown_calls"),
        ({"include_detailed_errors": None}, "include_detailed_errors"),
    ],
)
def test_wrongly_typed_settings_raise_type_error_naming_them(
    settings: dict[str, Any], name: str
) -> None:
    with pytest.raises(TypeError, match=name):
        FunctionInvocationConfiguration(**settings)


@pytest.mark.parametrize(
    "additional_tools",
    [
        "lookup",
        [{"description": "no name"}],
        [42],
    ],
)
def test_additional_tools_without_a_name_are_rejected(additional_tools: Any) -> None:
    with pytest.raises(TypeError, match="additional_tools"):
        FunctionInvocationConfiguration(additional_tools=additional_tools)


def test_settings_are_keyword_only() -> None:
    with pytest.raises(TypeError):
        FunctionInvocationConfiguration(True)  # type: ignore[call-arg] # the mistake is the point


@pytest.mark.parametrize("stream", [False, True])
async def test_agent_configuration_applies_to_its_runs(stream: bool) -> None:
    client = ScriptedChatClient([one_call("boom"), text("gave up")])
    agent = Agent(
        client,
        tools=[boom],
        tool_loop=FunctionInvocationConfiguration(max_consecutive_errors_per_request=1),
    )

    response, _ = await run_agent(agent, "go", stream=stream)

    assert response.text == "gave up"
    assert client.requests[1].options["tool_choice"] == "none"
    assert_history_valid(client.requests)


@pytest.mark.parametrize("stream", [False, True])
async def test_run_configuration_overrides_the_agents_for_that_run_only(stream: bool) -> None:
    client = ScriptedChatClient(
        [
            one_call("boom"),
            text("gave up"),
            one_call("boom"),
            one_call("boom", call_id="c2"),
            text("ok"),
        ]
    )
    agent = Agent(
        client,
        tools=[boom],
        tool_loop=FunctionInvocationConfiguration(max_consecutive_errors_per_request=2),
    )
    override = FunctionInvocationConfiguration(max_consecutive_errors_per_request=1)

    first, _ = await run_agent(agent, "go", stream=stream, tool_loop=override)
    second, _ = await run_agent(agent, "go", stream=stream)

    assert first.text == "gave up"
    assert client.requests[1].options["tool_choice"] == "none"
    assert second.text == "ok"
    assert "tool_choice" not in client.requests[3].options
    assert client.requests[4].options["tool_choice"] == "none"
    assert_history_valid(client.requests)


@pytest.mark.parametrize("stream", [False, True])
async def test_run_override_gives_detailed_errors_only_to_that_run(stream: bool) -> None:
    client = ScriptedChatClient([one_call("boom"), text("a"), one_call("boom"), text("b")])
    agent = Agent(client, tools=[boom])

    detailed, _ = await run_agent(
        agent,
        "go",
        stream=stream,
        tool_loop=FunctionInvocationConfiguration(include_detailed_errors=True),
    )
    plain, _ = await run_agent(agent, "go", stream=stream)

    assert "kaput" in results(detailed.messages)[0].result
    assert "kaput" not in results(plain.messages)[0].result


@pytest.mark.parametrize("stream", [False, True])
async def test_disabled_loop_returns_the_calls_without_running_them(stream: bool) -> None:
    ran: list[str] = []

    @tool
    def record() -> str:
        """Record a call."""
        ran.append("record")
        return "recorded"

    client = ScriptedChatClient([one_call("record")])
    loop = ToolLoop(client, config=FunctionInvocationConfiguration(enabled=False))

    response, _ = await run_loop(
        loop, [Message("user", "go")], stream=stream, options={"tools": [record]}
    )

    assert ran == []
    assert len(client.requests) == 1
    assert response.messages == (
        Message("assistant", (FunctionCallContent("c1", "record", "{}"),)),
    )
    assert [t.name for t in client.requests[0].options["tools"]] == ["record"]
