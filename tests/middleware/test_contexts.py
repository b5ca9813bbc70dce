"""The three contexts: exactly the promised fields, mutable, and filled in by a real run."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from agentcore import (
    Agent,
    AgentContext,
    AgentResponse,
    ChatContext,
    ChatResponse,
    FunctionInvocationContext,
    Message,
    ResponseStream,
    RunContext,
    tool,
)
from agentcore.middleware import CallNext
from agentcore.testing import ScriptedChatClient

from .harness import one_call, run_agent, text

pytestmark = pytest.mark.anyio


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def public_fields(cls: type[Any]) -> set[str]:
    return {f.name for f in attrs.fields(cls) if not f.name.startswith("_")}


def test_agent_context_has_exactly_the_promised_fields() -> None:
    assert public_fields(AgentContext) == {
        "agent",
        "messages",
        "session",
        "instructions",
        "tools",
        "options",
        "stream",
        "metadata",
        "run",
        "result",
        "return_directly",
        "terminated",
    }


def test_chat_context_has_exactly_the_promised_fields() -> None:
    assert public_fields(ChatContext) == {
        "client",
        "messages",
        "options",
        "stream",
        "metadata",
        "run",
        "result",
        "terminated",
    }


def test_function_invocation_context_has_exactly_the_promised_fields() -> None:
    assert public_fields(FunctionInvocationContext) == {
        "function",
        "arguments",
        "call_id",
        "metadata",
        "run",
        "result",
        "terminated",
        "approved",
        "error_detail",
    }


def _contexts() -> list[object]:
    run = RunContext()
    client = ScriptedChatClient([])
    return [
        AgentContext(
            agent=Agent(client),
            messages=[],
            session=None,
            instructions=None,
            tools=[],
            options={},
            stream=False,
            run=run,
        ),
        ChatContext(client=client, messages=[], options={}, stream=False, run=run),
        FunctionInvocationContext(function=add, arguments={}, call_id="c1", run=run),
    ]


@pytest.mark.parametrize("context", _contexts(), ids=lambda c: type(c).__name__)
def test_every_public_field_of_a_context_can_be_reassigned(context: object) -> None:
    for name in public_fields(type(context)):
        replacement = object()
        setattr(context, name, replacement)
        assert getattr(context, name) is replacement


@pytest.mark.parametrize("stream", [False, True])
async def test_agent_context_holds_the_run_inputs_and_then_the_result(stream: bool) -> None:
    seen: dict[str, Any] = {}

    async def capture(context: AgentContext, call_next: CallNext) -> None:
        seen["before"] = attrs.asdict(context, recurse=False)
        seen["before"]["options"] = dict(context.options)
        await call_next()
        seen["result"] = context.result

    client = ScriptedChatClient([text("done")])
    agent = Agent(
        client, "be brief", tools=[add], middleware=[capture], default_options={"seed": 7}
    )
    session = agent.create_session()
    await run_agent(agent, "hi", stream=stream, session=session, options={"temperature": 0.5})

    before = seen["before"]
    assert before["agent"] is agent
    assert before["messages"] == [Message("user", "hi")]
    assert before["session"] is session
    assert before["instructions"] == "be brief"
    assert before["tools"] == [add]
    assert before["options"] == {"seed": 7, "temperature": 0.5}
    assert before["stream"] is stream
    assert isinstance(before["run"], RunContext)
    assert before["run"].session is session
    assert before["return_directly"] == set()
    assert before["metadata"] == {}
    assert before["result"] is None
    expected = ResponseStream if stream else AgentResponse
    assert isinstance(seen["result"], expected)


@pytest.mark.parametrize("stream", [False, True])
async def test_chat_context_holds_the_model_call_and_then_its_result(stream: bool) -> None:
    seen: dict[str, Any] = {}

    async def capture_agent(context: AgentContext, call_next: CallNext) -> None:
        seen["run"] = context.run
        await call_next()

    async def capture_chat(context: ChatContext, call_next: CallNext) -> None:
        seen["client"] = context.client
        seen["messages"] = list(context.messages)
        seen["options"] = dict(context.options)
        seen["stream"] = context.stream
        seen["run"] = seen["run"] is context.run
        seen["metadata"] = dict(context.metadata)
        seen["result_before"] = context.result
        await call_next()
        seen["result"] = context.result

    client = ScriptedChatClient([text("done")])
    agent = Agent(client, "be brief", tools=[add], middleware=[capture_agent, capture_chat])
    await run_agent(agent, "hi", stream=stream, options={"temperature": 0.5})

    assert seen["client"] is client
    assert seen["messages"] == [Message("user", "hi")]
    assert seen["options"] == {"instructions": "be brief", "tools": [add], "temperature": 0.5}
    assert seen["stream"] is stream
    assert seen["run"] is True  # the very RunContext the agent middleware saw
    assert seen["metadata"] == {}
    assert seen["result_before"] is None
    assert isinstance(seen["result"], ResponseStream if stream else ChatResponse)


@pytest.mark.parametrize("stream", [False, True])
async def test_function_context_holds_the_validated_call_and_then_its_result(
    stream: bool,
) -> None:
    seen: dict[str, Any] = {}
    runs: list[RunContext] = []

    async def capture_agent(context: AgentContext, call_next: CallNext) -> None:
        runs.append(context.run)
        await call_next()

    async def capture(context: FunctionInvocationContext, call_next: CallNext) -> None:
        seen["function"] = context.function
        seen["arguments"] = dict(context.arguments)
        seen["call_id"] = context.call_id
        seen["run"] = context.run
        seen["metadata"] = dict(context.metadata)
        seen["result_before"] = context.result
        await call_next()
        seen["result"] = context.result

    client = ScriptedChatClient([one_call("add", '{"a": 2, "b": 3}', "call_9"), text("5")])
    agent = Agent(client, tools=[add], middleware=[capture_agent, capture])
    await run_agent(agent, "add", stream=stream)

    assert seen["function"] is add
    assert seen["arguments"] == {"a": 2, "b": 3}
    assert seen["call_id"] == "call_9"
    assert seen["run"] is runs[0]
    assert seen["metadata"] == {}
    assert seen["result_before"] is None
    assert seen["result"] == 5


@pytest.mark.parametrize("stream", [False, True])
async def test_metadata_is_shared_by_the_middleware_of_one_call(stream: bool) -> None:
    seen: list[object] = []

    async def outer(context: ChatContext, call_next: CallNext) -> None:
        await call_next()
        seen.append(context.metadata.get("note"))

    async def inner(context: ChatContext, call_next: CallNext) -> None:
        context.metadata["note"] = f"call with {len(context.messages)} messages"
        await call_next()

    client = ScriptedChatClient([one_call("add", '{"a": 1, "b": 1}'), text("2")])
    agent = Agent(client, tools=[add], middleware=[outer, inner])
    await run_agent(agent, "add", stream=stream)

    # One context per model call: the second call's metadata starts empty again.
    assert seen == ["call with 1 messages", "call with 3 messages"]
