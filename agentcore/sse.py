"""Server-sent events, decoded from a streamed HTTP body.

Most model services stream their answers as server-sent events
(``text/event-stream``). :class:`SseDecoder` turns the bytes of such a body, fed as
they arrive, into :class:`SseEvent` values, following the WHATWG parsing rules;
:func:`server_sent_events` does the same for an async iterable of chunks, so an
adapter reads a stream with::

    async for event in server_sent_events(response.aiter_bytes()):
        ...

When the consumer leaves before the end, :func:`close_body` closes the connection
without stranding the HTTP client's generators. Which events matter (Anthropic's SDK,
for one, skips events without an ``event:`` line) is the adapter's business.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

import anyio
import attrs

from agentcore._equality import fields_eq, fields_hash
from agentcore._repr import fields_repr
from agentcore.errors import MalformedResponseError

__all__ = ["SseDecoder", "SseEvent", "close_body", "server_sent_events"]


@attrs.frozen
class SseEvent:
    """One dispatched event.

    ``data`` is its ``data:`` lines joined with ``"\\n"``. ``event`` is its ``event:``
    field, ``None`` when it had none (or an empty one): the type a browser would call
    ``"message"``. ``id`` and ``retry`` are the stream's last event id and reconnection
    time in milliseconds when the event was dispatched: as the spec has it, an ``id:``
    or ``retry:`` field holds for the events after it too. ``None`` until one is seen.
    """

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    data: str
    event: str | None = None
    id: str | None = None
    retry: int | None = None


class SseDecoder:
    """Turns the bytes of an event stream, in chunks of any size, into events.

    A chunk may end anywhere, even inside a CRLF or a UTF-8 character. Lines end in LF,
    CRLF or CR; a leading byte order mark is ignored; a line starting with ``:`` is a
    comment; the fields are ``event``, ``data``, ``id`` and ``retry`` (one space after
    the colon is dropped, a line without a colon is a field with an empty value, other
    fields are ignored); a blank line dispatches the event, unless it has no ``data``
    line. Bytes that are not UTF-8 decode to U+FFFD, so a stream never fails to decode.

    ``max_event_size`` bounds the memory one event may take: when the ``data`` of an
    event not yet dispatched (or a line not yet ended) grows past that many bytes,
    :meth:`feed` raises :class:`~agentcore.errors.MalformedResponseError` (``None``, the
    default, sets no bound).
    """

    __slots__ = (
        "_cr",
        "_data",
        "_data_size",
        "_event",
        "_id",
        "_limit",
        "_pending",
        "_pending_size",
        "_retry",
        "_started",
    )

    def __init__(self, *, max_event_size: int | None = None) -> None:
        if max_event_size is not None and max_event_size < 1:
            raise ValueError(
                f"max_event_size must be a positive number of bytes, got {max_event_size}"
            )
        self._limit = max_event_size
        self._pending_size = 0  # bytes in _pending, counted only with a limit
        self._data_size = 0  # characters of _data, counted only with a limit
        self._pending: list[bytes] = []  # the pieces of a line that has not ended yet
        self._cr = False  # the last chunk ended in CR: an LF starting the next one is its CRLF
        self._started = False  # a byte order mark is possible only before the first line
        self._event: str | None = None
        self._data: list[str] = []
        self._id: str | None = None
        self._retry: int | None = None

    def feed(self, chunk: bytes) -> list[SseEvent]:
        """The events that ``chunk`` completes: often none, sometimes several."""
        if self._cr and chunk:
            self._cr = False
            if chunk[0] == 0x0A:  # the LF of a CRLF whose CR ended the last chunk
                chunk = chunk[1:]
        end = chunk.rfind(b"\n") + 1
        end = max(end, chunk.rfind(b"\r", end) + 1)  # just past the chunk's last line end
        limit = self._limit
        if not end:
            if chunk:
                self._pending.append(chunk)
                if limit is not None:
                    self._pending_size += len(chunk)
                    self._check(self._data_size + self._pending_size)
            return []
        complete = chunk[:end]
        if self._pending:
            self._pending.append(complete)
            complete = b"".join(self._pending)
            self._pending = []
            self._pending_size = 0
        if end < len(chunk):
            self._pending.append(chunk[end:])
            if limit is not None:
                self._pending_size = len(chunk) - end
        else:
            self._cr = chunk[end - 1] == 0x0D  # CR
        # Line ends are ASCII, never inside a UTF-8 character: whole lines decode safely.
        text = complete.decode("utf-8", "replace")
        if not self._started:
            self._started = True
            text = text.removeprefix("\ufeff")
        if "\r" in text:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        events: list[SseEvent] = []
        data = self._data
        counted = len(data)  # the lines of _data that _data_size counts
        for line in text[:-1].split("\n"):  # text ends in a line end
            if line.startswith("data:"):  # the most common line first
                data.append(line[6:] if line.startswith(" ", 5) else line[5:])
            elif not line:  # a blank line dispatches
                if data:
                    if limit is not None:  # the event arrived whole: it must fit too
                        self._check(self._data_size + sum(map(len, data[counted:])))
                    event = self._event or None
                    events.append(SseEvent("\n".join(data), event, self._id, self._retry))
                    data.clear()
                    counted = self._data_size = 0
                self._event = None
            else:
                name, _, value = line.partition(":")
                if value.startswith(" "):
                    value = value[1:]
                if name == "data":  # "data" alone, without a colon
                    data.append(value)
                elif name == "event":
                    self._event = value
                elif name == "id":
                    if "\0" not in value:
                        self._id = value
                elif name == "retry" and value.isascii() and value.isdigit():
                    with contextlib.suppress(ValueError):  # more digits than int() takes
                        self._retry = int(value)
                # anything else (a ":" comment, an unknown field) is ignored
        if limit is not None:
            if len(data) > counted:
                self._data_size += sum(map(len, data[counted:]))
            self._check(self._data_size + self._pending_size)
        return events

    def _check(self, size: int) -> None:
        if self._limit is not None and size > self._limit:
            raise MalformedResponseError(
                f"a server-sent event grew past {self._limit} bytes without ending; "
                "raise max_event_size if the service really sends events that large"
            )

    def close(self) -> list[SseEvent]:
        """The events that the end of the body completes; the decoder starts afresh.

        The end of the body ends its last line and its last event, so an event the
        service sent without its closing blank line is still dispatched. (A browser's
        ``EventSource`` drops it, then reconnects and hears it again; a model's answer
        is read once, and a body cut short fails at the HTTP level first.) For the
        browser's behaviour, ignore what this returns.
        """
        events = self.feed(b"\n\n")  # ends the last line (if unended) and the last event
        self._started, self._id, self._retry = False, None, None
        return events


def server_sent_events(
    chunks: AsyncIterable[bytes], *, max_event_size: int | None = None
) -> AsyncIterator[SseEvent]:
    """The events of a body that arrives as ``chunks``, e.g. ``response.aiter_bytes()``.

    ``max_event_size`` is :class:`SseDecoder`'s bound on one event.

    The end of ``chunks`` is the end of the body (see :meth:`SseDecoder.close`); an
    exception from ``chunks`` propagates. The iterator holds nothing open and is no
    generator, so leaving the loop early leaves it nothing to clean up: ``chunks``
    stays where it was, and closing it (and the connection) is the caller's to do,
    with :func:`close_body`.
    """
    return _Events(chunks, max_event_size)


async def close_body(close: Callable[[], Awaitable[object]], chunks: AsyncIterator[Any]) -> None:
    """Close a streamed body that may not have been read to its end.

    ``close`` (the response's ``aclose``) runs first, so the connection closes at once;
    then ``chunks`` is read to its end, which on a closed connection comes at once (what
    reading it raises then is swallowed: the body is being given up). It all runs
    shielded, so it completes when a stream is closed by cancellation. Call it in a
    ``finally`` around the loop over the body.

    Why: httpx and httpx2 read a body through a chain of async generators. Closing the
    connection, or the outer generator, leaves the inner ones suspended; the garbage
    collector finds them later, and trio reports each one as a ``ResourceWarning``.
    Read to its end, every generator of the chain finishes.
    """
    with anyio.CancelScope(shield=True):
        await close()
        with contextlib.suppress(Exception):
            async for _ in chunks:
                pass


class _Events:
    """The iterator :func:`server_sent_events` returns."""

    __slots__ = ("_chunks", "_decoder", "_ready")

    def __init__(self, chunks: AsyncIterable[bytes], max_event_size: int | None) -> None:
        self._chunks: AsyncIterator[bytes] | None = aiter(chunks)
        self._decoder = SseDecoder(max_event_size=max_event_size)
        self._ready: Iterator[SseEvent] = iter(())

    def __aiter__(self) -> _Events:
        return self

    async def __anext__(self) -> SseEvent:
        while True:
            event = next(self._ready, None)
            if event is not None:
                return event
            if self._chunks is None:
                raise StopAsyncIteration
            try:
                chunk = await anext(self._chunks)
            except StopAsyncIteration:
                self._chunks = None
                self._ready = iter(self._decoder.close())
            else:
                self._ready = iter(self._decoder.feed(chunk))
