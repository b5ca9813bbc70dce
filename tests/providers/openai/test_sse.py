"""The SSE reader: line endings, comments, multi-line data, a body without a final blank line."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx2
import pytest
from agentcore_openai._sse import server_sent_events

pytestmark = pytest.mark.anyio


async def _events(body: bytes) -> list[tuple[str | None, str]]:
    response = httpx2.Response(200, content=body)
    return [event async for event in server_sent_events(response)]


async def test_events_with_and_without_names(anyio_backend: str) -> None:
    body = b'event: response.created\ndata: {"a": 1}\n\ndata: [DONE]\n\n'
    assert await _events(body) == [("response.created", '{"a": 1}'), (None, "[DONE]")]


async def test_crlf_line_endings(anyio_backend: str) -> None:
    assert await _events(b"event: e\r\ndata: x\r\n\r\n") == [("e", "x")]


async def test_comments_and_unknown_fields_are_skipped(anyio_backend: str) -> None:
    body = b": keep-alive\nid: 7\nretry: 10\ndata: x\n\n"
    assert await _events(body) == [(None, "x")]


async def test_data_lines_join_with_newlines(anyio_backend: str) -> None:
    assert await _events(b"data: first\ndata:second\n\n") == [(None, "first\nsecond")]


async def test_an_event_cut_by_the_end_of_the_body_is_kept(anyio_backend: str) -> None:
    assert await _events(b"data: a\n\ndata: b") == [(None, "a"), (None, "b")]


async def test_blank_lines_alone_make_no_events(anyio_backend: str) -> None:
    assert await _events(b"\n\n\n") == []


async def test_multibyte_characters_split_across_chunks(anyio_backend: str) -> None:
    text = "data: h\u00e9llo \u2603\n\n".encode()

    async def pieces() -> AsyncIterator[bytes]:
        for piece in (text[:8], text[8:14], text[14:]):  # cuts inside "é" and "☃"
            yield piece

    response = httpx2.Response(200, content=pieces())
    assert [e async for e in server_sent_events(response)] == [(None, "h\u00e9llo \u2603")]
