"""ResponseStream delegation, injection and known final values.

The tool loop and the agent hand each model stream to the stream the caller reads
(``Delegate``) instead of re-yielding its updates, put custom events into that
stream (``_inject``), and let a stream read unchanged end with the value its source
already knows (``known_final``). These tests pin the semantics those shortcuts must keep:
exactly what ``async for u in inner: yield u`` would do.
"""

from __future__ import annotations

import gc
import weakref
from collections.abc import AsyncGenerator, Callable, Sequence
from typing import Any

import anyio
import pytest

from agentcore import ResponseStream, StreamConsumedError
from agentcore._streams.reader import Delegate

pytestmark = pytest.mark.anyio


class Numbers:
    """A source of ints that records how far it got and whether it was closed."""

    def __init__(
        self, items: Sequence[int], *, error: BaseException | None = None, wait: bool = False
    ) -> None:
        self.items = items
        self.error = error
        self.wait = wait
        self.closed = False

    async def updates(self) -> AsyncGenerator[int, None]:
        try:
            for item in self.items:
                yield item
            if self.error is not None:
                raise self.error
            if self.wait:
                await anyio.sleep_forever()
        finally:
            self.closed = True

    def stream(self) -> ResponseStream[int, list[int]]:
        return ResponseStream(self.updates(), finalizer=list)


def outer_of(
    source: AsyncGenerator[Any, None],
    *,
    known_final: Callable[[], Any] | None = None,
    transform: Callable[[Any], Any] | None = None,
) -> ResponseStream[Any, Any]:
    return ResponseStream._of(source, finalizer=list, known_final=known_final, transform=transform)  # pyright: ignore[reportPrivateUsage]  # testing the private constructor


class Delegator:
    """A source generator that yields, delegates to ``inner``, and yields again."""

    def __init__(self, inner: Any, *, catch: bool = False) -> None:
        self.inner = inner
        self.catch = catch
        self.inner_final: Any = None
        self.caught: BaseException | None = None
        self.finished = False
        self.closed = False

    async def updates(self) -> AsyncGenerator[Any, None]:
        try:
            yield -1
            try:
                yield Delegate(self.inner)
            except Exception as exc:
                if not self.catch:
                    raise
                self.caught = exc
            else:
                if isinstance(self.inner, ResponseStream):
                    final = self.inner.get_final_response()  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]  # an untyped inner stream
                    self.inner_final = await final
            yield 99
            self.finished = True
        finally:
            self.closed = True


async def read(stream: ResponseStream[Any, Any]) -> tuple[list[Any], Any]:
    seen = [update async for update in stream]
    return seen, await stream.get_final_response()


async def test_delegated_updates_arrive_in_place_and_the_inner_final_is_ready() -> None:
    inner = Numbers([1, 2, 3])
    delegator = Delegator(inner.stream().map(lambda n: n * 10))
    seen, final = await read(outer_of(delegator.updates()))
    assert seen == [-1, 10, 20, 30, 99]
    assert final == seen
    assert delegator.inner_final == [10, 20, 30]  # the inner stream's own fold
    assert delegator.finished
    assert inner.closed


async def test_the_reading_streams_transforms_apply_to_delegated_updates() -> None:
    delegator = Delegator(Numbers([1, 2]).stream())
    stream = outer_of(delegator.updates(), transform=lambda n: n + 1000).map(
        lambda n: None if n == 1002 else n  # dropping works across levels too
    )
    seen, final = await read(stream)
    assert seen == [999, 1001, 1099]
    assert final == seen


async def test_a_bare_async_iterator_can_be_delegated_to() -> None:
    numbers = Numbers([5, 6])
    delegator = Delegator(numbers.updates())
    seen, _ = await read(outer_of(delegator.updates()))
    assert seen == [-1, 5, 6, 99]
    assert numbers.closed


async def test_delegation_nests() -> None:
    innermost = Numbers([1, 2])
    middle = Delegator(innermost.stream().map(lambda n: n * 2))
    middle_stream = outer_of(middle.updates(), transform=lambda n: n + 100)
    top = Delegator(middle_stream)
    seen, _ = await read(outer_of(top.updates()))
    assert seen == [-1, 99, 102, 104, 199, 99]
    assert middle.inner_final == [2, 4]
    assert top.inner_final == [99, 102, 104, 199]


async def test_a_failing_delegated_source_fails_inside_the_delegating_generator() -> None:
    inner = Numbers([1], error=ValueError("model broke"))
    delegator = Delegator(inner.stream(), catch=True)
    seen, _ = await read(outer_of(delegator.updates()))
    assert seen == [-1, 1, 99]  # the generator caught it and went on
    assert isinstance(delegator.caught, ValueError)
    assert inner.closed


async def test_an_uncaught_delegated_failure_ends_the_stream_and_closes_everything() -> None:
    inner = Numbers([1], error=ValueError("model broke"))
    delegator = Delegator(inner.stream())
    stream = outer_of(delegator.updates())
    seen: list[Any] = [await stream.__anext__(), await stream.__anext__()]
    with pytest.raises(ValueError, match="model broke"):
        await stream.__anext__()
    assert seen == [-1, 1]
    assert inner.closed
    assert delegator.closed
    assert not delegator.finished


async def test_a_delegated_streams_transform_failure_reaches_the_generator() -> None:
    def explode(n: int) -> int:
        if n == 2:
            raise KeyError("bad chunk")
        return n

    inner = Numbers([1, 2, 3])
    delegator = Delegator(inner.stream().map(explode), catch=True)
    seen, _ = await read(outer_of(delegator.updates()))
    assert seen == [-1, 1, 99]
    assert isinstance(delegator.caught, KeyError)
    assert inner.closed  # the failed stream's source was closed


async def test_the_reading_streams_own_transform_failure_closes_every_level() -> None:
    def explode(n: int) -> int:
        if n == 2:
            raise KeyError("bad chunk")
        return n

    inner = Numbers([1, 2, 3])
    delegator = Delegator(inner.stream(), catch=True)
    with pytest.raises(KeyError):
        await read(outer_of(delegator.updates(), transform=explode))
    assert delegator.caught is None  # not the generator's failure: the stream's own
    assert inner.closed
    assert delegator.closed


async def test_closing_the_stream_mid_delegation_closes_every_source() -> None:
    inner = Numbers([1, 2, 3], wait=True)
    delegator = Delegator(inner.stream())
    async with outer_of(delegator.updates()) as stream:
        seen: list[Any] = []
        async for update in stream:
            seen.append(update)
            if update == 2:
                break
    assert seen == [-1, 1, 2]
    assert inner.closed
    assert delegator.closed


async def test_cancelling_a_read_mid_delegation_closes_every_source() -> None:
    inner = Numbers([1], wait=True)
    delegator = Delegator(inner.stream())
    stream = outer_of(delegator.updates())
    with anyio.move_on_after(0.05):
        await read(stream)
    assert inner.closed
    assert delegator.closed
    assert not delegator.finished
    with pytest.raises(StopAsyncIteration):
        await stream.__anext__()  # a stream that was cancelled is done


async def test_a_deferred_stream_is_set_up_when_delegated_to() -> None:
    inner = Numbers([7])

    async def setup() -> ResponseStream[int, list[int]]:
        return inner.stream()

    delegator = Delegator(ResponseStream.from_awaitable(setup()))
    seen, _ = await read(outer_of(delegator.updates()))
    assert seen == [-1, 7, 99]
    assert delegator.inner_final == [7]


async def test_a_failing_setup_fails_inside_the_delegating_generator() -> None:
    async def setup() -> ResponseStream[int, list[int]]:
        raise ConnectionError("no route")

    delegator = Delegator(ResponseStream.from_awaitable(setup()), catch=True)
    seen, _ = await read(outer_of(delegator.updates()))
    assert seen == [-1, 99]
    assert isinstance(delegator.caught, ConnectionError)


async def test_delegating_to_a_stream_that_was_mapped_is_refused() -> None:
    inner = Numbers([1]).stream()
    inner.map(lambda n: n)  # taken over: the mapped stream must be used
    delegator = Delegator(inner, catch=True)
    seen, _ = await read(outer_of(delegator.updates()))
    assert seen == [-1, 99]
    assert isinstance(delegator.caught, StreamConsumedError)


async def test_a_delegated_stream_cannot_be_read_by_anyone_else_meanwhile() -> None:
    inner = Numbers([1, 2]).stream()
    delegator = Delegator(inner)
    stream = outer_of(delegator.updates())
    assert await stream.__anext__() == -1
    assert await stream.__anext__() == 1
    with pytest.raises(StreamConsumedError, match="another task"):
        await inner.__anext__()
    assert [u async for u in stream] == [2, 99]


async def test_a_delegated_stream_that_already_ended_delivers_nothing() -> None:
    inner = Numbers([1]).stream()
    assert [u async for u in inner] == [1]
    delegator = Delegator(inner)
    seen, _ = await read(outer_of(delegator.updates()))
    assert seen == [-1, 99]
    assert delegator.inner_final == [1]


@pytest.mark.filterwarnings(
    "ignore:Async generator .* was garbage collected:ResourceWarning",
    "ignore::pytest.PytestUnraisableExceptionWarning",
)
async def test_a_stream_dropped_while_delegating_is_freed_at_once() -> None:
    """The delegated stream points back at the stream reading it only weakly: dropping
    the reader mid-delegation frees it by reference counting, not the collector."""
    delegator = Delegator(Numbers([1, 2], wait=True).stream())
    stream = outer_of(delegator.updates())
    seen: list[Any] = []
    gc.collect()
    gc.disable()
    try:
        async for update in stream:
            seen.append(update)
            if update == 1:
                break  # inside the delegated stream
        core = weakref.ref(stream._core)  # pyright: ignore[reportPrivateUsage]  # the engine's state
        del stream
        freed = core() is None
    finally:
        gc.enable()
    assert seen == [-1, 1]
    assert freed


# -- a fold kept by both streams ----------------------------------------------------------
# When the delegated stream's last step collects and the reading stream's first step only
# collects the same updates, the engine keeps one list while reading and copies it over
# (``Frame.shared``). The reading stream's fold must still be what it read, in order.


async def test_injected_updates_keep_their_place_in_a_fold_both_streams_keep() -> None:
    holder: list[ResponseStream[Any, Any]] = []

    async def model() -> AsyncGenerator[int, None]:
        yield 1
        holder[0]._inject(50)  # pyright: ignore[reportPrivateUsage]  # what the agent's event sink does
        yield 2
        yield 3
        await anyio.sleep_forever()

    inner = ResponseStream(model(), finalizer=list)
    stream = outer_of(Delegator(inner).updates(), known_final=lambda: "known")
    holder.append(stream)
    seen = [await stream.__anext__() for _ in range(5)]
    assert seen == [-1, 1, 50, 2, 3]
    await stream.aclose()  # closed early: the fold of what was read, not the known value
    assert await stream.get_final_response() == seen


async def test_a_fold_both_streams_keep_is_whole_when_read_to_the_end() -> None:
    holder: list[ResponseStream[Any, Any]] = []

    async def model() -> AsyncGenerator[int, None]:
        yield 1
        holder[0]._inject(50)  # pyright: ignore[reportPrivateUsage]  # what the agent's event sink does
        yield 2

    delegator = Delegator(ResponseStream(model(), finalizer=list))
    stream = outer_of(delegator.updates())
    holder.append(stream)
    seen, final = await read(stream)
    assert seen == [-1, 1, 50, 2, 99]
    assert final == seen
    assert delegator.inner_final == [1, 2]  # the inner stream's own fold is untouched


async def test_nested_folds_both_streams_keep_stay_in_reading_order() -> None:
    holder: list[ResponseStream[Any, Any]] = []

    async def model() -> AsyncGenerator[int, None]:
        yield 1
        holder[0]._inject(50)  # pyright: ignore[reportPrivateUsage]  # into the middle stream
        yield 2
        await anyio.sleep_forever()

    middle = outer_of(Delegator(ResponseStream(model(), finalizer=list)).updates())
    holder.append(middle)
    stream = outer_of(Delegator(middle).updates())
    seen = [await stream.__anext__() for _ in range(5)]
    assert seen == [-1, -1, 1, 50, 2]
    await stream.aclose()
    assert await stream.get_final_response() == seen
    assert await middle.get_final_response() == [-1, 1, 50, 2]


# -- injection ------------------------------------------------------------------------


async def test_injected_updates_come_before_the_next_update_read() -> None:
    holder: list[ResponseStream[Any, Any]] = []

    async def source() -> AsyncGenerator[Any, None]:
        yield 1
        holder[0]._inject(50)  # pyright: ignore[reportPrivateUsage]  # what the agent's event sink does
        holder[0]._inject(51)  # pyright: ignore[reportPrivateUsage]  # what the agent's event sink does
        yield Delegate(Numbers([2]).stream())
        holder[0]._inject(60)  # pyright: ignore[reportPrivateUsage]  # left when the source ends

    stream = outer_of(source(), transform=lambda n: n * 2)
    holder.append(stream)
    seen, final = await read(stream)
    assert seen == [2, 100, 102, 4, 120]  # injected ones take the stream's own steps
    assert final == seen


async def test_a_delegated_failure_is_passed_on_before_injected_updates() -> None:
    holder: list[ResponseStream[Any, Any]] = []
    caught: list[BaseException] = []

    async def failing() -> AsyncGenerator[int, None]:
        holder[0]._inject(5)  # pyright: ignore[reportPrivateUsage]  # an event just before a failure
        if holder:  # always: the yield below only makes this an async generator
            raise ValueError("no")
        yield 0  # pragma: no cover  # never reached

    async def source() -> AsyncGenerator[Any, None]:
        try:
            yield Delegate(failing())
        except ValueError as exc:
            caught.append(exc)
        yield 1

    stream = outer_of(source())
    holder.append(stream)
    seen, _ = await read(stream)
    assert seen == [5, 1]
    assert len(caught) == 1


# -- known final values -----------------------------------------------------------------


async def test_a_stream_read_unchanged_ends_with_its_known_final_value() -> None:
    folded: list[Sequence[int]] = []

    def fold(updates: Sequence[int]) -> list[int]:
        folded.append(updates)
        return list(updates)

    stream = ResponseStream._of(  # pyright: ignore[reportPrivateUsage]  # testing the private constructor
        Numbers([1, 2]).updates(), finalizer=fold, known_final=lambda: "known"
    )
    seen, final = await read(stream)
    assert seen == [1, 2]
    assert final == "known"
    assert folded == []  # nothing was folded


async def test_a_transformed_stream_folds_what_the_consumer_saw() -> None:
    stream = ResponseStream._of(  # pyright: ignore[reportPrivateUsage]  # testing the private constructor
        Numbers([1, 2]).updates(), finalizer=list, known_final=lambda: "known"
    )
    mapped = stream.map(lambda n: n * 3)
    seen, final = await read(mapped)
    assert seen == [3, 6]
    assert final == [3, 6]  # the known final value does not describe transformed updates


async def test_result_hooks_apply_to_the_known_final_value() -> None:
    stream = ResponseStream._of(  # pyright: ignore[reportPrivateUsage]  # testing the private constructor
        Numbers([1]).updates(), finalizer=list, known_final=lambda: "known"
    )
    hooked = stream.with_result_hook(lambda value: f"{value}!")
    _, final = await read(hooked)
    assert final == "known!"


async def test_a_new_finalizer_keeps_the_known_final_value_for_the_hooks_below() -> None:
    seen_below: list[Any] = []
    stream = ResponseStream._of(  # pyright: ignore[reportPrivateUsage]  # testing the private constructor
        Numbers([1, 2]).updates(), finalizer=list, known_final=lambda: "known"
    )
    stream.with_result_hook(seen_below.append)
    summed = stream.map(lambda n: n, finalizer=sum)
    _, final = await read(summed)
    assert final == 3
    assert seen_below == ["known"]


async def test_a_stream_closed_early_folds_what_was_read_instead() -> None:
    stream = ResponseStream._of(
        Numbers([1, 2, 3], wait=True).updates(), finalizer=list, known_final=lambda: "known"
    )  # pyright: ignore[reportPrivateUsage]  # testing the private constructor
    assert await stream.__anext__() == 1
    await stream.aclose()
    assert await stream.get_final_response() == [1]  # not the value of a finished run


async def test_a_delegated_stream_closed_early_folds_what_was_read_instead() -> None:
    inner = ResponseStream._of(
        Numbers([1, 2], wait=True).updates(), finalizer=list, known_final=lambda: "known"
    )  # pyright: ignore[reportPrivateUsage]  # testing the private constructor
    delegator = Delegator(inner)
    stream = outer_of(delegator.updates())
    assert [await stream.__anext__(), await stream.__anext__()] == [-1, 1]
    await stream.aclose()
    assert await inner.get_final_response() == [1]


async def test_a_stream_part_way_through_its_own_delegation_can_be_delegated_to() -> None:
    inner = Delegator(Numbers([1, 2]).stream())
    inner_stream = outer_of(inner.updates())
    assert [await inner_stream.__anext__(), await inner_stream.__anext__()] == [-1, 1]
    outer = Delegator(inner_stream)
    seen, _ = await read(outer_of(outer.updates()))
    assert seen == [-1, 2, 99, 99]
    assert outer.inner_final == [-1, 1, 2, 99]  # the inner stream's whole fold


# -- a stage that collects its transform's inputs ----------------------------------------


def inputs_of(
    source: AsyncGenerator[int, None], known_final: Callable[[], Any] | None = None
) -> ResponseStream[str, Any]:
    """Updates turned into strings; what the finalizer folds is the ints read."""
    return ResponseStream._of(  # pyright: ignore[reportPrivateUsage]  # testing the private constructor
        source, finalizer=list, known_final=known_final, transform=str, folds_inputs=True
    )


async def test_a_stage_collecting_inputs_folds_what_reached_its_transform() -> None:
    seen, final = await read(inputs_of(Numbers([1, 2]).updates()))
    assert seen == ["1", "2"]
    assert final == [1, 2]


async def test_a_stage_collecting_inputs_closed_early_folds_the_inputs_read() -> None:
    stream = inputs_of(Numbers([1, 2, 3], wait=True).updates(), known_final=lambda: "known")
    assert await stream.__anext__() == "1"
    await stream.aclose()
    assert await stream.get_final_response() == [1]


async def test_a_stage_collecting_inputs_read_to_its_end_has_its_known_final_value() -> None:
    _, final = await read(inputs_of(Numbers([1, 2]).updates(), known_final=lambda: "known"))
    assert final == "known"


async def test_a_map_on_a_stage_collecting_inputs_folds_the_mapped_updates() -> None:
    stream = inputs_of(Numbers([1, 2]).updates(), known_final=lambda: "known")
    mapped = stream.map(lambda s: s + "!")
    seen, final = await read(mapped)
    assert seen == ["1!", "2!"]
    assert final == ["1!", "2!"]  # the moved finalizer folds what the consumer saw


async def test_a_delegated_stage_collecting_inputs_keeps_them_for_its_own_final() -> None:
    inner = inputs_of(Numbers([1, 2]).updates())
    delegator = Delegator(inner)
    seen, _ = await read(outer_of(delegator.updates()))
    assert seen == [-1, "1", "2", 99]
    assert delegator.inner_final == [1, 2]
