"""Tool errors become results; error streaks and the iteration cap end in a final
call without tools; unknown tools are reported or raised."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest

from agentcore import (
    Agent,
    FunctionCallContent,
    FunctionInvocationConfiguration,
    FunctionInvocationContext,
    FunctionResultContent,
    InMemoryHistoryStore,
    Message,
    ToolLoop,
    function_middleware,
    tool,
)
from agentcore.errors import UnknownToolError
from agentcore.testing import ScriptedChatClient

from .harness import assert_history_valid, calls, one_call, results, run_agent, run_loop, text

pytestmark = pytest.mark.anyio


@tool
def boom() -> str:
    """Always fails."""
    raise RuntimeError("secret detail")


@tool
def ping() -> str:
    """Answer pong."""
    return "pong"


def _agent(client: ScriptedChatClient, **settings: int | bool) -> Agent:
    config = FunctionInvocationConfiguration(**settings)  # type: ignore[arg-type] # test settings
    return Agent(client, tools=[boom, ping], tool_loop=config)


@pytest.mark.parametrize("stream", [False, True])
async def test_a_tool_exception_becomes_a_generic_error_result(stream: bool) -> None:
    client = ScriptedChatClient([one_call("boom"), text("sorry")])

    response, _ = await run_agent(_agent(client), "go", stream=stream)

    assert results(response.messages) == [
        FunctionResultContent("c1", result="Error: boom failed.", error="exception")
    ]
    assert "secret detail" not in str(client.requests[1].messages)
    assert response.text == "sorry"
    assert_history_valid(client.requests)


@pytest.mark.parametrize("stream", [False, True])
async def test_detailed_errors_put_the_exception_in_the_result(stream: bool) -> None:
    client = ScriptedChatClient([one_call("boom"), text("sorry")])

    response, _ = await run_agent(_agent(client, include_detailed_errors=True), "go", stream=stream)

    assert results(response.messages) == [
        FunctionResultContent(
            "c1", result="Error: boom failed. RuntimeError: secret detail", error="exception"
        )
    ]
    assert_history_valid(client.requests)


@tool
def slow() -> str:
    """Times out, saying something it should not."""
    raise TimeoutError("secret detail")


@function_middleware
async def hide_detail(
    context: FunctionInvocationContext, call_next: Callable[[], Awaitable[None]]
) -> None:
    try:
        await call_next()
    except Exception:
        context.error_detail = "(hidden)"
        raise


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(
    ("name", "expected"),
    [("boom", "Error: boom failed. (hidden)"), ("slow", "Error: slow timed out. (hidden)")],
)
async def test_a_function_middleware_can_replace_the_error_detail(
    stream: bool, name: str, expected: str
) -> None:
    client = ScriptedChatClient([one_call(name), text("sorry")])
    config = FunctionInvocationConfiguration(include_detailed_errors=True)
    agent = Agent(client, tools=[boom, slow], tool_loop=config, middleware=[hide_detail])

    response, _ = await run_agent(agent, "go", stream=stream)

    assert [r.result for r in results(response.messages)] == [expected]
    assert "secret detail" not in str(client.requests[1].messages)


@pytest.mark.parametrize("stream", [False, True])
async def test_consecutive_error_batches_end_in_one_call_without_tools(stream: bool) -> None:
    client = ScriptedChatClient(
        [one_call("boom", call_id="c1"), one_call("boom", call_id="c2"), text("I give up")]
    )

    response, _ = await run_agent(
        _agent(client, max_consecutive_errors_per_request=2), "go", stream=stream
    )

    assert len(client.requests) == 3
    assert [r.options.get("tool_choice") for r in client.requests] == [None, None, "none"]
    assert response.text == "I give up"
    assert [m.role for m in response.messages] == ["assistant", "tool"] * 2 + ["assistant"]
    assert_history_valid(client.requests)


@pytest.mark.parametrize("stream", [False, True])
async def test_the_final_call_does_not_run_calls_the_model_makes_anyway(stream: bool) -> None:
    client = ScriptedChatClient([one_call("boom", call_id="c1"), one_call("ping", call_id="c2")])

    response, _ = await run_agent(
        _agent(client, max_consecutive_errors_per_request=1), "go", stream=stream
    )

    assert len(client.requests) == 2
    assert [m.role for m in response.messages] == ["assistant", "tool", "assistant"]
    assert results(response.messages) == [
        FunctionResultContent("c1", result="Error: boom failed.", error="exception")
    ]


@pytest.mark.parametrize("stream", [False, True])
async def test_a_call_left_by_the_final_call_is_never_stored(
    stream: bool,
) -> None:
    client = ScriptedChatClient(
        [one_call("boom", call_id="c1"), one_call("ping", call_id="c2"), text("fresh")]
    )
    agent = Agent(
        client,
        tools=[boom, ping],
        history=InMemoryHistoryStore(),
        tool_loop=FunctionInvocationConfiguration(max_consecutive_errors_per_request=1),
    )
    session = agent.create_session()

    await run_agent(agent, "go", stream=stream, session=session)
    response, _ = await run_agent(agent, "again", stream=stream, session=session)

    assert response.text == "fresh"
    assert [m.role for m in client.requests[2].messages] == [
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
    ]
    sent_ids = {
        c.call_id
        for m in client.requests[2].messages
        for c in m.contents
        if isinstance(c, (FunctionCallContent, FunctionResultContent))
    }
    assert sent_ids == {"c1"}  # the unexecuted call c2 was never stored
    assert_history_valid(client.requests)


@pytest.mark.parametrize("stream", [False, True])
async def test_a_success_resets_the_consecutive_error_count(stream: bool) -> None:
    client = ScriptedChatClient(
        [
            one_call("boom", call_id="c1"),
            one_call("ping", call_id="c2"),
            one_call("boom", call_id="c3"),
            text("done"),
        ]
    )

    response, _ = await run_agent(
        _agent(client, max_consecutive_errors_per_request=2), "go", stream=stream
    )

    assert len(client.requests) == 4
    assert all("tool_choice" not in r.options for r in client.requests)
    assert response.text == "done"
    assert_history_valid(client.requests)


@pytest.mark.parametrize("stream", [False, True])
async def test_a_batch_with_one_error_counts_as_an_error_batch(stream: bool) -> None:
    client = ScriptedChatClient(
        [calls(("c1", "ping", "{}"), ("c2", "boom", "{}")), text("final answer")]
    )

    response, _ = await run_agent(
        _agent(client, max_consecutive_errors_per_request=1), "go", stream=stream
    )

    assert client.requests[1].options["tool_choice"] == "none"
    assert response.text == "final answer"


@pytest.mark.parametrize("stream", [False, True])
async def test_max_iterations_ends_in_one_call_without_tools(stream: bool) -> None:
    client = ScriptedChatClient(
        [one_call("ping", call_id="c1"), one_call("ping", call_id="c2"), text("enough")]
    )

    response, _ = await run_agent(_agent(client, max_iterations=2), "go", stream=stream)

    assert [r.options.get("tool_choice") for r in client.requests] == [None, None, "none"]
    assert response.text == "enough"
    assert results(response.messages) == [
        FunctionResultContent("c1", result="pong"),
        FunctionResultContent("c2", result="pong"),
    ]
    assert_history_valid(client.requests)


@pytest.mark.parametrize("stream", [False, True])
async def test_the_final_call_keeps_the_run_options(stream: bool) -> None:
    client = ScriptedChatClient([one_call("ping"), text("enough")])

    await run_agent(
        _agent(client, max_iterations=1),
        "go",
        stream=stream,
        options={"temperature": 0.5},
    )

    final = client.requests[-1].options
    assert final["temperature"] == 0.5
    assert final["tool_choice"] == "none"


@pytest.mark.parametrize("stream", [False, True])
async def test_an_unknown_tool_gets_an_error_result_listing_the_tools(stream: bool) -> None:
    client = ScriptedChatClient([one_call("teleport"), text("no such tool")])

    response, _ = await run_agent(_agent(client), "go", stream=stream)

    assert results(response.messages) == [
        FunctionResultContent(
            "c1",
            result="Error: there is no tool named 'teleport'. Available tools: boom, ping.",
            error="unknown tool",
        )
    ]
    assert response.text == "no such tool"
    assert_history_valid(client.requests)


@pytest.mark.parametrize("stream", [False, True])
async def test_terminate_on_unknown_calls_raises_unknown_tool_error(stream: bool) -> None:
    client = ScriptedChatClient([one_call("teleport")])

    with pytest.raises(UnknownToolError, match="teleport") as caught:
        await run_agent(_agent(client, terminate_on_unknown_calls=True), "go", stream=stream)

    assert caught.value.name == "teleport"
    assert "boom, ping" in str(caught.value)


@pytest.mark.parametrize("stream", [False, True])
async def test_terminate_on_unknown_calls_raises_before_any_call_of_the_batch_runs(
    stream: bool,
) -> None:
    ran: list[str] = []

    @tool
    def record() -> str:
        """Record a call."""
        ran.append("record")
        return "ok"

    client = ScriptedChatClient([calls(("c1", "record", "{}"), ("c2", "teleport", "{}"))])
    loop = ToolLoop(client, config=FunctionInvocationConfiguration(terminate_on_unknown_calls=True))

    with pytest.raises(UnknownToolError, match="teleport"):
        await run_loop(loop, [Message("user", "go")], stream=stream, options={"tools": [record]})

    assert ran == []
