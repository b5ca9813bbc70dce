"""The server-sent-events decoder: the WHATWG parsing rules, at any chunk boundary."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Sequence
from types import AsyncGeneratorType

import anyio
import anyio.lowlevel
import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentcore.sse import SseDecoder, SseEvent, close_body, server_sent_events


def decode(*chunks: bytes) -> list[SseEvent]:
    """Every event of a body fed as ``chunks``, its end included."""
    decoder = SseDecoder()
    events = [event for chunk in chunks for event in decoder.feed(chunk)]
    return events + decoder.close()


def cut(body: bytes, points: Sequence[int]) -> list[bytes]:
    """``body`` cut at ``points`` (offsets in any order, repeats allowed)."""
    edges = [0, *sorted(points), len(body)]
    return [body[start:end] for start, end in itertools.pairwise(edges)]


# -- any chunking ------------------------------------------------------------------------

LINE_ENDS = st.sampled_from([b"\n", b"\r", b"\r\n"])
NAMES = st.sampled_from(["data", "event", "id", "retry", "other", "", "dat"])
# Values with multi-byte characters (2, 3 and 4 bytes in UTF-8), colons, spaces and NULs.
VALUES = st.text(alphabet=st.sampled_from(list("ab :0\x00é☃𝄞\ufeff")), max_size=8)


@st.composite
def lines(draw: st.DrawFn) -> bytes:
    kind = draw(st.sampled_from(["field", "bare field", "comment", "blank"]))
    if kind == "blank":
        text = ""
    elif kind == "comment":
        text = ":" + draw(VALUES)
    elif kind == "bare field":
        text = draw(NAMES)
    else:
        text = f"{draw(NAMES)}:{draw(st.sampled_from(['', ' ', '  ']))}{draw(VALUES)}"
    return text.encode() + draw(LINE_ENDS)


@st.composite
def bodies(draw: st.DrawFn) -> bytes:
    """Event streams, including odd ones: any lines, a BOM or not, a last line unended."""
    body = b"".join(draw(st.lists(lines(), max_size=20)))
    if draw(st.booleans()):
        body = "\ufeff".encode() + body
    if draw(st.booleans()):
        body += draw(VALUES).encode()  # a last line without its line end
    return body


@given(body=bodies(), data=st.data())
def test_any_chunking_gives_the_events_of_the_whole_body(body: bytes, data: st.DataObject) -> None:
    points = data.draw(st.lists(st.integers(0, len(body)), max_size=12), label="cut points")
    assert decode(*cut(body, points)) == decode(body)


@given(body=bodies())
def test_a_body_fed_byte_by_byte_gives_the_events_of_the_whole_body(body: bytes) -> None:
    assert decode(*[body[i : i + 1] for i in range(len(body))]) == decode(body)


@st.composite
def events(draw: st.DrawFn) -> SseEvent:
    """Events a service could send: a name or none, one or more data lines, an id."""
    characters = st.characters(exclude_characters="\r\n\x00", exclude_categories=["Cs"])
    text = st.text(alphabet=characters, max_size=10)
    data = "\n".join(draw(st.lists(text, min_size=1, max_size=3)))
    name = draw(st.none() | text.filter(bool))
    return SseEvent(data, event=name, id=draw(st.none() | text))


def encode(event: SseEvent, line_end: bytes) -> bytes:
    fields = [] if event.event is None else [f"event: {event.event}"]
    fields += [f"data: {line}" for line in event.data.split("\n")]
    fields += [] if event.id is None else [f"id: {event.id}"]
    return b"".join(field.encode() + line_end for field in [*fields, ""])


@given(sent=st.lists(events(), max_size=6), line_end=LINE_ENDS, data=st.data())
def test_encoded_events_decode_to_themselves(
    sent: list[SseEvent], line_end: bytes, data: st.DataObject
) -> None:
    body = b"".join(encode(event, line_end) for event in sent)
    points = data.draw(st.lists(st.integers(0, len(body)), max_size=8), label="cut points")
    expected: list[SseEvent] = []
    last_id: str | None = None
    for event in sent:  # an id holds for the events after it too
        last_id = event.id if event.id is not None else last_id
        expected.append(attrs.evolve(event, id=last_id))
    assert decode(*cut(body, points)) == expected


# -- lines and line ends -----------------------------------------------------------------


@pytest.mark.parametrize("line_end", [b"\n", b"\r", b"\r\n"])
def test_lines_may_end_in_lf_cr_or_crlf(line_end: bytes) -> None:
    body = line_end.join([b"event: e", b"data: x", b"", b"data: y", b"", b""])
    assert decode(body) == [SseEvent("x", event="e"), SseEvent("y")]


def test_line_ends_may_be_mixed() -> None:
    assert decode(b"data: a\rdata: b\r\ndata: c\n\r\n") == [SseEvent("a\nb\nc")]


def test_a_crlf_split_between_chunks_ends_one_line() -> None:
    # Were the LF a line end of its own, it would be a blank line and dispatch "a" alone.
    assert decode(b"data: a\r", b"\ndata: b\r", b"\n\r", b"\n") == [SseEvent("a\nb")]


def test_a_cr_at_the_end_of_a_chunk_ends_its_line_at_once() -> None:
    decoder = SseDecoder()
    assert decoder.feed(b"data: a\n\r") == [SseEvent("a")]
    assert decoder.feed(b"data: b\n\n") == [SseEvent("b")]


def test_an_lf_after_a_cr_counts_once_even_after_an_empty_chunk() -> None:
    assert decode(b"data: a\r", b"", b"\n", b"\n") == [SseEvent("a")]


def test_a_multi_byte_character_split_between_chunks_is_decoded_whole() -> None:
    body = "data: h\u00e9llo \u2603 \U0001d11e\n\n".encode()
    for point in range(len(body) + 1):
        assert decode(body[:point], body[point:]) == [SseEvent("h\u00e9llo \u2603 \U0001d11e")]


def test_bytes_that_are_not_utf8_decode_to_replacement_characters() -> None:
    assert decode(b"data: a\xffb\xc3\n\n") == [SseEvent("a\ufffdb\ufffd")]


def test_a_long_line_in_many_chunks_is_joined() -> None:
    text = "x" * 5000
    body = f"data: {text}\n\n".encode()
    assert decode(*[body[i : i + 7] for i in range(0, len(body), 7)]) == [SseEvent(text)]


# -- fields ------------------------------------------------------------------------------


def test_comment_lines_are_ignored_and_dispatch_nothing() -> None:
    assert decode(b": keep-alive\n\n:\ndata: x\n: between\n\n") == [SseEvent("x")]


def test_data_lines_join_with_newlines() -> None:
    assert decode(b"data: first\ndata:second\ndata:\ndata: last\n\n") == [
        SseEvent("first\nsecond\n\nlast")
    ]


def test_only_one_space_after_the_colon_is_dropped() -> None:
    assert decode(b"event:x\ndata:  two spaces\n\n") == [SseEvent(" two spaces", event="x")]


def test_a_line_without_a_colon_is_a_field_with_an_empty_value() -> None:
    assert decode(b"data\n\n") == [SseEvent("")]
    assert decode(b"event: named\nevent\ndata: x\n\n") == [SseEvent("x")]


def test_a_colon_in_the_value_is_kept() -> None:
    assert decode(b'data: {"a": "b:c"}\n\n') == [SseEvent('{"a": "b:c"}')]


def test_unknown_fields_are_ignored() -> None:
    assert decode(b"foo: bar\nDATA: loud\ndata : spaced\ndata: x\n\n") == [SseEvent("x")]


def test_an_event_without_data_lines_is_not_dispatched_and_its_name_does_not_linger() -> None:
    assert decode(b"event: ping\n\ndata: x\n\n") == [SseEvent("x")]


def test_blank_lines_alone_make_no_events() -> None:
    assert decode(b"\n\n\r\n\r") == []


def test_an_empty_event_name_means_no_name() -> None:
    assert decode(b"event:\ndata: x\n\n") == [SseEvent("x")]


def test_the_last_event_name_wins() -> None:
    assert decode(b"event: a\nevent: b\ndata: x\n\n") == [SseEvent("x", event="b")]


def test_an_id_holds_for_the_events_after_it_until_another_one() -> None:
    body = b"data: a\n\nid: 7\ndata: b\n\ndata: c\n\nid\ndata: d\n\n"
    assert [event.id for event in decode(body)] == [None, "7", "7", ""]


def test_an_id_with_a_nul_is_ignored() -> None:
    assert decode(b"id: 1\n\nid: 2\x003\ndata: x\n\n") == [SseEvent("x", id="1")]


def test_an_id_without_data_still_counts() -> None:
    assert decode(b"id: 5\n\ndata: x\n\n") == [SseEvent("x", id="5")]


def test_retry_takes_ascii_digits_only_and_holds_for_later_events() -> None:
    body = b"retry: 3000\ndata: a\n\nretry: 1a\ndata: b\n\nretry: \xd9\xa3\ndata: c\n\n"
    assert [event.retry for event in decode(body)] == [3000, 3000, 3000]


def test_a_retry_too_long_for_an_int_is_ignored() -> None:
    assert decode(b"retry: " + b"9" * 5000 + b"\ndata: x\n\n") == [SseEvent("x")]


def test_a_leading_byte_order_mark_is_ignored_even_split_between_chunks() -> None:
    body = "\ufeffdata: x\n\n".encode()
    assert decode(body[:1], body[1:2], body[2:]) == [SseEvent("x")]


def test_only_a_leading_byte_order_mark_is_ignored() -> None:
    # A second BOM is part of the field name, which is then no field of SSE's.
    body = "\ufeff\ufeffdata: x\n\n\ufeffdata: y\n\ndata: z\n\n".encode()
    assert decode(body) == [SseEvent("z")]


def test_events_as_anthropic_sends_them() -> None:
    body = (
        b": a comment\n"
        b"event: message_start\n"
        b'data: {"type": "message_start"}\n'
        b"\n"
        b"event: content_block_delta\r\n"
        b'data: {"text": "caf\xc3\xa9"}\r\n'
        b"\r\n"
        b"event: ping\r"
        b"data: {}\r"
        b"\r"
        b"data: no event line\n"
        b"\n"
    )
    expected = [
        SseEvent('{"type": "message_start"}', event="message_start"),
        SseEvent('{"text": "café"}', event="content_block_delta"),
        SseEvent("{}", event="ping"),
        SseEvent("no event line"),
    ]
    for size in (1, 2, 3, 5, 7, 64, 10_000):
        assert decode(*[body[i : i + size] for i in range(0, len(body), size)]) == expected


# -- the end of the body -----------------------------------------------------------------


def test_the_end_of_the_body_ends_an_unterminated_last_line_and_event() -> None:
    decoder = SseDecoder()
    assert decoder.feed(b"data: a\n\ndata: b") == [SseEvent("a")]
    assert decoder.close() == [SseEvent("b")]


def test_the_end_of_the_body_ends_an_event_without_its_blank_line() -> None:
    decoder = SseDecoder()
    assert decoder.feed(b"event: done\ndata: [DONE]\n") == []
    assert decoder.close() == [SseEvent("[DONE]", event="done")]


def test_the_end_of_the_body_dispatches_nothing_after_a_complete_event() -> None:
    decoder = SseDecoder()
    assert decoder.feed(b"data: a\n\n") == [SseEvent("a")]
    assert decoder.close() == []


def test_an_unterminated_last_line_of_an_event_without_data_dispatches_nothing() -> None:
    assert decode(b"data: a\n\nevent: x") == [SseEvent("a")]


def test_a_decoder_starts_afresh_after_close() -> None:
    decoder = SseDecoder()
    decoder.feed("\ufeffid: 1\nretry: 5\ndata: a\n\ndata: half".encode())
    decoder.close()
    assert decoder.feed("\ufeffdata: b\n\n".encode()) == [SseEvent("b")]


# -- over an async iterable --------------------------------------------------------------


async def _chunks(*pieces: bytes) -> AsyncIterator[bytes]:
    for piece in pieces:
        yield piece


@pytest.mark.anyio
async def test_events_of_an_async_body(anyio_backend: str) -> None:
    body = _chunks(b"event: a\ndata: 1", b"\n\ndata: 2\r", b"\n\r\ndata: 3")
    events = [event async for event in server_sent_events(body)]
    assert events == [SseEvent("1", event="a"), SseEvent("2"), SseEvent("3")]


@pytest.mark.anyio
async def test_an_empty_async_body_has_no_events(anyio_backend: str) -> None:
    assert [event async for event in server_sent_events(_chunks())] == []


@pytest.mark.anyio
async def test_iterating_past_the_end_keeps_stopping(anyio_backend: str) -> None:
    events = server_sent_events(_chunks(b"data: x\n\n"))
    assert [event async for event in events] == [SseEvent("x")]
    with pytest.raises(StopAsyncIteration):
        await anext(events)


@pytest.mark.anyio
async def test_a_failure_of_the_body_propagates(anyio_backend: str) -> None:
    async def broken() -> AsyncIterator[bytes]:
        yield b"data: 1\n\ndata: 2"
        raise ConnectionResetError("peer went away")

    seen: list[SseEvent] = []

    async def read() -> None:
        async for event in server_sent_events(broken()):
            seen.append(event)

    with pytest.raises(ConnectionResetError, match="peer went away"):
        await read()
    assert seen == [SseEvent("1")]  # the unfinished event is not dispatched


@pytest.mark.anyio
async def test_leaving_early_leaves_the_body_to_its_owner(anyio_backend: str) -> None:
    body = _chunks(b"data: 1\n\n", b"data: 2\n\n", b"data: 3\n\n")
    async for event in server_sent_events(body):
        assert event == SseEvent("1")
        break
    # The body was not closed: its owner reads on (or closes it, and the connection).
    assert [chunk async for chunk in body] == [b"data: 2\n\n", b"data: 3\n\n"]


@pytest.mark.anyio
async def test_any_async_iterable_of_bytes_will_do(anyio_backend: str) -> None:
    class Body:
        def __aiter__(self) -> AsyncIterator[bytes]:
            return _chunks(b"data: from an iterable\n\n")

    assert [event async for event in server_sent_events(Body())] == [SseEvent("from an iterable")]


# -- closing a body early ----------------------------------------------------------------


class Connection:
    """A stand-in for an HTTP connection read through a chain of async generators, the
    way httpx2 reads a body: ``body()`` wraps ``_raw()``, which fails once closed."""

    def __init__(self, *pieces: bytes) -> None:
        self.pieces = list(pieces)
        self.closed = False
        self.reads_after_close = 0
        self.raw: AsyncIterator[bytes] | None = None

    async def aclose(self) -> None:
        await anyio.lowlevel.checkpoint()  # as closing a socket has one
        self.closed = True

    async def _raw(self) -> AsyncIterator[bytes]:
        for piece in self.pieces:
            if self.closed:
                self.reads_after_close += 1
                raise ConnectionError("the connection is closed")
            yield piece

    async def body(self) -> AsyncIterator[bytes]:
        self.raw = self._raw()
        async for piece in self.raw:
            yield piece


def finished(generator: AsyncIterator[bytes] | None) -> bool:
    """Whether an async generator has run to its end (no frame left suspended)."""
    assert isinstance(generator, AsyncGeneratorType)
    return generator.ag_frame is None


@pytest.mark.anyio
async def test_close_body_closes_first_then_finishes_every_generator(anyio_backend: str) -> None:
    connection = Connection(b"data: 1\n\n", b"data: 2\n\n", b"data: 3\n\n")
    chunks = connection.body()
    async for event in server_sent_events(chunks):
        assert event == SseEvent("1")
        break
    await close_body(connection.aclose, chunks)
    assert connection.closed
    assert connection.reads_after_close == 1  # the rest was not read: the drain failed at once
    assert finished(chunks)
    assert finished(connection.raw)


@pytest.mark.anyio
async def test_close_body_after_the_end_of_the_body_only_closes(anyio_backend: str) -> None:
    connection = Connection(b"data: 1\n\n")
    chunks = connection.body()
    assert [event async for event in server_sent_events(chunks)] == [SseEvent("1")]
    await close_body(connection.aclose, chunks)
    assert connection.closed
    assert connection.reads_after_close == 0


@pytest.mark.anyio
async def test_close_body_completes_under_cancellation(anyio_backend: str) -> None:
    connection = Connection(b"data: 1\n\n", b"data: 2\n\n")
    chunks = connection.body()
    await anext(chunks)
    with anyio.CancelScope() as scope:
        scope.cancel()
        await close_body(connection.aclose, chunks)  # checkpoints inside, shielded
        await anyio.lowlevel.checkpoint()  # the cancellation is delivered after it
        pytest.fail("the scope was cancelled")
    assert connection.closed
    assert finished(chunks)
    assert finished(connection.raw)


@pytest.mark.anyio
async def test_close_body_reads_and_drops_what_the_source_still_gives(anyio_backend: str) -> None:
    closed: list[bool] = []

    async def close() -> None:
        closed.append(True)

    chunks = _chunks(b"data: 1\n\n", b"data: 2\n\n", b"data: 3\n\n")
    await anext(chunks)
    await close_body(close, chunks)  # a source that still has data after the close
    assert closed == [True]
    assert finished(chunks)
