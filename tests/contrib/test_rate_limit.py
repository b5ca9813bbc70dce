"""RateLimiter: request and token buckets per tenant, shared by concurrent runs."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import anyio
import anyio.lowlevel
import attrs
import pytest
from agentcore_contrib.rate_limit import RateLimiter

from agentcore import (
    Agent,
    AgentResponse,
    ChatContext,
    ChatOptions,
    ChatResponse,
    ChatResponseUpdate,
    Message,
    TextContent,
    Usage,
)
from agentcore.errors import RateLimitedError
from agentcore.testing import ScriptedChatClient

pytestmark = pytest.mark.anyio


@pytest.fixture(params=[False, True], ids=["call", "stream"])
def stream(request: pytest.FixtureRequest) -> bool:
    return bool(request.param)


class FakeTime:
    """A clock and a sleep stub that moves it on."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, delay: float) -> None:
        self.sleeps.append(delay)
        self.now += delay
        await anyio.lowlevel.checkpoint()


async def run(
    agent: Agent, messages: str = "hi", *, stream: bool, options: ChatOptions[Any] | None = None
) -> AgentResponse[Any]:
    """Run once; a streaming run must fold into its final response."""
    if not stream:
        return await agent.run(messages, options=options)
    result = agent.run(messages, stream=True, options=options)
    updates = [update async for update in result]
    final = await result.get_final_response()
    assert AgentResponse.from_updates(updates) == attrs.evolve(final, value=None)
    return final


def answer(text: str = "ok", *, total_tokens: int | None = None) -> ChatResponse[None]:
    usage = None if total_tokens is None else Usage(total_tokens=total_tokens)
    return ChatResponse(messages=[Message("assistant", text)], usage=usage, finish_reason="stop")


def with_headers(**headers: Any) -> list[ChatResponseUpdate]:
    """A turn (as updates, so it streams with its extra properties too)."""
    return [
        ChatResponseUpdate(contents=TextContent("ok"), role="assistant"),
        ChatResponseUpdate(finish_reason="stop", additional_properties={"rate_limit": headers}),
    ]


def limiter(time: FakeTime, **kwargs: Any) -> RateLimiter:
    return RateLimiter(clock=time.clock, sleep=time.sleep, **kwargs)


async def test_calls_within_the_budget_do_not_wait(stream: bool) -> None:
    time = FakeTime()
    agent = Agent(ScriptedChatClient(["a", "b"]), middleware=[limiter(time, requests_per_minute=2)])

    await run(agent, stream=stream)
    await run(agent, stream=stream)

    assert time.sleeps == []


async def test_call_over_the_request_budget_waits_for_a_refill(stream: bool) -> None:
    time = FakeTime()
    agent = Agent(ScriptedChatClient(["a", "b"]), middleware=[limiter(time, requests_per_minute=1)])

    await run(agent, stream=stream)
    second = await run(agent, stream=stream)

    assert second.text == "b"
    assert time.sleeps == [pytest.approx(60.0)]


async def test_raise_mode_raises_rate_limited_with_retry_after(stream: bool) -> None:
    time = FakeTime()
    client = ScriptedChatClient(["a", "b"])
    agent = Agent(client, middleware=[limiter(time, requests_per_minute=2, on_limit="raise")])
    await run(agent, stream=stream)
    await run(agent, stream=stream)

    with pytest.raises(RateLimitedError) as raised:
        await run(agent, stream=stream)
    assert raised.value.retry_after == pytest.approx(30.0)
    assert len(client.requests) == 2


async def test_token_budget_waits_for_the_estimate_after_real_usage(stream: bool) -> None:
    time = FakeTime()
    client = ScriptedChatClient([answer(total_tokens=80), "b"])
    agent = Agent(client, middleware=[limiter(time, tokens_per_minute=100)])

    await run(agent, "x" * 200, stream=stream)  # estimated 50 tokens, used 80: 20 left
    await run(agent, "y" * 200, stream=stream)  # needs 50: (50 - 20) / (100 / 60) seconds

    assert time.sleeps == [pytest.approx(18.0)]


async def test_usage_below_the_estimate_gives_tokens_back(stream: bool) -> None:
    time = FakeTime()
    client = ScriptedChatClient([answer(total_tokens=10), "b"])
    agent = Agent(client, middleware=[limiter(time, tokens_per_minute=100)])

    await run(agent, "x" * 200, stream=stream)  # estimated 50, used 10: 90 left
    await run(agent, "y" * 200, stream=stream)

    assert time.sleeps == []


async def test_custom_token_counter_sets_the_estimate(stream: bool) -> None:
    time = FakeTime()
    client = ScriptedChatClient(["a", "b"])
    rate = limiter(time, tokens_per_minute=60, token_counter=lambda messages: 40)
    agent = Agent(client, middleware=[rate])

    await run(agent, stream=stream)
    await run(agent, stream=stream)

    assert time.sleeps == [pytest.approx(20.0)]


async def test_rate_limit_headers_lower_the_remaining_budget(stream: bool) -> None:
    time = FakeTime()
    client = ScriptedChatClient([with_headers(remaining_requests=0), "b"])
    agent = Agent(client, middleware=[limiter(time, requests_per_minute=600)])

    await run(agent, stream=stream)
    await run(agent, stream=stream)

    assert time.sleeps == [pytest.approx(0.1)]


async def test_headers_as_strings_are_understood(stream: bool) -> None:
    time = FakeTime()
    client = ScriptedChatClient([with_headers(remaining_tokens="0"), "b"])
    agent = Agent(client, middleware=[limiter(time, tokens_per_minute=600)])

    await run(agent, "x" * 40, stream=stream)
    await run(agent, "y" * 40, stream=stream)  # 10 tokens at 10 a second

    assert time.sleeps == [pytest.approx(1.0)]


async def test_tenants_have_their_own_buckets(stream: bool) -> None:
    time = FakeTime()

    def by_user(context: ChatContext) -> str:
        return str(context.options.get("user"))

    rate = limiter(time, requests_per_minute=1, tenant=by_user)
    agent = Agent(ScriptedChatClient(["a", "b"]), middleware=[rate])

    await run(agent, stream=stream, options={"user": "alice"})
    await run(agent, stream=stream, options={"user": "bob"})

    assert time.sleeps == []


async def test_concurrent_runs_share_one_budget() -> None:
    time = FakeTime()
    shared = limiter(time, requests_per_minute=3, on_limit="raise")
    agents = [Agent(ScriptedChatClient(["ok"]), middleware=[shared]) for _ in range(5)]
    outcomes: list[str] = []

    async def one(agent: Agent) -> None:
        try:
            await agent.run("hi")
        except RateLimitedError:
            outcomes.append("limited")
        else:
            outcomes.append("served")

    async with anyio.create_task_group() as group:
        for agent in agents:
            group.start_soon(one, agent)

    assert sorted(outcomes) == ["limited", "limited", "served", "served", "served"]


async def test_waiting_concurrent_runs_are_served_one_refill_apart() -> None:
    time = FakeTime()
    shared = limiter(time, requests_per_minute=1)
    agent = Agent(ScriptedChatClient(["a", "b", "c"]), middleware=[shared])
    answers: list[str] = []

    async def one() -> None:
        answers.append((await agent.run("hi")).text)

    async with anyio.create_task_group() as group:
        for _ in range(3):
            group.start_soon(one)

    assert sorted(answers) == ["a", "b", "c"]
    assert time.sleeps == [pytest.approx(60.0), pytest.approx(60.0)]


def test_a_limiter_needs_a_rate() -> None:
    with pytest.raises(ValueError, match="needs requests_per_minute, tokens_per_minute"):
        RateLimiter()


def test_bad_on_limit_is_refused() -> None:
    with pytest.raises(ValueError, match="on_limit must be 'wait' or 'raise'"):
        RateLimiter(requests_per_minute=1, on_limit="drop")  # type: ignore[arg-type]  # under test


def test_non_positive_rate_is_refused() -> None:
    with pytest.raises(ValueError, match="tokens_per_minute must be an int >= 1"):
        RateLimiter(tokens_per_minute=0)


async def test_docs_example_runs() -> None:
    source = Path(__file__).parents[2] / "docs" / "middleware" / "rate_limit.md"
    code = re.search(r"```python\n(.*?)```", source.read_text(), re.S)
    assert code is not None
    namespace: dict[str, Any] = {"__name__": "docs_example"}
    exec(compile(code.group(1), str(source), "exec"), namespace)
    await namespace["main"]()
