"""ResponseStream: iteration, the final value, transforms, hooks, and closing the source."""

from __future__ import annotations

import gc
import warnings
from collections.abc import AsyncGenerator, Generator, Sequence
from contextlib import contextmanager

import anyio
import anyio.lowlevel
import pytest

from agentcore import (
    ChatResponse,
    ChatResponseUpdate,
    ResponseStream,
    StreamConsumedError,
    TextContent,
    Usage,
    UsageContent,
)

pytestmark = pytest.mark.anyio


class Source:
    """An async generator source that records how far it got and whether it closed."""

    def __init__(
        self,
        items: Sequence[int],
        *,
        then_wait: bool = False,
        error: BaseException | None = None,
    ) -> None:
        self.items = items
        self.then_wait = then_wait
        self.error = error
        self.yielded = 0
        self.closed = False

    async def updates(self) -> AsyncGenerator[int, None]:
        try:
            for item in self.items:
                self.yielded += 1
                yield item
            if self.error is not None:
                raise self.error
            if self.then_wait:
                await anyio.sleep_forever()
        finally:
            self.closed = True

    def stream(self) -> ResponseStream[int, list[int]]:
        return ResponseStream(self.updates(), finalizer=list)


async def _texts(pieces: Sequence[str]) -> AsyncGenerator[ChatResponseUpdate, None]:
    for i, piece in enumerate(pieces):
        yield ChatResponseUpdate([TextContent(piece)], role="assistant" if i == 0 else None)
    yield ChatResponseUpdate([UsageContent(Usage(output_tokens=len(pieces)))], finish_reason="stop")


def _chat_stream(pieces: Sequence[str]) -> ResponseStream[ChatResponseUpdate, ChatResponse[None]]:
    return ResponseStream(_texts(pieces), finalizer=ChatResponse.from_updates)


@contextmanager
def abandoning_an_iterator(anyio_backend: str) -> Generator[None, None, None]:
    """Dropping an unfinished stream leaves its source generator to the garbage collector.

    trio reports that with a ResourceWarning (and still closes it); asyncio does not warn.
    ``aclose()`` or ``async with`` avoid it.
    """
    if anyio_backend == "trio":
        with pytest.warns(ResourceWarning, match="garbage collected before it had been exhausted"):
            yield
    else:
        yield


async def _let_finalizers_run() -> None:
    gc.collect()
    for _ in range(5):
        await anyio.lowlevel.checkpoint()


# -- consuming --------------------------------------------------------------------------------


async def test_async_for_then_get_final_response() -> None:
    stream = _chat_stream(["Hel", "lo"])

    seen = [update async for update in stream]
    final = await stream.get_final_response()

    assert final == ChatResponse.from_updates(seen)
    assert final.text == "Hello"
    assert final.usage == Usage(output_tokens=2)


async def test_awaiting_the_stream_drains_it() -> None:
    source = Source([1, 2, 3])

    assert await source.stream() == [1, 2, 3]
    assert source.yielded == 3


async def test_final_response_is_computed_once() -> None:
    stream = _chat_stream(["a"])

    first = await stream.get_final_response()

    assert await stream.get_final_response() is first


async def test_async_finalizer_is_awaited() -> None:
    async def total(updates: Sequence[int]) -> int:
        await anyio.lowlevel.checkpoint()
        return sum(updates)

    stream = ResponseStream(Source([1, 2, 3]).updates(), finalizer=total)

    assert await stream == 6


async def test_get_final_response_after_partial_iteration_drains_the_rest() -> None:
    source = Source([1, 2, 3])
    stream = source.stream()
    updates = stream.__aiter__()

    first = await updates.__anext__()
    final = await stream.get_final_response()

    assert (first, final) == (1, [1, 2, 3])
    with pytest.raises(StopAsyncIteration):
        await updates.__anext__()


async def test_finished_stream_yields_nothing_more() -> None:
    stream = Source([1, 2]).stream()
    assert [u async for u in stream] == [1, 2]

    assert [u async for u in stream] == []


async def test_exception_from_the_source_reaches_the_consumer() -> None:
    source = Source([1], error=ValueError("provider broke"))
    stream = source.stream()
    updates = stream.__aiter__()
    assert await updates.__anext__() == 1

    with pytest.raises(ValueError, match="provider broke"):
        await updates.__anext__()

    assert source.closed


# -- one consumer -----------------------------------------------------------------------------


async def test_the_stream_is_its_own_iterator_so_a_second_loop_continues() -> None:
    stream = Source([1, 2, 3]).stream()
    first = stream.__aiter__()
    assert first is stream
    assert await first.__anext__() == 1

    assert [u async for u in stream] == [2, 3]
    assert await stream.get_final_response() == [1, 2, 3]


async def test_get_final_response_while_another_task_reads_is_refused() -> None:
    release = anyio.Event()
    reading = anyio.Event()

    async def gated() -> AsyncGenerator[int, None]:
        reading.set()
        await release.wait()
        yield 1

    stream = ResponseStream(gated(), finalizer=list)
    seen: list[int] = []

    async def consume() -> None:
        seen.extend([u async for u in stream])

    async with anyio.create_task_group() as tg:
        tg.start_soon(consume)
        await reading.wait()
        with pytest.raises(StreamConsumedError, match="another task"):
            await stream.get_final_response()
        release.set()

    assert seen == [1]
    assert await stream.get_final_response() == [1]


async def test_iterating_a_stream_after_mapping_it_is_refused() -> None:
    stream = Source([1]).stream()
    mapped = stream.map(lambda u: u * 10)

    with pytest.raises(StreamConsumedError, match="iterate the mapped stream"):
        async for _ in stream:
            pass

    assert await mapped == [10]


async def test_final_response_of_a_stream_after_mapping_it_is_refused() -> None:
    stream = Source([1]).stream()
    stream.map(lambda u: u)

    with pytest.raises(StreamConsumedError, match="ask the mapped stream"):
        await stream.get_final_response()


async def test_mapping_a_stream_twice_is_refused() -> None:
    stream = Source([1]).stream()
    stream.map(lambda u: u)

    with pytest.raises(StreamConsumedError, match="was mapped"):
        stream.map(lambda u: u)


async def test_adding_a_hook_once_consumption_started_is_refused() -> None:
    stream = Source([1, 2]).stream()
    updates = stream.__aiter__()
    await updates.__anext__()

    with pytest.raises(StreamConsumedError, match="being consumed"):
        stream.with_result_hook(lambda final: final)

    await updates.aclose()


# -- map and hooks ----------------------------------------------------------------------------


async def test_map_with_same_type_folds_the_transformed_updates() -> None:
    def shout(update: ChatResponseUpdate) -> ChatResponseUpdate:
        return ChatResponseUpdate(
            [
                TextContent(c.text.upper()) if isinstance(c, TextContent) else c
                for c in update.contents
            ],
            role=update.role,
            finish_reason=update.finish_reason,
        )

    stream = _chat_stream(["hel", "lo"]).map(shout)

    streamed = [update async for update in stream]
    final = await stream.get_final_response()

    assert "".join(u.text for u in streamed) == final.text == "HELLO"
    assert final == ChatResponse.from_updates(streamed)


async def test_transform_returning_none_drops_the_update() -> None:
    stream = Source([1, 2, 3, 4]).stream().map(lambda u: u if u % 2 == 0 else None)

    assert [u async for u in stream] == [2, 4]
    assert await stream.get_final_response() == [2, 4]


async def test_map_with_a_finalizer_changes_both_types() -> None:
    mapped: ResponseStream[str, str] = _chat_stream(["a", "b"]).map(
        lambda update: update.text, "|".join
    )

    assert [u async for u in mapped] == ["a", "b", ""]
    assert await mapped.get_final_response() == "a|b|"


async def test_stacked_maps_apply_in_order() -> None:
    stream = Source([1, 2]).stream().map(lambda u: u + 1).map(lambda u: u * 10)

    assert await stream == [20, 30]


async def test_result_hook_replaces_the_final_value() -> None:
    stream = Source([1, 2]).stream().with_result_hook(lambda final: [*final, 99])

    assert await stream == [1, 2, 99]


async def test_result_hook_returning_none_keeps_the_value() -> None:
    seen: list[list[int]] = []

    def observe(final: list[int]) -> None:
        seen.append(final)

    stream = Source([1]).stream().with_result_hook(observe)

    assert await stream == [1]
    assert seen == [[1]]


async def test_async_result_hooks_run_in_order() -> None:
    async def add(final: list[int]) -> list[int]:
        await anyio.lowlevel.checkpoint()
        return [*final, len(final)]

    stream = Source([7]).stream().with_result_hook(add).with_result_hook(add)

    assert await stream == [7, 1, 2]


async def test_hooks_move_to_a_same_type_mapped_stream() -> None:
    seen: list[list[int]] = []
    stream = Source([1, 2]).stream().with_result_hook(seen.append).map(lambda u: u * 3)

    assert await stream == [3, 6]
    assert seen == [[3, 6]]


async def test_inner_hooks_still_run_when_mapped_with_a_new_finalizer() -> None:
    seen: list[list[int]] = []
    inner = Source([1, 2]).stream().with_result_hook(seen.append)
    outer = inner.map(str, "".join)

    assert await outer == "12"
    assert seen == [[1, 2]]


# -- from_awaitable ---------------------------------------------------------------------------


async def test_from_awaitable_sets_up_only_on_first_consumption() -> None:
    setups: list[str] = []

    async def setup() -> ResponseStream[int, list[int]]:
        setups.append("connected")
        return Source([1, 2]).stream()

    stream = ResponseStream.from_awaitable(setup())
    await anyio.lowlevel.checkpoint()
    assert setups == []

    assert [u async for u in stream] == [1, 2]
    assert setups == ["connected"]
    assert await stream.get_final_response() == [1, 2]


async def test_from_awaitable_gives_the_inner_final_value_and_hooks() -> None:
    async def setup() -> ResponseStream[int, list[int]]:
        return Source([1, 2]).stream().with_result_hook(lambda f: [*f, 0])

    stream = ResponseStream.from_awaitable(setup()).with_result_hook(lambda f: [*f, -1])

    assert await stream == [1, 2, 0, -1]


async def test_from_awaitable_mapped_uses_the_inner_finalizer_on_transformed_updates() -> None:
    async def setup() -> ResponseStream[int, list[int]]:
        return Source([1, 2]).stream()

    stream = ResponseStream.from_awaitable(setup()).map(lambda u: u * 5)

    assert [u async for u in stream] == [5, 10]
    assert await stream.get_final_response() == [5, 10]


async def test_from_awaitable_mapped_with_a_finalizer() -> None:
    async def setup() -> ResponseStream[int, list[int]]:
        return Source([1, 2]).stream()

    stream = ResponseStream.from_awaitable(setup()).map(str, "+".join)

    assert await stream == "1+2"


async def test_from_awaitable_mapped_applies_the_inner_hooks_to_the_transformed_final() -> None:
    async def setup() -> ResponseStream[int, list[int]]:
        return Source([1, 2]).stream().with_result_hook(lambda f: [*f, 0])

    stream = ResponseStream.from_awaitable(setup()).map(lambda u: u * 5)

    assert await stream == [5, 10, 0]


async def test_nested_from_awaitable_mapped_folds_the_transformed_updates() -> None:
    async def inner() -> ResponseStream[int, list[int]]:
        return Source([1, 2]).stream()

    async def outer() -> ResponseStream[int, list[int]]:
        return ResponseStream.from_awaitable(inner())

    stream = ResponseStream.from_awaitable(outer()).map(lambda u: u * 5)

    assert await stream == [5, 10]


async def test_from_awaitable_hooks_see_transformed_updates_under_a_new_finalizer() -> None:
    seen: list[list[int]] = []

    async def setup() -> ResponseStream[int, list[int]]:
        return Source([1, 2]).stream()

    deferred = ResponseStream.from_awaitable(setup()).with_result_hook(seen.append)
    stream = deferred.map(lambda u: u + 1).map(str, "".join)

    assert await stream == "23"
    assert seen == [[2, 3]]


async def test_from_awaitable_mapped_still_runs_hooks_below_the_inner_finalizer() -> None:
    seen: list[list[int]] = []

    async def setup() -> ResponseStream[str, str]:
        return Source([1, 2]).stream().with_result_hook(seen.append).map(str, "".join)

    stream = ResponseStream.from_awaitable(setup()).map(str.upper)

    assert await stream == "12"
    assert seen == [[1, 2]]


async def test_from_awaitable_closed_before_use_has_no_final_value() -> None:
    async def setup() -> ResponseStream[int, list[int]]:
        return Source([1]).stream()

    stream = ResponseStream.from_awaitable(setup())
    await stream.aclose()

    with pytest.raises(StreamConsumedError, match="no final value"):
        await stream.get_final_response()


async def test_from_awaitable_closed_before_use_never_runs_the_setup() -> None:
    setups: list[str] = []

    async def setup() -> ResponseStream[int, list[int]]:
        setups.append("connected")
        return Source([1]).stream()

    stream = ResponseStream.from_awaitable(setup())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        await stream.aclose()
        del stream
        gc.collect()

    assert setups == []
    assert [str(w.message) for w in caught] == []


async def test_from_awaitable_closing_early_closes_the_inner_source() -> None:
    source = Source([1, 2, 3])

    async def setup() -> ResponseStream[int, list[int]]:
        return source.stream()

    stream = ResponseStream.from_awaitable(setup())
    updates = stream.__aiter__()
    await updates.__anext__()
    await stream.aclose()

    assert source.closed
    await updates.aclose()


# -- closing the source -----------------------------------------------------------------------


async def test_break_then_aclose_closes_the_source_without_warnings() -> None:
    source = Source([1, 2, 3])
    stream = source.stream()

    async for _ in stream:
        break
    await stream.aclose()

    assert source.closed
    assert source.yielded == 1
    assert await stream.get_final_response() == [1]


async def test_async_with_closes_the_source_without_warnings() -> None:
    source = Source([1, 2, 3])

    async with source.stream() as stream:
        async for _ in stream:
            break

    assert source.closed


async def test_break_only_pauses_the_stream() -> None:
    source = Source([1, 2, 3])
    stream = source.stream()

    async for _ in stream:
        break

    assert not source.closed
    assert await stream.get_final_response() == [1, 2, 3]
    assert source.closed


async def test_dropping_an_unfinished_stream_closes_the_source_after_gc(anyio_backend: str) -> None:
    source = Source([1, 2, 3])
    stream = source.stream()

    with abandoning_an_iterator(anyio_backend):
        async for _ in stream:
            break
        del stream
        await _let_finalizers_run()

    assert source.closed
    assert source.yielded == 1


class Countdown:
    """A plain async iterator: no ``aclose`` to call."""

    def __init__(self, start: int) -> None:
        self.value = start

    def __aiter__(self) -> Countdown:
        return self

    async def __anext__(self) -> int:
        if self.value == 0:
            raise StopAsyncIteration
        self.value -= 1
        return self.value + 1


async def test_source_without_aclose_is_simply_dropped() -> None:
    stream = ResponseStream(Countdown(3), finalizer=list)
    updates = stream.__aiter__()
    assert await updates.__anext__() == 3

    await stream.aclose()
    await updates.aclose()

    assert await stream.get_final_response() == [3]


async def test_aclose_of_an_unstarted_stream_closes_the_source() -> None:
    source = Source([1])
    stream = source.stream()

    await stream.aclose()

    assert source.yielded == 0
    assert await stream.get_final_response() == []


async def test_cancelling_the_consumer_closes_the_source() -> None:
    source = Source([1], then_wait=True)
    seen: list[int] = []

    with anyio.CancelScope() as scope:
        async for update in source.stream():
            seen.append(update)
            scope.cancel()

    assert scope.cancelled_caught
    assert seen == [1]
    assert source.closed


async def test_exception_from_a_transform_closes_the_source() -> None:
    source = Source([1, 2])

    def explode(update: int) -> int:
        raise RuntimeError(f"bad update {update}")

    with pytest.raises(RuntimeError, match="bad update 1"):
        await source.stream().map(explode)

    assert source.closed


async def test_a_deferred_stream_awaited_before_any_read_gives_the_inner_final() -> None:
    source = Source([1, 2, 3])

    async def setup() -> ResponseStream[int, list[int]]:
        return source.stream()

    stream = ResponseStream.from_awaitable(setup())

    assert await stream.get_final_response() == [1, 2, 3]
    assert source.closed
