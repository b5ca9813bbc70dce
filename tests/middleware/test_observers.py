"""Observers: read-only hooks for run, model-call and tool-call start and end."""

from __future__ import annotations

import logging
from typing import Any

import attrs
import pytest

from agentcore import Agent, ChatResponse, Message, Usage, tool
from agentcore.observers import (
    ModelCallEnded,
    ModelCallStarted,
    RunEnded,
    RunStarted,
    ToolCallEnded,
    ToolCallStarted,
)
from agentcore.testing import ScriptedChatClient

from .harness import one_call, results, run_agent, text

pytestmark = pytest.mark.anyio

HOOKS = (
    "on_run_start",
    "on_run_end",
    "on_model_call_start",
    "on_model_call_end",
    "on_tool_call_start",
    "on_tool_call_end",
)


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool
def profile(name: str) -> dict[str, Any]:
    """A user's profile."""
    return {"name": name, "roles": ["reader"]}


class Recorder:
    """A sync observer of every hook."""

    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []

    def __getattr__(self, hook: str) -> Any:
        if hook not in HOOKS:
            raise AttributeError(hook)

        def record(event: object) -> None:
            self.events.append((hook, event))

        return record


class AsyncRecorder:
    """An async observer of every hook."""

    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []

    def __getattr__(self, hook: str) -> Any:
        if hook not in HOOKS:
            raise AttributeError(hook)

        async def record(event: object) -> None:
            self.events.append((hook, event))

        return record


def one_round() -> ScriptedChatClient:
    return ScriptedChatClient([one_call("add", '{"a": 1, "b": 2}'), text("3")])


@pytest.mark.parametrize("stream", [False, True])
async def test_observers_see_every_step_of_a_run_in_order(stream: bool) -> None:
    sync, async_ = Recorder(), AsyncRecorder()
    agent = Agent(one_round(), name="bot", tools=[add], observers=[sync, async_])
    await run_agent(agent, stream=stream)

    expected = [
        "on_run_start",
        "on_model_call_start",
        "on_model_call_end",
        "on_tool_call_start",
        "on_tool_call_end",
        "on_model_call_start",
        "on_model_call_end",
        "on_run_end",
    ]
    assert [hook for hook, _ in sync.events] == expected
    assert async_.events == sync.events


@pytest.mark.parametrize("stream", [False, True])
async def test_observer_events_carry_the_run_the_calls_and_their_results(stream: bool) -> None:
    observer = Recorder()
    client = one_round()
    agent = Agent(client, "Be brief.", name="bot", tools=[add], observers=[observer])
    response, _ = await run_agent(agent, stream=stream)

    events = [event for _, event in observer.events]
    started, model1, ended1, tool_start, tool_end, model2, ended2, run_end = events
    assert isinstance(started, RunStarted)
    assert (started.agent_name, started.messages) == ("bot", (Message("user", "hi"),))
    assert {e.run_id for e in events} == {started.run_id}
    assert isinstance(model1, ModelCallStarted)
    assert model1.messages == (Message("user", "hi"),)
    assert model1.options["instructions"] == "Be brief."
    assert isinstance(ended1, ModelCallEnded)
    assert ended1.response == one_call("add", '{"a": 1, "b": 2}')
    assert tool_start == ToolCallStarted(started.run_id, "c1", "add", {"a": 1, "b": 2})
    assert tool_end == ToolCallEnded(started.run_id, "c1", "add", 3, None)
    assert isinstance(model2, ModelCallStarted)
    assert results(model2.messages) == [3]
    assert isinstance(ended2, ModelCallEnded)
    assert ended2.response == text("3")
    assert isinstance(run_end, RunEnded)
    assert run_end.error is None
    assert run_end.response.messages == response.messages
    assert client.requests[1].messages == model2.messages


@pytest.mark.parametrize("stream", [False, True])
async def test_a_failed_run_ends_with_the_error_and_the_error_reaches_the_caller(
    stream: bool,
) -> None:
    observer = Recorder()
    failure = ConnectionError("model unreachable")
    agent = Agent(ScriptedChatClient([failure]), observers=[observer])

    with pytest.raises(ConnectionError, match="model unreachable"):
        await run_agent(agent, stream=stream)

    hook, event = observer.events[-1]
    assert hook == "on_run_end"
    assert isinstance(event, RunEnded)
    assert event.error is failure
    assert event.response is None


@pytest.mark.parametrize(
    "event",
    [
        RunStarted("r", "bot", ()),
        RunEnded("r", "bot"),
        ModelCallStarted("r", (), {}),
        ModelCallEnded("r"),
        ToolCallStarted("r", "c1", "add", {}),
        ToolCallEnded("r", "c1", "add", 3),
    ],
    ids=lambda e: type(e).__name__,
)
def test_events_are_frozen(event: object) -> None:
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        event.run_id = "other"  # type: ignore[attr-defined]  # any attribute will do


def test_event_containers_are_read_only_copies() -> None:
    arguments: dict[str, Any] = {"tags": ["a"], "limits": {"max": 1}}
    event = ToolCallStarted("r", "c1", "tag", arguments)

    with pytest.raises(TypeError):
        event.arguments["tags"] = []  # type: ignore[index]  # a read-only mapping
    with pytest.raises(TypeError):
        event.arguments["limits"]["max"] = 2
    assert event.arguments["tags"] == ("a",)
    assert arguments == {"tags": ["a"], "limits": {"max": 1}}


class Meddler:
    """An observer that tries to change the run at every step."""

    def on_model_call_start(self, event: ModelCallStarted) -> None:
        event.options["tools"].clear()

    def on_tool_call_start(self, event: ToolCallStarted) -> None:
        event.arguments["name"] = "mallory"  # type: ignore[index]  # it is read-only

    def on_tool_call_end(self, event: ToolCallEnded) -> None:
        event.result["roles"].append("admin")


@pytest.mark.parametrize("stream", [False, True])
async def test_an_observer_cannot_change_the_run(
    stream: bool, caplog: pytest.LogCaptureFixture
) -> None:
    client = ScriptedChatClient([one_call("profile", '{"name": "alice"}'), text("alice reads")])
    agent = Agent(client, tools=[profile], observers=[Meddler()])
    with caplog.at_level(logging.ERROR, logger="agentcore.observers"):
        response, _ = await run_agent(agent, stream=stream)

    assert [t.name for t in client.requests[0].options["tools"]] == ["profile"]
    assert results(client.requests[1].messages) == [{"name": "alice", "roles": ["reader"]}]
    assert response.text == "alice reads"
    # Every attempt failed, and was logged: two model calls, one tool call.
    failed_in = [r.args[1] for r in caplog.records if isinstance(r.args, tuple)]
    assert failed_in == [
        "on_model_call_start",
        "on_tool_call_start",
        "on_tool_call_end",
        "on_model_call_start",
    ]


class Broken:
    def on_run_start(self, event: RunStarted) -> None:
        raise RuntimeError("sync observer bug")

    async def on_model_call_end(self, event: ModelCallEnded) -> None:
        raise ValueError("async observer bug")


@pytest.mark.parametrize("stream", [False, True])
async def test_an_observer_exception_is_logged_and_swallowed(
    stream: bool, caplog: pytest.LogCaptureFixture
) -> None:
    after = Recorder()
    client = ScriptedChatClient([text("fine")])
    agent = Agent(client, observers=[Broken(), after])
    with caplog.at_level(logging.ERROR, logger="agentcore.observers"):
        response, _ = await run_agent(agent, stream=stream)

    assert response.text == "fine"
    logged = [(r.name, r.levelno, r.exc_info[1] if r.exc_info else None) for r in caplog.records]
    assert [(name, level, type(exc)) for name, level, exc in logged] == [
        ("agentcore.observers", logging.ERROR, RuntimeError),
        ("agentcore.observers", logging.ERROR, ValueError),
    ]
    assert "on_run_start" in caplog.records[0].getMessage()
    # The observers after the broken one still got every event.
    assert len(after.events) == 4


@pytest.mark.parametrize("stream", [False, True])
async def test_the_run_end_event_carries_the_response_usage(stream: bool) -> None:
    observer = Recorder()
    answer = ChatResponse(messages=(Message("assistant", "hi"),), usage=Usage(3, 4, 7))
    client = ScriptedChatClient([answer])
    agent = Agent(client, observers=[observer])
    response, _ = await run_agent(agent, stream=stream)

    _, run_end = observer.events[-1]
    assert run_end.response.usage == response.usage == Usage(3, 4, 7)
