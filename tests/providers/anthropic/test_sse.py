"""The adapter's server-sent-events reader, at every kind of chunk boundary."""

from __future__ import annotations

import pytest

from providers.anthropic._sse import SseEvent, SseReader

BODY = (
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
EXPECTED = [
    SseEvent("message_start", '{"type": "message_start"}'),
    SseEvent("content_block_delta", '{"text": "café"}'),
    SseEvent("ping", "{}"),
    SseEvent(None, "no event line"),
]


def _read(body: bytes, size: int) -> list[SseEvent]:
    reader = SseReader()
    events: list[SseEvent] = []
    for start in range(0, len(body), size):
        events.extend(reader.feed(body[start : start + size]))
    events.extend(reader.close())
    return events


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7, 64, 10_000])
def test_events_are_the_same_whatever_the_chunk_size(size: int) -> None:
    assert _read(BODY, size) == EXPECTED


def test_multi_line_data_is_joined_with_newlines() -> None:
    assert _read(b"event: x\ndata: a\ndata: b\n\n", 3) == [SseEvent("x", "a\nb")]


def test_an_event_cut_off_before_its_blank_line_is_dropped() -> None:
    assert _read(b"event: x\ndata: a\n", 4) == []


def test_a_field_without_a_space_after_the_colon_keeps_its_whole_value() -> None:
    assert _read(b"event:x\ndata:  two spaces\n\n", 5) == [SseEvent("x", " two spaces")]
