"""One agent, many runs: no per-run state on the agent, no cross-talk, no leak."""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Mapping, Sequence
from typing import Any

import anyio
import anyio.lowlevel
import pytest

from agentcore import (
    Agent,
    AgentContext,
    AgentSession,
    CallNext,
    ChatContext,
    ChatResponse,
    FunctionCallContent,
    FunctionInvocationContext,
    FunctionResultContent,
    InMemoryHistoryStore,
    Message,
    ResponseStream,
    tool,
)
from agentcore.middleware import Middleware
from agentcore.testing import FunctionChatClient

from ._runs import Outcome, answer_turn, run_agent

pytestmark = pytest.mark.anyio

RUNS = 1000


@tool
async def stamp(token: str) -> str:
    """Stamp a token (yields to other tasks first, so runs interleave)."""
    await anyio.lowlevel.checkpoint()
    return f"stamped {token}"


async def _echo_model(messages: Sequence[Message], _options: Mapping[str, Any]) -> Any:
    """Calls ``stamp`` with the token of the user message, then echoes the tool result."""
    await anyio.lowlevel.checkpoint()
    last = messages[-1]
    if last.role == "user":
        return ChatResponse(
            messages=[
                Message(
                    "assistant",
                    [FunctionCallContent(f"call-{last.text}", "stamp", {"token": last.text})],
                )
            ],
            finish_reason="tool_calls",
        )
    result = last.contents[0]
    assert isinstance(result, FunctionResultContent)
    return answer_turn(f"echo {result.result}")


def _expected_turn(token: str) -> list[Message]:
    return [
        Message("user", token),
        Message("assistant", [FunctionCallContent(f"call-{token}", "stamp", {"token": token})]),
        Message("tool", [FunctionResultContent(f"call-{token}", result=f"stamped {token}")]),
        Message("assistant", f"echo stamped {token}"),
    ]


async def _run_many(agent: Agent, sessions: list[AgentSession], stream: bool) -> list[Outcome]:
    outcomes: list[Outcome | None] = [None] * len(sessions)

    async def one(index: int) -> None:
        outcomes[index] = await run_agent(
            agent, f"token-{index}", stream=stream, session=sessions[index]
        )

    async with anyio.create_task_group() as group:
        for index in range(len(sessions)):
            group.start_soon(one, index)
    return [o for o in outcomes if o is not None]


async def test_concurrent_runs_on_one_agent_keep_their_sessions_apart(stream: bool) -> None:
    store = InMemoryHistoryStore()
    client = FunctionChatClient(_echo_model)
    agent = Agent(client, "Echo the stamp.", tools=[stamp], history=store)
    sessions = [agent.create_session() for _ in range(RUNS)]

    outcomes = await _run_many(agent, sessions, stream)

    assert len(client.requests) == 2 * RUNS
    for index, (session, outcome) in enumerate(zip(sessions, outcomes, strict=True)):
        token = f"token-{index}"
        assert outcome.response.text == f"echo stamped {token}"
        assert await store.load(session.session_id) == _expected_turn(token)


async def test_memory_returns_to_the_baseline_after_many_concurrent_runs(stream: bool) -> None:
    """Retained memory after 1000 concurrent runs and a gc stays under 256 KiB.

    What is fair to count: the agent and the history store, minus what the runs
    were asked to keep. So before measuring, the test drops what legitimately
    outlives a run: the stored messages (cleared from the store), the sessions and
    responses it holds itself, and the test double's request log. A first batch of
    the same size runs before the baseline, so one-time costs (imports, caches,
    dict tables sized for 1000 live sessions) are not mistaken for growth. The
    event loop's own task tables may still resize (up to 64 KiB seen on asyncio),
    hence 256 KiB: a leak of a quarter KiB a run (one small object graph kept per
    run, such as a context or a response) exceeds it.
    """
    store = InMemoryHistoryStore()
    client = FunctionChatClient(_echo_model)
    agent = Agent(client, "Echo the stamp.", tools=[stamp], history=store)

    async def batch() -> None:
        sessions = [agent.create_session() for _ in range(RUNS)]
        outcomes = await _run_many(agent, sessions, stream)
        assert outcomes[-1].response.text == f"echo stamped token-{RUNS - 1}"
        for session in sessions:
            await store.clear(session.session_id)
        client.requests.clear()

    tracemalloc.start()
    try:
        await batch()
        gc.collect()
        baseline = tracemalloc.get_traced_memory()[0]
        await batch()
        gc.collect()
        retained = tracemalloc.get_traced_memory()[0] - baseline
    finally:
        tracemalloc.stop()

    assert retained < 256 * 1024, f"{retained} bytes retained after {RUNS} runs"


async def _noop_agent_middleware(context: AgentContext, call_next: CallNext) -> None:
    await call_next()


async def _mapping_chat_middleware(context: ChatContext, call_next: CallNext) -> None:
    await call_next()
    if isinstance(context.result, ResponseStream):
        context.result = context.result.map(lambda update: update)


async def _noop_function_middleware(
    context: FunctionInvocationContext, call_next: CallNext
) -> None:
    await call_next()


async def test_a_finished_run_leaves_nothing_for_the_cycle_collector(stream: bool) -> None:
    """What a run builds is freed by reference counting as soon as the run is over:
    no reference cycle is left to wait for the garbage collector (which would cost
    a collection pass, and hold the run's memory until then)."""
    middleware: list[Middleware] = [
        _noop_agent_middleware,
        _mapping_chat_middleware,
        _noop_function_middleware,
    ]
    agent = Agent(
        FunctionChatClient(_echo_model), "Echo the stamp.", tools=[stamp], middleware=middleware
    )
    await run_agent(agent, "warm-up", stream=stream)
    gc.collect()
    gc.disable()
    try:
        outcome = await run_agent(agent, "token-1", stream=stream)
        assert outcome.response.text == "echo stamped token-1"
        del outcome
        unreachable = gc.collect()
    finally:
        gc.enable()
    assert unreachable == 0
