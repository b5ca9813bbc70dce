"""What the ``@tool`` machinery does, seen through the loop: validation errors, context
injection, worker threads, progress events, timeouts and invocation limits."""

from __future__ import annotations

import threading
from collections.abc import AsyncGenerator

import anyio
import pytest

from agentcore import (
    Agent,
    AgentContext,
    CustomEvent,
    FunctionResultContent,
    InMemoryHistoryStore,
    ToolContext,
    tool,
)
from agentcore.middleware import CallNext
from agentcore.testing import ScriptedChatClient

from .harness import assert_history_valid, calls, one_call, results, run_agent, text

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("stream", [False, True])
async def test_invalid_arguments_become_an_error_result_naming_the_field(stream: bool) -> None:
    ran: list[str] = []

    @tool
    def weather(city: str, days: int = 1) -> str:
        """Forecast the weather."""
        ran.append(city)
        return "sunny"

    client = ScriptedChatClient([one_call("weather", '{"city": 42}'), text("let me retry")])

    response, _ = await run_agent(Agent(client, tools=[weather]), "go", stream=stream)

    assert ran == []
    (result,) = results(response.messages)
    assert result.error == "invalid arguments"
    assert "city: expected str, got 42" in result.result
    assert results(client.requests[1].messages) == [result]
    assert_history_valid(client.requests)


@pytest.mark.parametrize("stream", [False, True])
async def test_tool_context_is_injected_with_the_call_and_the_run(stream: bool) -> None:
    seen: list[tuple[str, str, object, object]] = []

    @tool
    def remember(note: str, context: ToolContext) -> str:
        """Remember a note."""
        seen.append((context.call_id, context.tool_name, context.session, context.locals["user"]))
        return note

    async def set_user(context: AgentContext, call_next: CallNext) -> None:
        context.run.set("user", "ada")
        await call_next()

    client = ScriptedChatClient([one_call("remember", '{"note": "hi"}', "call-7"), text("ok")])
    agent = Agent(client, tools=[remember], middleware=[set_user], history=InMemoryHistoryStore())
    session = agent.create_session()

    await run_agent(agent, "go", stream=stream, session=session)

    assert seen == [("call-7", "remember", session, "ada")]
    declared = client.requests[0].options["tools"][0]
    assert list(declared.parameters["properties"]) == ["note"]


@pytest.mark.parametrize("stream", [False, True])
async def test_sync_tools_run_in_worker_threads(stream: bool) -> None:
    threads: list[int] = []

    @tool
    def where() -> str:
        """Report the thread."""
        threads.append(threading.get_ident())
        return "here"

    client = ScriptedChatClient([one_call("where"), text("ok")])

    await run_agent(Agent(client, tools=[where]), "go", stream=stream)

    assert threads
    assert threads[0] != threading.get_ident()


@pytest.mark.parametrize("stream", [False, True])
async def test_a_waiting_sync_tool_does_not_block_its_async_sibling(stream: bool) -> None:
    released = threading.Event()

    @tool
    def wait_for_release() -> str:
        """Block this thread until released."""
        # If this ran on the event loop, ``release`` could never run to set the event.
        return "released" if released.wait(timeout=5) else "stuck"

    @tool
    async def release() -> str:
        """Release the waiting tool."""
        await anyio.lowlevel.checkpoint()
        released.set()
        return "done"

    client = ScriptedChatClient(
        [calls(("a", "wait_for_release", "{}"), ("b", "release", "{}")), text("ok")]
    )

    response, _ = await run_agent(
        Agent(client, tools=[wait_for_release, release]), "go", stream=stream
    )

    assert results(response.messages)[0] == FunctionResultContent("a", result="released")


@tool
async def count_to(to: int) -> AsyncGenerator[int, None]:
    """Count, reporting progress."""
    for number in range(1, to + 1):
        await anyio.lowlevel.checkpoint()
        yield number


PROGRESS = [
    CustomEvent(name="tool_progress", data=1, source="count_to"),
    CustomEvent(name="tool_progress", data=2, source="count_to"),
]


async def test_progress_events_of_a_streaming_tool_reach_the_non_streaming_response() -> None:
    client = ScriptedChatClient([one_call("count_to", '{"to": 3}'), text("counted")])

    response, _ = await run_agent(Agent(client, tools=[count_to]), "go", stream=False)

    assert list(response.events) == PROGRESS
    assert results(response.messages) == [FunctionResultContent("c1", result=3)]


async def test_progress_events_stream_as_updates_before_the_tool_result() -> None:
    client = ScriptedChatClient([one_call("count_to", '{"to": 3}'), text("counted")])

    response, updates = await run_agent(Agent(client, tools=[count_to]), "go", stream=True)

    events = [u.event for u in updates if u.event is not None]
    assert events == PROGRESS
    assert list(response.events) == PROGRESS
    first_event = next(i for i, u in enumerate(updates) if u.event is not None)
    result_at = next(
        i
        for i, u in enumerate(updates)
        if any(isinstance(c, FunctionResultContent) for c in u.contents)
    )
    answer_at = max(i for i, u in enumerate(updates) if u.role == "assistant" and u.contents)
    assert first_event < result_at
    assert events == [u.event for u in updates[first_event:result_at] if u.event is not None]
    assert result_at < answer_at  # the answer text comes after the result


@pytest.mark.parametrize("stream", [False, True])
async def test_a_tool_timeout_becomes_an_error_result(stream: bool) -> None:
    @tool(timeout=0.01)
    async def slow() -> str:
        """Never finish in time."""
        await anyio.sleep_forever()
        return "unreachable"

    client = ScriptedChatClient([one_call("slow"), text("it timed out")])

    response, _ = await run_agent(Agent(client, tools=[slow]), "go", stream=stream)

    (result,) = results(response.messages)
    assert result.error == "timeout"
    assert "slow timed out" in result.result
    assert response.text == "it timed out"
    assert_history_valid(client.requests)


@pytest.mark.parametrize("stream", [False, True])
async def test_max_invocations_turns_calls_past_the_limit_into_error_results(
    stream: bool,
) -> None:
    ran: list[int] = []

    @tool(max_invocations=2)
    def once_more(n: int) -> int:
        """Limited."""
        ran.append(n)
        return n

    client = ScriptedChatClient(
        [
            one_call("once_more", '{"n": 1}', "c1"),
            calls(("c2", "once_more", '{"n": 2}'), ("c3", "once_more", '{"n": 3}')),
            text("stopped"),
        ]
    )

    response, _ = await run_agent(Agent(client, tools=[once_more]), "go", stream=stream)

    assert len(ran) == 2
    outcomes = results(response.messages)
    assert [r.error for r in outcomes].count("max invocations") == 1
    limited = next(r for r in outcomes if r.error)
    assert "at most 2 times" in limited.result
    assert_history_valid(client.requests)


@pytest.mark.parametrize("stream", [False, True])
async def test_max_invocations_counts_per_run(stream: bool) -> None:
    @tool(max_invocations=1)
    def single() -> str:
        """Once per run."""
        return "ran"

    client = ScriptedChatClient(
        [one_call("single", call_id="c1"), text("a"), one_call("single", call_id="c2"), text("b")]
    )
    agent = Agent(client, tools=[single])

    first, _ = await run_agent(agent, "go", stream=stream)
    second, _ = await run_agent(agent, "go", stream=stream)

    assert results(first.messages) == [FunctionResultContent("c1", result="ran")]
    assert results(second.messages) == [FunctionResultContent("c2", result="ran")]
