"""The decoder's bound on one event: an event too large is a typed error, never a
memory blow-up, and a bounded decoder decodes everything below the bound as before."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentcore.errors import MalformedResponseError
from agentcore.sse import SseDecoder, SseEvent, server_sent_events


def _decode(decoder: SseDecoder, *chunks: bytes) -> list[SseEvent]:
    return [event for chunk in chunks for event in decoder.feed(chunk)] + decoder.close()


@pytest.mark.parametrize(
    "chunks",
    [
        [b"data: " + b"x" * 100 + b"\n\n"],  # in one line
        [b"data: " + b"x" * 60, b"x" * 60, b"\n\n"],  # a line in pieces, never ended
        [b"data: " + b"x" * 40 + b"\n"] * 3,  # several data lines of one event
        [b"data: a\ndata: " + b"x" * 50 + b"\n", b"data: " + b"x" * 50 + b"\n"],  # lines, then more
    ],
    ids=["one line", "an unended line", "many lines", "lines across chunks"],
)
def test_an_event_past_the_bound_raises(chunks: list[bytes]) -> None:
    decoder = SseDecoder(max_event_size=80)
    with pytest.raises(MalformedResponseError, match="grew past 80 bytes"):
        _decode(decoder, *chunks)


def test_the_bound_is_per_event_not_per_body() -> None:
    decoder = SseDecoder(max_event_size=80)
    body = b"".join(b"data: " + b"x" * 60 + b"\n\n" for _ in range(10))
    events = _decode(decoder, body[:37], body[37:300], body[300:])
    assert [len(e.data) for e in events] == [60] * 10


def test_the_unsent_rest_of_a_line_counts_towards_the_bound() -> None:
    decoder = SseDecoder(max_event_size=80)
    decoder.feed(b"data: " + b"x" * 50 + b"\ndata: " + b"y" * 20)  # 50 counted, 26 pending
    with pytest.raises(MalformedResponseError):
        decoder.feed(b"y" * 20)


@given(st.lists(st.integers(1, 70), min_size=1, max_size=6), st.integers(1, 40))
def test_events_below_the_bound_decode_as_without_one(sizes: list[int], step: int) -> None:
    body = b"".join(b"data: " + b"z" * size + b"\n\n" for size in sizes)
    chunks = [body[i : i + step] for i in range(0, len(body), step)]
    bounded = _decode(SseDecoder(max_event_size=80), *chunks)
    assert bounded == _decode(SseDecoder(), *chunks)


def test_the_bound_must_be_positive() -> None:
    with pytest.raises(ValueError, match="positive number of bytes"):
        SseDecoder(max_event_size=0)


@pytest.mark.anyio
async def test_server_sent_events_passes_the_bound_on(anyio_backend: str) -> None:
    chunks = [b"data: " + b"x" * 200 + b"\n\n"]  # a list: nothing to close afterwards
    with pytest.raises(MalformedResponseError):
        async for _ in server_sent_events(_Body(chunks), max_event_size=100):
            pass


class _Body:
    """An async iterable over ``chunks`` that is no generator."""

    def __init__(self, chunks: list[bytes]) -> None:
        self._chunks = iter(chunks)

    def __aiter__(self) -> _Body:
        return self

    async def __anext__(self) -> bytes:
        try:
            return next(self._chunks)
        except StopIteration:
            raise StopAsyncIteration from None
