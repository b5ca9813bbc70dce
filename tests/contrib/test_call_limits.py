"""CallLimits: per-run caps on model calls, tool calls and tokens."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import attrs
import pytest
from agentcore_contrib.call_limits import CallLimitExceededError, CallLimits

from agentcore import (
    Agent,
    AgentContext,
    AgentResponse,
    ChatOptions,
    ChatResponse,
    FunctionCallContent,
    FunctionResultContent,
    Message,
    ToolLoop,
    Usage,
    tool,
)
from agentcore.middleware import CallNext
from agentcore.testing import ScriptedChatClient

pytestmark = pytest.mark.anyio


@pytest.fixture(params=[False, True], ids=["call", "stream"])
def stream(request: pytest.FixtureRequest) -> bool:
    return bool(request.param)


async def run(
    agent: Agent, messages: str = "go", *, stream: bool, options: ChatOptions[Any] | None = None
) -> AgentResponse[Any]:
    """Run once; a streaming run must fold into its final response."""
    if not stream:
        return await agent.run(messages, options=options)
    result = agent.run(messages, stream=True, options=options)
    updates = [update async for update in result]
    final = await result.get_final_response()
    assert AgentResponse.from_updates(updates) == attrs.evolve(final, value=None)
    return final


def calls(*call_ids: str, tokens: int | None = None) -> ChatResponse[None]:
    contents = [FunctionCallContent(call_id, "ping", "{}") for call_id in call_ids]
    usage = None if tokens is None else Usage(total_tokens=tokens)
    return ChatResponse(
        messages=[Message("assistant", contents)], usage=usage, finish_reason="tool_calls"
    )


class Pings:
    def __init__(self) -> None:
        self.count = 0

    def tool(self) -> Any:
        @tool
        def ping() -> str:
            """Ping."""
            self.count += 1
            return "pong"

        return ping


def agent_with(limits: CallLimits, *script: Any, pings: Pings | None = None) -> Agent:
    tools = [(pings or Pings()).tool()]
    return Agent(ScriptedChatClient(script), tools=tools, middleware=[*limits.middleware])


def results(response: AgentResponse[Any]) -> list[Any]:
    contents = [c for m in response.messages for c in m.contents]
    return [c.result for c in contents if isinstance(c, FunctionResultContent)]


async def test_run_within_its_limits_is_untouched(stream: bool) -> None:
    agent = agent_with(CallLimits(max_model_calls=5), calls("c1"), "done")

    response = await run(agent, stream=stream)

    assert response.text == "done"
    assert "call_limit" not in (response.additional_properties or {})


async def test_model_call_cap_ends_the_run_with_a_message(stream: bool) -> None:
    client_script = [calls("c1"), calls("c2"), calls("c3"), "never"]
    agent = agent_with(CallLimits(max_model_calls=2), *client_script)

    response = await run(agent, stream=stream)

    assert response.messages[-1] == Message(
        "assistant", "Stopped: the run reached its limit of 2 model calls (max_model_calls)."
    )
    assert (response.additional_properties or {})["call_limit"] == {
        "limit": "max_model_calls",
        "maximum": 2,
        "used": 2,
    }


async def test_model_call_cap_makes_no_further_call(stream: bool) -> None:
    client = ScriptedChatClient([calls("c1"), calls("c2"), "never"])
    agent = Agent(
        client, tools=[Pings().tool()], middleware=[*CallLimits(max_model_calls=2).middleware]
    )

    await run(agent, stream=stream)

    assert len(client.requests) == 2


async def test_tool_call_past_the_cap_is_not_run(stream: bool) -> None:
    pings = Pings()
    agent = agent_with(CallLimits(max_tool_calls=1), calls("c1"), calls("c2"), "never", pings=pings)

    response = await run(agent, stream=stream)

    assert pings.count == 1
    assert results(response) == [
        "pong",
        "Error: ping was not run: the run reached its limit of 1 tool calls (max_tool_calls).",
    ]
    assert "max_tool_calls" in response.messages[-1].text


async def test_parallel_calls_over_the_cap_are_refused_one_by_one(stream: bool) -> None:
    pings = Pings()
    agent = agent_with(CallLimits(max_tool_calls=2), calls("a", "b", "c"), "never", pings=pings)

    response = await run(agent, stream=stream)

    assert pings.count == 2
    assert [r == "pong" for r in results(response)].count(True) == 2


async def test_token_cap_stops_before_the_next_call(stream: bool) -> None:
    turns = [calls(f"c{n}", tokens=60) for n in range(3)]
    client = ScriptedChatClient([*turns, "x"])
    limits = CallLimits(max_tokens=100)
    agent = Agent(client, tools=[Pings().tool()], middleware=[*limits.middleware])

    response = await run(agent, stream=stream)

    assert len(client.requests) == 2
    assert response.messages[-1].text == (
        "Stopped: the run reached its limit of 100 tokens (max_tokens; 120 used)."
    )


async def test_raise_mode_raises_a_clear_error(stream: bool) -> None:
    agent = agent_with(
        CallLimits(max_model_calls=1, on_limit="raise"), calls("c1"), calls("c2"), "x"
    )

    with pytest.raises(CallLimitExceededError, match="limit of 1 model calls") as raised:
        await run(agent, stream=stream)
    assert raised.value.limit == "max_model_calls"


async def test_raise_mode_raises_when_the_loop_ends_after_the_tools(stream: bool) -> None:
    limits = CallLimits(max_tool_calls=1, on_limit="raise")
    agent = agent_with(limits, calls("a", "b"))

    with pytest.raises(CallLimitExceededError, match="max_tool_calls"):
        await run(agent, stream=stream, options={"tool_choice": "required"})


async def test_counts_are_reported_in_the_agent_metadata(stream: bool) -> None:
    seen: list[dict[str, Any]] = []

    class Probe:
        async def process(self, context: AgentContext, call_next: CallNext) -> None:
            await call_next()
            if isinstance(context.result, AgentResponse):
                seen.append(context.metadata["call_limits"])
            else:
                assert context.result is not None
                context.result = context.result.with_result_hook(
                    lambda _final: seen.append(context.metadata["call_limits"])
                )

    limits = CallLimits(max_model_calls=10)
    client = ScriptedChatClient([calls("c1", tokens=5), "done"])
    agent = Agent(client, tools=[Pings().tool()], middleware=[Probe(), *limits.middleware])

    await run(agent, stream=stream)

    assert seen == [{"model_calls": 2, "tool_calls": 1, "tokens": 5, "hit": None}]


async def test_every_run_has_its_own_budget(stream: bool) -> None:
    agent = agent_with(CallLimits(max_model_calls=1), "first", "second")

    await run(agent, stream=stream)
    second = await run(agent, stream=stream)

    assert second.text == "second"


async def test_chat_and_function_parts_work_in_a_bare_tool_loop() -> None:
    loop = ToolLoop(
        ScriptedChatClient([calls("c1"), calls("c2"), "never"]),
        middleware=CallLimits(max_model_calls=2).middleware[1:],
    )

    response = await loop.get_response([Message("user", "go")], options={"tools": [Pings().tool()]})

    assert response.messages[-1].text.startswith("Stopped: the run reached its limit of 2")


def test_at_least_one_cap_is_needed() -> None:
    with pytest.raises(ValueError, match="needs at least one of"):
        CallLimits()


def test_bad_cap_is_refused() -> None:
    with pytest.raises(ValueError, match="max_tokens must be an int >= 1"):
        CallLimits(max_tokens=0)


def test_bad_on_limit_is_refused() -> None:
    with pytest.raises(ValueError, match="on_limit must be 'stop' or 'raise'"):
        CallLimits(max_model_calls=1, on_limit="ignore")  # type: ignore[arg-type]  # under test


async def test_docs_example_runs() -> None:
    source = Path(__file__).parents[2] / "docs" / "middleware" / "call_limits.md"
    code = re.search(r"```python\n(.*?)```", source.read_text(), re.S)
    assert code is not None
    namespace: dict[str, Any] = {"__name__": "docs_example"}
    exec(compile(code.group(1), str(source), "exec"), namespace)
    await namespace["main"]()
