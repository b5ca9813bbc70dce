"""Cache: identical requests are answered from the store, in both modes."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import attrs
import pytest
from agentcore_contrib.cache import (
    Cache,
    CacheStore,
    InMemoryCacheStore,
    replay_response,
    request_key,
)

from agentcore import (
    Agent,
    AgentResponse,
    ChatContext,
    ChatOptions,
    ChatResponse,
    ChatResponseUpdate,
    ErrorContent,
    Message,
    ResponseStream,
    RunContext,
    TextContent,
    tool,
)
from agentcore.errors import ChatClientError, TransientError
from agentcore.middleware import CallNext
from agentcore.testing import ScriptedChatClient

pytestmark = pytest.mark.anyio


@pytest.fixture(params=[False, True], ids=["call", "stream"])
def stream(request: pytest.FixtureRequest) -> bool:
    return bool(request.param)


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


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


class MetadataProbe:
    """Chat middleware (outside the cache) that records each call's metadata."""

    def __init__(self) -> None:
        self.seen: list[dict[str, Any]] = []

    async def process(self, context: ChatContext, call_next: CallNext) -> None:
        await call_next()
        self.seen.append(dict(context.metadata))


class DictStore:
    """A minimal CacheStore of the caller's own."""

    def __init__(self) -> None:
        self.data: dict[str, ChatResponse[Any]] = {}
        self.ttls: list[float | None] = []

    async def get(self, key: str) -> ChatResponse[Any] | None:
        return self.data.get(key)

    async def set(self, key: str, response: ChatResponse[Any], ttl: float | None) -> None:
        self.data[key] = response
        self.ttls.append(ttl)


async def test_identical_request_is_answered_without_calling_the_model(stream: bool) -> None:
    client = ScriptedChatClient(["the answer"])
    agent = Agent(client, middleware=[Cache()])

    await run(agent, "question", stream=stream)
    second = await run(agent, "question", stream=stream)

    assert second.text == "the answer"
    assert len(client.requests) == 1


async def test_hit_is_marked_in_metadata(stream: bool) -> None:
    probe = MetadataProbe()
    agent = Agent(ScriptedChatClient(["a"]), middleware=[probe, Cache()])

    await run(agent, "q", stream=stream)
    await run(agent, "q", stream=stream)

    assert [m["cache_hit"] for m in probe.seen] == [False, True]


async def test_streamed_hit_is_replayed_as_a_stream() -> None:
    agent = Agent(ScriptedChatClient(["streamed once"]), middleware=[Cache()])
    await agent.run("q")

    result = agent.run("q", stream=True)
    updates = [update async for update in result]

    assert "".join(u.text for u in updates) == "streamed once"
    assert (await result.get_final_response()).text == "streamed once"


async def test_replayed_hit_final_follows_outer_transforms() -> None:
    client = ScriptedChatClient(["quiet"])
    cache = Cache()
    miss = chat_context(client, stream=False)
    await cache.process(miss, lambda: call_model(miss))
    hit = chat_context(client, stream=True)
    await cache.process(hit, lambda: call_model(hit))
    assert isinstance(hit.result, ResponseStream)

    def shout(update: ChatResponseUpdate) -> ChatResponseUpdate:
        loud = tuple(
            TextContent(c.text.upper()) if isinstance(c, TextContent) else c
            for c in update.contents
        )
        return attrs.evolve(update, contents=loud)

    final = await hit.result.map(shout).get_final_response()

    assert final.text == "QUIET"


async def test_different_messages_are_a_miss(stream: bool) -> None:
    client = ScriptedChatClient(["one", "two"])
    agent = Agent(client, middleware=[Cache()])

    await run(agent, "first", stream=stream)
    second = await run(agent, "second", stream=stream)

    assert second.text == "two"


async def test_different_options_are_a_miss(stream: bool) -> None:
    client = ScriptedChatClient(["cold", "warm"])
    agent = Agent(client, middleware=[Cache()])

    await run(agent, "q", stream=stream, options={"temperature": 0.0})
    second = await run(agent, "q", stream=stream, options={"temperature": 1.0})

    assert second.text == "warm"


async def test_tool_declarations_are_part_of_the_key(stream: bool) -> None:
    @tool
    def lookup(city: str) -> str:
        """Look a city up."""
        return city

    @tool(name="lookup")
    def lookup_by_code(code: int) -> str:
        """Look a city up by its code."""
        return str(code)

    client = ScriptedChatClient(["first", "second"])
    cache = Cache()
    await run(Agent(client, tools=[lookup], middleware=[cache]), "q", stream=stream)
    second = await run(
        Agent(client, tools=[lookup_by_code], middleware=[cache]), "q", stream=stream
    )

    assert second.text == "second"


async def test_failed_call_is_not_cached(stream: bool) -> None:
    client = ScriptedChatClient([TransientError("down"), "recovered"])
    agent = Agent(client, middleware=[Cache()])

    with pytest.raises(TransientError):
        await run(agent, "q", stream=stream)
    second = await run(agent, "q", stream=stream)

    assert second.text == "recovered"


async def test_response_with_an_error_is_not_cached(stream: bool) -> None:
    failed = ChatResponse(
        messages=[Message("assistant", [ErrorContent("overloaded")])], finish_reason="error"
    )
    client = ScriptedChatClient([failed, "fine"])
    agent = Agent(client, middleware=[Cache()])

    with pytest.raises(ChatClientError, match="overloaded"):  # an error event fails the run
        await run(agent, "q", stream=stream)
    second = await run(agent, "q", stream=stream)

    assert second.text == "fine"


async def test_entry_expires_after_its_ttl(stream: bool) -> None:
    clock = FakeClock()
    client = ScriptedChatClient(["old", "new"])
    agent = Agent(client, middleware=[Cache(ttl=60, clock=clock)])

    await run(agent, "q", stream=stream)
    clock.now += 61
    second = await run(agent, "q", stream=stream)

    assert second.text == "new"


async def test_entry_is_served_until_its_ttl(stream: bool) -> None:
    clock = FakeClock()
    client = ScriptedChatClient(["old", "new"])
    agent = Agent(client, middleware=[Cache(ttl=60, clock=clock)])

    await run(agent, "q", stream=stream)
    clock.now += 59
    second = await run(agent, "q", stream=stream)

    assert second.text == "old"


async def test_streamed_miss_serves_later_non_streamed_request() -> None:
    client = ScriptedChatClient(["folded answer"])
    agent = Agent(client, middleware=[Cache()])

    await run(agent, "q", stream=True)
    second = await agent.run("q")

    assert second.text == "folded answer"
    assert len(client.requests) == 1


def chat_context(client: ScriptedChatClient, *, stream: bool) -> ChatContext:
    return ChatContext(
        client=client,
        messages=[Message("user", "q")],
        options={},
        stream=stream,
        run=RunContext(),
    )


async def call_model(context: ChatContext) -> None:
    if context.stream:
        context.result = context.client.get_response(context.messages, stream=True)
    else:
        context.result = await context.client.get_response(context.messages)


async def test_stream_left_before_its_end_is_not_cached() -> None:
    client = ScriptedChatClient(["a long streamed answer", "complete"])
    cache = Cache()
    context = chat_context(client, stream=True)
    await cache.process(context, lambda: call_model(context))
    assert isinstance(context.result, ResponseStream)
    updates = context.result.__aiter__()
    await anext(updates)
    await updates.aclose()

    again = chat_context(client, stream=False)
    await cache.process(again, lambda: call_model(again))

    assert isinstance(again.result, ChatResponse)
    assert again.result.text == "complete"


async def test_custom_store_plugs_in(stream: bool) -> None:
    store = DictStore()
    client = ScriptedChatClient(["stored"])
    agent = Agent(client, middleware=[Cache(store, ttl=5)])

    await run(agent, "q", stream=stream)
    second = await run(agent, "q", stream=stream)

    assert second.text == "stored"
    assert store.ttls == [5]


async def test_custom_key_decides_what_is_identical(stream: bool) -> None:
    client = ScriptedChatClient(["only call"])
    agent = Agent(client, middleware=[Cache(key=lambda context: "one key for all")])

    await run(agent, "q1", stream=stream)
    second = await run(agent, "q2", stream=stream)

    assert second.text == "only call"


async def test_in_memory_store_evicts_the_least_recently_used() -> None:
    store = InMemoryCacheStore(2)
    await store.set("a", ChatResponse(), None)
    await store.set("b", ChatResponse(), None)
    await store.get("a")
    await store.set("c", ChatResponse(), None)

    assert [await store.get(k) is not None for k in ("a", "b", "c")] == [True, False, True]


def test_request_key_ignores_option_order() -> None:
    def context(options: dict[str, Any]) -> ChatContext:
        return ChatContext(
            client=ScriptedChatClient([]),
            messages=[Message("user", "q")],
            options=options,
            stream=False,
            run=RunContext(),
        )

    first = request_key(context({"temperature": 0.5, "seed": 1}))
    second = request_key(context({"seed": 1, "temperature": 0.5}))

    assert first == second


def test_dict_store_satisfies_the_protocol() -> None:
    assert isinstance(DictStore(), CacheStore)


def test_non_positive_ttl_is_refused() -> None:
    with pytest.raises(ValueError, match="ttl must be a positive number"):
        Cache(ttl=0)


def test_max_entries_with_own_store_is_refused() -> None:
    with pytest.raises(ValueError, match="configure your own store"):
        Cache(DictStore(), max_entries=10)


def test_store_without_the_protocol_is_refused() -> None:
    with pytest.raises(TypeError, match="store must have async get"):
        Cache(object())  # type: ignore[arg-type]  # the mistake under test


async def test_docs_example_runs() -> None:
    source = Path(__file__).parents[2] / "docs" / "middleware" / "cache.md"
    code = re.search(r"```python\n(.*?)```", source.read_text(), re.S)
    assert code is not None
    namespace: dict[str, Any] = {"__name__": "docs_example"}
    exec(compile(code.group(1), str(source), "exec"), namespace)
    await namespace["main"]()


async def test_replay_response_is_the_kernel_replay() -> None:
    # Kept for code written against it: the same stream as ResponseStream.from_response.
    response = ChatResponse(
        messages=(Message("assistant", (TextContent("stored"),)),),
        finish_reason="stop",
        value={"kept": True},
    )
    stream = replay_response(response)
    assert [u.text async for u in stream] == ["stored", ""]
    assert await stream.get_final_response() is response
