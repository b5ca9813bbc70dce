"""Retry: retryable model-call failures are retried with backoff, in both modes."""

from __future__ import annotations

import re
from collections.abc import AsyncGenerator, Awaitable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, overload

import anyio.lowlevel
import attrs
import pytest
from agentcore_contrib.retry import Retry

from agentcore import (
    Agent,
    AgentResponse,
    ChatContext,
    ChatResponse,
    ChatResponseUpdate,
    Message,
    ResponseStream,
    TextContent,
)
from agentcore.errors import InvalidRequestError, RateLimitedError, TransientError
from agentcore.middleware import CallNext
from agentcore.testing import ScriptedChatClient

pytestmark = pytest.mark.anyio


@pytest.fixture(params=[False, True], ids=["call", "stream"])
def stream(request: pytest.FixtureRequest) -> bool:
    return bool(request.param)


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Sleeps:
    """A sleep stub: records each delay and moves the fake clock on."""

    def __init__(self, clock: FakeClock | None = None) -> None:
        self.delays: list[float] = []
        self._clock = clock

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)
        if self._clock is not None:
            self._clock.now += delay
        await anyio.lowlevel.checkpoint()


async def run(agent: Agent, messages: str = "hi", *, stream: bool) -> AgentResponse[Any]:
    """Run once; a streaming run must fold into its final response."""
    if not stream:
        return await agent.run(messages)
    result = agent.run(messages, stream=True)
    updates = [update async for update in result]
    final = await result.get_final_response()
    assert AgentResponse.from_updates(updates) == attrs.evolve(final, value=None)
    return final


async def _broken(text: str, error: Exception) -> AsyncGenerator[ChatResponseUpdate, None]:
    yield ChatResponseUpdate(contents=TextContent(text), role="assistant")
    raise error


class BreaksMidStream:
    """A client whose first stream delivers ``text`` and then fails; later calls answer."""

    def __init__(self, text: str, error: Exception, answer: str) -> None:
        self.calls = 0
        self._text = text
        self._error = error
        self._answer = answer

    @overload
    def get_response(
        self,
        messages: Sequence[Message],
        *,
        options: Mapping[str, Any] | None = None,
        stream: Literal[False] = False,
    ) -> Awaitable[ChatResponse[Any]]: ...

    @overload
    def get_response(
        self,
        messages: Sequence[Message],
        *,
        options: Mapping[str, Any] | None = None,
        stream: Literal[True],
    ) -> ResponseStream[ChatResponseUpdate, ChatResponse[Any]]: ...

    def get_response(
        self,
        messages: Sequence[Message],
        *,
        options: Mapping[str, Any] | None = None,
        stream: bool = False,
    ) -> Awaitable[ChatResponse[Any]] | ResponseStream[ChatResponseUpdate, ChatResponse[Any]]:
        self.calls += 1
        script = ScriptedChatClient([self._answer])
        if self.calls == 1 and stream:
            return ResponseStream(
                _broken(self._text, self._error), finalizer=ChatResponse.from_updates
            )
        if stream:
            return script.get_response(messages, stream=True)
        return script.get_response(messages)


async def test_retryable_error_is_retried_until_the_call_succeeds(stream: bool) -> None:
    client = ScriptedChatClient([TransientError("503"), RateLimitedError("429"), "finally"])
    sleeps = Sleeps()
    agent = Agent(client, middleware=[Retry(max_attempts=3, sleep=sleeps)])

    response = await run(agent, stream=stream)

    assert response.text == "finally"
    assert len(client.requests) == 3
    assert len(sleeps.delays) == 2


async def test_non_retryable_error_propagates_at_once(stream: bool) -> None:
    client = ScriptedChatClient([InvalidRequestError("bad request"), "never"])
    sleeps = Sleeps()
    agent = Agent(client, middleware=[Retry(sleep=sleeps)])

    with pytest.raises(InvalidRequestError):
        await run(agent, stream=stream)
    assert len(client.requests) == 1
    assert sleeps.delays == []


async def test_last_error_propagates_after_max_attempts(stream: bool) -> None:
    client = ScriptedChatClient([TransientError("1"), TransientError("2"), TransientError("3")])
    agent = Agent(client, middleware=[Retry(max_attempts=3, sleep=Sleeps())])

    with pytest.raises(TransientError, match="3"):
        await run(agent, stream=stream)
    assert len(client.requests) == 3


async def test_backoff_grows_exponentially_under_full_jitter(stream: bool) -> None:
    client = ScriptedChatClient([TransientError("x")] * 3 + ["ok"])
    sleeps = Sleeps()
    retry = Retry(
        max_attempts=4, initial_delay=1.0, multiplier=2.0, random=lambda: 0.5, sleep=sleeps
    )

    await run(Agent(client, middleware=[retry]), stream=stream)

    assert sleeps.delays == [0.5, 1.0, 2.0]


async def test_backoff_is_capped_by_max_delay(stream: bool) -> None:
    client = ScriptedChatClient([TransientError("x")] * 3 + ["ok"])
    sleeps = Sleeps()
    retry = Retry(
        max_attempts=4, initial_delay=1.0, max_delay=1.5, random=lambda: 1.0, sleep=sleeps
    )

    await run(Agent(client, middleware=[retry]), stream=stream)

    assert sleeps.delays == [1.0, 1.5, 1.5]


async def test_retry_after_is_waited_at_least(stream: bool) -> None:
    client = ScriptedChatClient([RateLimitedError("429", retry_after=7.0), "ok"])
    sleeps = Sleeps()
    agent = Agent(client, middleware=[Retry(random=lambda: 0.0, sleep=sleeps)])

    await run(agent, stream=stream)

    assert sleeps.delays == [7.0]


async def test_deadline_stops_retrying_before_a_wait_would_pass_it(stream: bool) -> None:
    clock = FakeClock()
    client = ScriptedChatClient([RateLimitedError("429", retry_after=3.0)] * 3 + ["ok"])
    retry = Retry(max_attempts=10, deadline=5.0, sleep=Sleeps(clock), clock=clock)

    with pytest.raises(RateLimitedError):
        await run(Agent(client, middleware=[retry]), stream=stream)
    assert len(client.requests) == 2


async def test_attempts_are_recorded_in_metadata() -> None:
    seen: list[int] = []

    class Probe:
        async def process(self, context: ChatContext, call_next: CallNext) -> None:
            await call_next()
            seen.append(context.metadata["retry_attempts"])

    client = ScriptedChatClient([TransientError("x"), "ok"])
    agent = Agent(client, middleware=[Probe(), Retry(sleep=Sleeps())])

    await agent.run("hi")

    assert seen == [2]


async def test_streamed_attempts_are_recorded_once_the_stream_is_read() -> None:
    seen: list[int] = []

    class Probe:
        async def process(self, context: ChatContext, call_next: CallNext) -> None:
            await call_next()
            assert isinstance(context.result, ResponseStream)
            context.result = context.result.with_result_hook(
                lambda _final: seen.append(context.metadata["retry_attempts"])
            )

    client = ScriptedChatClient([TransientError("x"), "ok"])
    agent = Agent(client, middleware=[Probe(), Retry(sleep=Sleeps())])

    await run(agent, stream=True)

    assert seen == [2]


async def test_every_attempt_sends_the_messages_it_was_given(stream: bool) -> None:
    class AppendsANote:
        async def process(self, context: ChatContext, call_next: CallNext) -> None:
            context.messages.append(Message("user", "note"))
            await call_next()

    client = ScriptedChatClient([TransientError("x"), "ok"])
    agent = Agent(client, middleware=[Retry(sleep=Sleeps()), AppendsANote()])

    await run(agent, stream=stream)

    first, second = client.requests
    assert first.messages == second.messages
    assert [m.text for m in second.messages] == ["hi", "note"]


async def test_stream_failure_after_the_first_update_is_not_retried() -> None:
    client = BreaksMidStream("partial", TransientError("connection reset"), "full answer")
    sleeps = Sleeps()
    agent = Agent(client, middleware=[Retry(sleep=sleeps)])

    received: list[str] = []

    async def read() -> None:
        async for update in agent.run("hi", stream=True):
            received.append(update.text)

    with pytest.raises(TransientError):
        await read()

    assert received == ["partial"]
    assert client.calls == 1
    assert sleeps.delays == []


async def test_stream_retry_keeps_the_inner_final_response() -> None:
    usage_note = {"served_by": "inner"}

    class TagsFinal:
        async def process(self, context: ChatContext, call_next: CallNext) -> None:
            await call_next()
            assert isinstance(context.result, ResponseStream)
            context.result = context.result.with_result_hook(
                lambda final: attrs.evolve(final, additional_properties=usage_note)
            )

    finals: list[ChatResponse[Any]] = []

    class Collects:
        async def process(self, context: ChatContext, call_next: CallNext) -> None:
            await call_next()
            assert isinstance(context.result, ResponseStream)
            context.result = context.result.with_result_hook(finals.append)

    client = ScriptedChatClient([TransientError("x"), "ok"])
    agent = Agent(client, middleware=[Collects(), Retry(sleep=Sleeps()), TagsFinal()])

    await run(agent, stream=True)

    assert [f.additional_properties for f in finals] == [usage_note]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_attempts": 0}, "max_attempts must be an int >= 1"),
        ({"initial_delay": -1}, "initial_delay must be >= 0"),
        ({"multiplier": 0.5}, "multiplier must be >= 1"),
        ({"deadline": 0}, "deadline must be > 0"),
    ],
)
def test_bad_settings_are_refused(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Retry(**kwargs)


async def test_docs_example_runs() -> None:
    source = Path(__file__).parents[2] / "docs" / "middleware" / "retry.md"
    code = re.search(r"```python\n(.*?)```", source.read_text(), re.S)
    assert code is not None
    namespace: dict[str, Any] = {"__name__": "docs_example"}
    exec(compile(code.group(1), str(source), "exec"), namespace)
    await namespace["main"]()
