"""The stream primitives middleware build on: ``from_response``, ``relay``, ``on_end``
and the constructor's ``final``.

Each is checked on its own (order, the final value when read to the end, closed
early, mapped or changed, failure, ``aclose()`` and cancellation, the end hook called
exactly once), then being delegated to: inside the tool loop's stream (a chat
middleware's relay) and inside an agent's stream (an agent middleware's end hook).
"""

from __future__ import annotations

import gc
from collections.abc import AsyncGenerator, Sequence
from typing import Any

import anyio
import anyio.lowlevel
import attrs
import pytest

from agentcore import (
    Agent,
    AgentContext,
    AgentResponse,
    AgentResponseUpdate,
    ChatContext,
    ChatResponse,
    ChatResponseUpdate,
    CustomEvent,
    FunctionCallContent,
    Message,
    ResponseStream,
    StreamConsumedError,
    StreamEnd,
    TextContent,
    ToolContext,
    Usage,
    UsageContent,
    tool,
)
from agentcore._streams.reader import Delegate
from agentcore.middleware import CallNext
from agentcore.testing import ScriptedChatClient

pytestmark = pytest.mark.anyio


class Words:
    """A chat stream of words that records how far it got and whether it closed."""

    def __init__(
        self, words: Sequence[str], *, error: BaseException | None = None, wait: bool = False
    ) -> None:
        self.words = words
        self.error = error
        self.wait = wait
        self.read = 0
        self.closed = False

    async def updates(self) -> AsyncGenerator[ChatResponseUpdate, None]:
        try:
            for word in self.words:
                self.read += 1
                yield ChatResponseUpdate(contents=(TextContent(word),), role="assistant")
            if self.error is not None:
                raise self.error
            if self.wait:
                await anyio.sleep_forever()
        finally:
            self.closed = True

    def stream(self) -> ResponseStream[ChatResponseUpdate, ChatResponse[Any]]:
        """Its final value carries ``value="inner"``: only the inner stream knows it,
        so it tells the inner final value apart from a fold of the updates."""

        def mark(response: ChatResponse[Any]) -> ChatResponse[Any]:
            return attrs.evolve(response, value="inner")

        stream = ResponseStream(self.updates(), finalizer=ChatResponse.from_updates)
        return stream.with_result_hook(mark)


def texts(updates: Sequence[ChatResponseUpdate | AgentResponseUpdate]) -> list[str]:
    return [u.text for u in updates]


def shout(update: ChatResponseUpdate) -> ChatResponseUpdate:
    return attrs.evolve(update, contents=(TextContent(update.text.upper()),))


class Ends:
    """An end hook that records each call."""

    def __init__(self) -> None:
        self.calls: list[StreamEnd[ChatResponse[Any]]] = []

    def __call__(self, end: StreamEnd[ChatResponse[Any]]) -> None:
        self.calls.append(end)

    @property
    def only(self) -> StreamEnd[ChatResponse[Any]]:
        assert len(self.calls) == 1, self.calls
        return self.calls[0]


# -- from_response ---------------------------------------------------------------------

CHAT: ChatResponse[Any] = ChatResponse(
    messages=(
        Message("assistant", (TextContent("first"),), message_id="m1"),
        Message("assistant", (TextContent("second"),), message_id="m2"),
    ),
    response_id="r1",
    model="m",
    finish_reason="stop",
    usage=Usage(input_tokens=3, output_tokens=2),
    value={"parsed": True},
)


async def test_from_response_replays_a_chat_response_and_ends_with_it() -> None:
    stream = ResponseStream.from_response(CHAT)
    updates = [u async for u in stream]
    assert texts(updates) == ["first", "second", ""]
    assert [u.message_id for u in updates] == ["m1", "m2", None]
    assert updates[-1].finish_reason == "stop"
    assert updates[-1].contents == (UsageContent(Usage(input_tokens=3, output_tokens=2)),)
    assert await stream.get_final_response() is CHAT  # value and all


async def test_from_response_replays_an_agent_response_events_first() -> None:
    event = CustomEvent("progress", {"step": 1})
    response = AgentResponse(
        messages=(Message("assistant", (TextContent("done"),)),),
        agent_name="helper",
        events=(event,),
        finish_reason="stop",
    )
    stream = ResponseStream.from_response(response)
    updates = [u async for u in stream]
    assert [u.event for u in updates] == [event, None, None]
    assert texts(updates) == ["", "done", ""]
    assert {u.agent_name for u in updates} == {"helper"}
    assert await stream == response
    assert await stream.get_final_response() is response


async def test_from_response_folds_what_was_seen_when_mapped_or_closed_early() -> None:
    mapped = ResponseStream.from_response(CHAT).map(shout)
    assert texts([u async for u in mapped]) == ["FIRST", "SECOND", ""]
    folded = await mapped.get_final_response()
    assert folded.text == "FIRSTSECOND"
    assert folded.value is None  # a fold: the replayed value belonged to the unmapped text

    stream = ResponseStream.from_response(CHAT)
    async for _ in stream:
        break
    await stream.aclose()
    early = await stream.get_final_response()
    assert early.text == "first"
    assert early is not CHAT


async def test_from_response_refuses_what_is_not_a_response() -> None:
    with pytest.raises(TypeError, match="ChatResponse or an AgentResponse, got str"):
        ResponseStream.from_response("hello")  # type: ignore[call-overload]  # the mistake under test


# -- the constructor's final -----------------------------------------------------------


async def test_final_is_used_only_when_the_updates_were_read_unchanged_to_the_end() -> None:
    known = ChatResponse(messages=(Message("assistant", (TextContent("known"),)),))

    def make(words: Words) -> ResponseStream[ChatResponseUpdate, ChatResponse[Any]]:
        return ResponseStream(
            words.updates(), finalizer=ChatResponse.from_updates, final=lambda: known
        )

    whole = make(Words(["a", "b"]))
    assert texts([u async for u in whole]) == ["a", "b"]
    assert await whole.get_final_response() is known

    source = Words(["a", "b"])
    early = make(source)
    async for _ in early:
        break
    await early.aclose()
    assert source.closed
    assert (await early.get_final_response()).text == "a"

    mapped = make(Words(["a", "b"])).map(shout)
    assert (await mapped.get_final_response()).text == "AB"

    async def later() -> ChatResponse[Any]:
        return known

    awaited = ResponseStream(
        Words(["x"]).updates(), finalizer=ChatResponse.from_updates, final=later
    )
    assert await awaited is known


# -- relay -----------------------------------------------------------------------------


async def test_a_relay_observing_unchanged_keeps_the_inner_final_value() -> None:
    seen: list[str] = []

    def observe(update: ChatResponseUpdate) -> ChatResponseUpdate:
        seen.append(update.text)
        return update

    relay = Words(["a", "b", "c"]).stream().relay(observe)
    assert texts([u async for u in relay]) == ["a", "b", "c"]
    assert seen == ["a", "b", "c"]
    final = await relay.get_final_response()
    assert final.value == "inner"  # the inner stream's own value, not a fold
    assert final.text == "abc"


async def test_a_relay_that_changes_or_drops_updates_folds_what_was_seen() -> None:
    changed = Words(["a", "b"]).stream().relay(shout)
    assert texts([u async for u in changed]) == ["A", "B"]
    final = await changed.get_final_response()
    # The inner stream's fold (its finalizer, then its result hooks) of what was seen.
    assert (final.text, final.value) == ("AB", "inner")

    def drop_b(update: ChatResponseUpdate) -> ChatResponseUpdate | None:
        return None if update.text == "b" else update

    dropped = Words(["a", "b", "c"]).stream().relay(drop_b)
    assert texts([u async for u in dropped]) == ["a", "c"]
    assert (await dropped.get_final_response()).text == "ac"


async def test_a_relay_without_transform_is_the_inner_stream_read_in_place() -> None:
    relay = Words(["a", "b"]).stream().relay()
    assert (await relay.get_final_response()).text == "ab"


async def test_a_mapped_relay_folds_the_mapped_updates() -> None:
    mapped = Words(["a", "b"]).stream().relay(lambda u: u).map(shout)
    assert texts([u async for u in mapped]) == ["A", "B"]
    assert (await mapped.get_final_response()).text == "AB"


async def test_a_relay_closed_early_closes_the_inner_stream_and_folds_what_was_seen() -> None:
    words = Words(["a", "b", "c"])
    relay = words.stream().relay(lambda u: u)
    async for _ in relay:
        break
    await relay.aclose()
    assert words.closed
    assert words.read == 1
    assert (await relay.get_final_response()).text == "a"


@pytest.mark.filterwarnings(
    "ignore:Async generator .* was garbage collected:ResourceWarning",
    "ignore::pytest.PytestUnraisableExceptionWarning",
)
async def test_a_relay_dropped_half_read_leaves_nothing_for_the_collector() -> None:
    """Neither the relay nor the stream it reads points back at the relay's stream:
    dropped half read, everything goes by reference counting (the event loop closes
    the abandoned sources), and the inner source is closed without the collector."""
    words = Words(["a", "b", "c"], wait=True)
    gc.collect()
    gc.disable()
    try:
        relay = words.stream().relay(lambda u: u)
        async for _ in relay:
            break
        del relay
        for _ in range(100):  # a bound, not a timing: each step lets the loop finalize
            if words.closed:
                break
            await anyio.lowlevel.checkpoint()
        unreachable = gc.collect()
    finally:
        gc.enable()
    assert words.closed
    assert unreachable == 0


async def test_a_relay_cancelled_while_waiting_closes_the_inner_stream() -> None:
    words = Words(["a"], wait=True)
    relay = words.stream().relay(lambda u: u)
    got: list[str] = []
    with anyio.move_on_after(0.05):
        async for update in relay:
            got.append(update.text)
    assert got == ["a"]
    assert words.closed


async def test_a_relay_passes_the_inner_failure_on() -> None:
    words = Words(["a"], error=ValueError("broken"))
    relay = words.stream().relay(lambda u: u)
    got: list[str] = []

    async def read() -> None:
        async for update in relay:
            got.append(update.text)

    with pytest.raises(ValueError, match="broken"):
        await read()
    assert got == ["a"]
    assert words.closed


async def test_relay_takes_the_inner_stream_over_and_refuses_an_async_transform() -> None:
    inner = Words(["a"]).stream()
    relay = inner.relay(lambda u: u)
    with pytest.raises(StreamConsumedError):
        inner.map(shout)
    await relay.aclose()

    async def slow(update: ChatResponseUpdate) -> ChatResponseUpdate:
        return update

    with pytest.raises(TypeError, match="is async"):
        Words(["a"]).stream().relay(slow)  # type: ignore[arg-type]  # the mistake under test
    with pytest.raises(TypeError, match="callable transform"):
        Words(["a"]).stream().relay("upper")  # type: ignore[arg-type]  # the mistake under test


# -- on_end ----------------------------------------------------------------------------


async def test_on_end_sees_completion_once_with_the_final_value() -> None:
    ends = Ends()
    stream = Words(["a", "b"]).stream().on_end(ends)
    got: list[str] = []
    async for update in stream:
        got.append(update.text)
        assert not ends.calls  # not before the end
    assert got == ["a", "b"]
    end = ends.only  # told before the loop finished
    assert end.how == "completed"
    assert end.error is None
    final = await stream.get_final_response()
    assert end.final is final
    assert final.value == "inner"
    await stream.aclose()
    await stream.get_final_response()
    assert len(ends.calls) == 1


async def test_on_end_sees_a_failure_once_and_the_failure_propagates() -> None:
    ends = Ends()
    error = ValueError("broken")
    stream = Words(["a"], error=error).stream().on_end(ends)
    with pytest.raises(ValueError, match="broken"):
        async for _ in stream:
            pass
    assert ends.only.how == "failed"
    assert ends.only.error is error
    assert ends.only.final is None
    await stream.aclose()
    assert len(ends.calls) == 1


async def test_on_end_sees_an_early_aclose_once() -> None:
    ends = Ends()
    words = Words(["a", "b", "c"])
    stream = words.stream().on_end(ends)
    async for _ in stream:
        break
    await stream.aclose()
    await stream.aclose()
    assert words.closed
    assert ends.only.how == "closed"
    assert isinstance(ends.only.error, GeneratorExit)
    assert (await stream.get_final_response()).text == "a"
    assert len(ends.calls) == 1


async def test_on_end_sees_a_stream_closed_before_it_was_read() -> None:
    ends = Ends()
    words = Words(["a"])
    inner = words.stream()
    async with inner.on_end(ends):
        pass
    assert ends.only.how == "closed"
    assert words.read == 0


async def test_on_end_sees_cancellation_and_an_async_hook_still_runs() -> None:
    calls: list[StreamEnd[ChatResponse[Any]]] = []

    async def hook(end: StreamEnd[ChatResponse[Any]]) -> None:
        await anyio.lowlevel.checkpoint()  # shielded: this await is not cancelled
        calls.append(end)

    words = Words(["a"], wait=True)
    stream = words.stream().on_end(hook)
    with anyio.move_on_after(0.05):
        async for _ in stream:
            pass
    assert words.closed
    (end,) = calls
    assert end.how == "closed"
    assert isinstance(end.error, anyio.get_cancelled_exc_class())


async def test_an_end_hook_failing_on_completion_fails_the_stream() -> None:
    def refuse(end: StreamEnd[ChatResponse[Any]]) -> None:
        raise RuntimeError(f"refused after {end.how}")

    stream = Words(["a"]).stream().on_end(refuse)
    with pytest.raises(RuntimeError, match="refused after completed"):
        async for _ in stream:
            pass


async def test_on_end_of_a_mapped_stream_and_on_a_mapped_on_end_stream() -> None:
    inner_ends, outer_ends = Ends(), Ends()
    stream = Words(["a", "b"]).stream().map(shout).on_end(inner_ends).map(shout).on_end(outer_ends)
    assert texts([u async for u in stream]) == ["A", "B"]
    final = await stream.get_final_response()
    assert final.text == "AB"
    assert inner_ends.only.final is not None
    assert inner_ends.only.final.text == "AB"
    assert outer_ends.only.final is final


async def test_on_end_of_a_deferred_stream() -> None:
    ends = Ends()

    async def setup() -> ResponseStream[ChatResponseUpdate, ChatResponse[Any]]:
        return Words(["a", "b"]).stream()

    stream = ResponseStream.from_awaitable(setup()).on_end(ends)
    assert (await stream).text == "ab"
    assert ends.only.how == "completed"


async def test_on_end_refuses_what_is_not_callable() -> None:
    with pytest.raises(TypeError, match="callable hook"):
        Words(["a"]).stream().on_end(None)  # type: ignore[arg-type]  # the mistake under test


# -- being delegated to ----------------------------------------------------------------


@tool
async def ping(ctx: ToolContext) -> str:
    """Ping, telling the caller about it."""
    await ctx.run.emit({"n": 1}, name="progress")
    return "pong"


async def test_a_relay_with_an_end_hook_read_in_place_by_a_delegating_stream() -> None:
    ends = Ends()
    words = Words(["a", "b"])
    relay = words.stream().relay(lambda u: u).on_end(ends)

    async def loop() -> AsyncGenerator[Any, None]:
        yield ChatResponseUpdate(contents=(TextContent("<"),))
        yield Delegate(relay)
        final = await relay.get_final_response()
        yield ChatResponseUpdate(contents=(TextContent(f">{final.value}"),))

    outer = ResponseStream._of(loop(), finalizer=ChatResponse.from_updates)  # pyright: ignore[reportPrivateUsage]  # the loop's own kind of stream
    assert texts([u async for u in outer]) == ["<", "a", "b", ">inner"]
    assert ends.only.how == "completed"


async def test_a_delegated_relay_closed_early_tells_its_hook_once() -> None:
    ends = Ends()
    words = Words(["a", "b"], wait=True)
    relay = words.stream().on_end(ends)

    async def loop() -> AsyncGenerator[Any, None]:
        yield Delegate(relay)

    outer = ResponseStream._of(loop(), finalizer=list)  # pyright: ignore[reportPrivateUsage]  # the loop's own kind of stream
    async for _ in outer:
        break
    await outer.aclose()
    assert words.closed
    assert ends.only.how == "closed"


async def test_a_delegated_relay_failing_tells_its_hook_and_the_delegating_source() -> None:
    ends = Ends()
    relay = Words(["a"], error=ValueError("broken")).stream().on_end(ends)
    caught: list[BaseException] = []

    async def loop() -> AsyncGenerator[Any, None]:
        try:
            yield Delegate(relay)
        except ValueError as exc:
            caught.append(exc)
            yield ChatResponseUpdate(contents=(TextContent("recovered"),))

    outer = ResponseStream._of(loop(), finalizer=ChatResponse.from_updates)  # pyright: ignore[reportPrivateUsage]  # the loop's own kind of stream
    assert texts([u async for u in outer]) == ["a", "recovered"]
    assert ends.only.how == "failed"
    assert caught == [ends.only.error]


async def test_chat_and_agent_middleware_relays_inside_a_streaming_run() -> None:
    chat_ends: list[StreamEnd[ChatResponse[Any]]] = []
    agent_ends: list[StreamEnd[AgentResponse[Any]]] = []
    seen: list[str] = []

    async def chat(context: ChatContext, call_next: CallNext) -> None:
        await call_next()
        result = context.result
        assert isinstance(result, ResponseStream)

        def observe(update: ChatResponseUpdate) -> ChatResponseUpdate:
            seen.append(update.text)
            return update

        context.result = result.relay(observe).on_end(chat_ends.append)

    async def agent_level(context: AgentContext, call_next: CallNext) -> None:
        await call_next()
        result = context.result
        assert isinstance(result, ResponseStream)
        context.result = result.on_end(agent_ends.append)

    client = ScriptedChatClient(["hello there"])
    agent = Agent(client, middleware=[chat, agent_level])
    stream = agent.run("hi", stream=True)
    text = "".join([u.text async for u in stream])
    final = await stream.get_final_response()
    assert text == final.text == "hello there"
    assert "".join(seen) == "hello there"
    (chat_end,) = chat_ends
    assert chat_end.how == "completed"
    assert chat_end.final is not None
    assert chat_end.final.text == "hello there"
    (agent_end,) = agent_ends
    assert agent_end.how == "completed"
    assert agent_end.final is final  # the committed response, kept through the hook


async def test_an_agent_short_circuit_replays_its_response_through_from_response() -> None:
    answer = AgentResponse(
        messages=(Message("assistant", (TextContent("cached"),)),), finish_reason="stop"
    )

    async def short(context: AgentContext, call_next: CallNext) -> None:
        context.result = answer

    agent = Agent(ScriptedChatClient([]), middleware=[short])
    stream = agent.run("hi", stream=True)
    assert "".join([u.text async for u in stream]) == "cached"
    assert (await stream.get_final_response()).text == "cached"


async def test_events_a_run_emits_reach_the_caller_through_agent_middleware_relays() -> None:
    # The run's stream is read in place by the relays around it; an event the run
    # puts into its stream must still come out in order, and be in the final response.
    call = ChatResponse(
        messages=(Message("assistant", (FunctionCallContent("c1", "ping", {}),)),),
        finish_reason="tool_calls",
    )
    ends: list[StreamEnd[AgentResponse[Any]]] = []

    async def watch(context: AgentContext, call_next: CallNext) -> None:
        await call_next()
        assert isinstance(context.result, ResponseStream)
        context.result = context.result.relay(lambda u: u).on_end(ends.append)

    async def passthrough(context: AgentContext, call_next: CallNext) -> None:
        await call_next()
        assert isinstance(context.result, ResponseStream)
        context.result = context.result.map(lambda u: u)

    for middleware in ([watch], [watch, passthrough], [passthrough, watch]):
        ends.clear()
        agent = Agent(ScriptedChatClient([call, "done"]), tools=[ping], middleware=middleware)
        stream = agent.run("hi", stream=True)
        updates = [u async for u in stream]
        names = [u.event.name for u in updates if u.event is not None]
        assert names == ["progress"]
        position = next(i for i, u in enumerate(updates) if u.event is not None)
        assert "".join(u.text for u in updates[position:]) == "done"  # before the answer
        final = await stream.get_final_response()
        assert [e.name for e in final.events] == ["progress"]
        assert ends[0].how == "completed"
