"""ModelFallback: a failing client hands the call to the next one, in both modes."""

from __future__ import annotations

import re
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

import anyio.lowlevel
import attrs
import pytest
from agentcore_contrib.fallback import ModelFallback
from agentcore_contrib.retry import Retry

from agentcore import (
    Agent,
    AgentResponse,
    ChatContext,
    ChatResponse,
    ChatResponseUpdate,
    ResponseStream,
    TextContent,
)
from agentcore.errors import (
    AuthenticationError,
    ContextLengthExceededError,
    RateLimitedError,
    TransientError,
)
from agentcore.middleware import CallNext
from agentcore.testing import ScriptedChatClient

pytestmark = pytest.mark.anyio


@pytest.fixture(params=[False, True], ids=["call", "stream"])
def stream(request: pytest.FixtureRequest) -> bool:
    return bool(request.param)


async def run(agent: Agent, messages: str = "hi", *, stream: bool) -> AgentResponse[Any]:
    """Run once; a streaming run must fold into its final response."""
    if not stream:
        return await agent.run(messages)
    result = agent.run(messages, stream=True)
    updates = [update async for update in result]
    final = await result.get_final_response()
    assert AgentResponse.from_updates(updates) == attrs.evolve(final, value=None)
    return final


class AnsweredBy:
    """Outer chat middleware recording ``fallback_index`` of every model call."""

    def __init__(self) -> None:
        self.indexes: list[int] = []

    async def process(self, context: ChatContext, call_next: CallNext) -> None:
        await call_next()
        result = context.result
        if isinstance(result, ResponseStream):
            context.result = result.with_result_hook(
                lambda _final: self.indexes.append(context.metadata["fallback_index"])
            )
        else:
            self.indexes.append(context.metadata["fallback_index"])


async def test_retryable_error_hands_the_call_to_the_next_client(stream: bool) -> None:
    primary = ScriptedChatClient([RateLimitedError("429")])
    backup = ScriptedChatClient(["from the backup"])
    agent = Agent(primary, middleware=[ModelFallback([backup])])

    response = await run(agent, stream=stream)

    assert response.text == "from the backup"


async def test_context_length_error_hands_the_call_to_the_next_client(stream: bool) -> None:
    primary = ScriptedChatClient([ContextLengthExceededError("too long")])
    backup = ScriptedChatClient(["bigger window"])
    agent = Agent(primary, middleware=[ModelFallback([backup])])

    response = await run(agent, stream=stream)

    assert response.text == "bigger window"


async def test_fallback_client_gets_the_same_messages_and_options(stream: bool) -> None:
    primary = ScriptedChatClient([TransientError("503")])
    backup = ScriptedChatClient(["ok"])
    agent = Agent(primary, "Be brief.", middleware=[ModelFallback([backup])])

    await run(agent, stream=stream)

    assert backup.requests[0].messages == primary.requests[0].messages
    assert backup.requests[0].options == primary.requests[0].options


async def test_clients_are_tried_in_order(stream: bool) -> None:
    primary = ScriptedChatClient([TransientError("a")])
    second = ScriptedChatClient([TransientError("b")])
    third = ScriptedChatClient(["third"])
    probe = AnsweredBy()
    agent = Agent(primary, middleware=[probe, ModelFallback([second, third])])

    response = await run(agent, stream=stream)

    assert response.text == "third"
    assert probe.indexes == [2]


async def test_answering_client_is_recorded_in_metadata(stream: bool) -> None:
    probe = AnsweredBy()
    agent = Agent(ScriptedChatClient(["own"]), middleware=[probe, ModelFallback([backup()])])

    await run(agent, stream=stream)

    assert probe.indexes == [0]


def backup() -> ScriptedChatClient:
    return ScriptedChatClient(["backup"])


async def test_other_errors_propagate_without_fallback(stream: bool) -> None:
    spare = backup()
    agent = Agent(
        ScriptedChatClient([AuthenticationError("bad key")]), middleware=[ModelFallback([spare])]
    )

    with pytest.raises(AuthenticationError):
        await run(agent, stream=stream)
    assert spare.requests == []


async def test_last_clients_error_propagates(stream: bool) -> None:
    primary = ScriptedChatClient([TransientError("first")])
    last = ScriptedChatClient([TransientError("last")])
    agent = Agent(primary, middleware=[ModelFallback([last])])

    with pytest.raises(TransientError, match="last"):
        await run(agent, stream=stream)


async def test_every_model_call_starts_with_the_agents_client() -> None:
    primary = ScriptedChatClient([TransientError("down"), "primary again"])
    agent = Agent(primary, middleware=[ModelFallback([backup()])])

    await agent.run("one")
    second = await agent.run("two")

    assert second.text == "primary again"


async def test_retry_inside_retries_each_client_first(stream: bool) -> None:
    primary = ScriptedChatClient([TransientError("1"), TransientError("2")])
    spare = backup()

    async def no_wait(_seconds: float) -> None:
        await anyio.lowlevel.checkpoint()

    retry = Retry(max_attempts=2, sleep=no_wait)
    agent = Agent(primary, middleware=[ModelFallback([spare]), retry])

    response = await run(agent, stream=stream)

    assert (len(primary.requests), response.text) == (2, "backup")


async def _fails_after(text: str) -> AsyncGenerator[ChatResponseUpdate, None]:
    yield ChatResponseUpdate(contents=TextContent(text), role="assistant")
    raise TransientError("connection reset")


async def test_stream_failure_after_the_first_update_does_not_fall_back() -> None:
    primary = ScriptedChatClient([])  # BreakingStream answers in its place
    spare = backup()

    class BreakingStream:
        async def process(self, context: ChatContext, call_next: CallNext) -> None:
            if context.client is primary:
                context.result = ResponseStream(
                    _fails_after("partial"), finalizer=ChatResponse.from_updates
                )
            else:
                await call_next()

    agent = Agent(primary, middleware=[ModelFallback([spare]), BreakingStream()])
    received: list[str] = []

    async def read() -> None:
        async for update in agent.run("hi", stream=True):
            received.append(update.text)

    with pytest.raises(TransientError):
        await read()
    assert received == ["partial"]
    assert spare.requests == []


def test_empty_client_list_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one client"):
        ModelFallback([])


def test_non_client_is_refused() -> None:
    with pytest.raises(TypeError, match=r"clients\[0\] is not a chat client"):
        ModelFallback([object()])  # type: ignore[list-item]  # the mistake under test


async def test_docs_example_runs() -> None:
    source = Path(__file__).parents[2] / "docs" / "middleware" / "fallback.md"
    code = re.search(r"```python\n(.*?)```", source.read_text(), re.S)
    assert code is not None
    namespace: dict[str, Any] = {"__name__": "docs_example"}
    exec(compile(code.group(1), str(source), "exec"), namespace)
    await namespace["main"]()
