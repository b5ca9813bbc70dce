"""A minimal server-sent-events reader, fed chunk by chunk.

The SDK's own decoder is an async-generator chain that stays suspended when a
stream is closed early (trio then warns about it), so the adapter reads the
response bytes itself and parses events here, following the SSE spec: lines end
in LF, CRLF or CR; ``event:`` and ``data:`` fields; a blank line ends an event;
``:`` starts a comment.
"""

from __future__ import annotations

import attrs

__all__ = ["SseEvent", "SseReader"]


@attrs.frozen
class SseEvent:
    """One event: its ``event:`` name (``None`` without that line) and joined data."""

    event: str | None
    data: str


class SseReader:
    """Turns response body chunks into :class:`SseEvent` values."""

    __slots__ = ("_buffer", "_data", "_event")

    def __init__(self) -> None:
        self._buffer = b""
        self._event: str | None = None
        self._data: list[str] = []

    def feed(self, chunk: bytes) -> list[SseEvent]:
        """The events completed by ``chunk``."""
        lines = (self._buffer + chunk).splitlines(keepends=True)
        self._buffer = b""
        if lines and (lines[-1].endswith(b"\r") or not lines[-1].endswith(b"\n")):
            # An unfinished line, or a CR whose LF may be the next chunk's first byte.
            self._buffer = lines.pop()
        events: list[SseEvent] = []
        for line in lines:
            event = self._line(line.rstrip(b"\r\n").decode("utf-8"))
            if event is not None:
                events.append(event)
        return events

    def close(self) -> list[SseEvent]:
        """The events completed by the end of the body (an unterminated last line)."""
        rest, self._buffer = self._buffer, b""
        return self.feed(rest + b"\n") if rest else []

    def _line(self, line: str) -> SseEvent | None:
        if not line:
            if self._event is None and not self._data:
                return None
            event = SseEvent(self._event, "\n".join(self._data))
            self._event, self._data = None, []
            return event
        if line.startswith(":"):
            return None
        name, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "event":
            self._event = value
        elif name == "data":
            self._data.append(value)
        return None
