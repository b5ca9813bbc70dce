"""A local HTTP server that speaks a provider's wire format and records requests.

Tests start it on 127.0.0.1, queue the replies a route should give (JSON bodies or
SSE event sequences, with any status and headers), point the real SDK at it, and
then assert on what the adapter sent. Nothing leaves the machine.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import attrs

__all__ = ["RecordedRequest", "Reply", "WireServer", "sse_body"]


@attrs.frozen
class Reply:
    """What the server answers to one request.

    ``json_body`` is sent as ``application/json``; ``sse`` as ``text/event-stream``
    made of ``(event, data)`` pairs (``event`` ``None`` omits the ``event:`` line,
    ``data`` a str or any JSON value). ``chunk_size`` cuts the SSE body into pieces
    of that many bytes, so parsers meet awkward boundaries; ``delay`` waits between
    pieces (used to see a client hang up mid-stream). ``stall_after`` sends that many
    bytes of the body, then stops writing until the server stops (a service that
    hangs mid-answer). ``content_type`` overrides the body's ``Content-Type``.
    """

    status: int = 200
    json_body: Any = None
    sse: Sequence[tuple[str | None, Any]] | None = None
    headers: dict[str, str] = attrs.field(factory=dict)
    chunk_size: int | None = None
    delay: float = 0.0
    raw_body: bytes | None = None
    stall_after: int | None = None
    content_type: str | None = None


@attrs.frozen
class RecordedRequest:
    """One request the server received."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)


def sse_body(events: Sequence[tuple[str | None, Any]]) -> bytes:
    """Encode events the way an SSE server does: ``event:``/``data:`` lines, blank line."""
    out: list[str] = []
    for event, data in events:
        if event is not None:
            out.append(f"event: {event}\n")
        payload = data if isinstance(data, str) else json.dumps(data)
        out.extend(f"data: {line}\n" for line in payload.split("\n"))
        out.append("\n")
    return "".join(out).encode()


class WireServer:
    """A recording HTTP server on an ephemeral port of 127.0.0.1."""

    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self.disconnects = 0
        self.disconnected = threading.Event()
        self.stopping = threading.Event()
        self._replies: dict[tuple[str, str], deque[Reply]] = {}
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def handle(self) -> None:
                try:
                    super().handle()
                except ConnectionResetError:  # the client dropped a kept-alive connection
                    server._note_disconnect()

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                path = self.path.split("?", 1)[0]
                server._record(
                    RecordedRequest(
                        self.command,
                        self.path,
                        {k.lower(): v for k, v in self.headers.items()},
                        body,
                    )
                )
                reply = server._take(self.command, path)
                try:
                    self._send(reply)
                except (BrokenPipeError, ConnectionResetError):
                    server._note_disconnect()

            def _send(self, reply: Reply) -> None:
                self.send_response(reply.status)
                for key, value in reply.headers.items():
                    self.send_header(key, value)
                if reply.sse is not None:
                    payload = sse_body(reply.sse)
                    self.send_header("Content-Type", reply.content_type or "text/event-stream")
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    if reply.stall_after is not None:
                        piece = payload[: reply.stall_after]
                        self.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
                        self.wfile.flush()
                        server.stopping.wait(30.0)
                        self.close_connection = True  # the client gave up on it
                        return
                    size = reply.chunk_size or len(payload) or 1
                    for start in range(0, len(payload), size):
                        piece = payload[start : start + size]
                        self.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
                        self.wfile.flush()
                        if reply.delay:
                            time.sleep(reply.delay)
                    self.wfile.write(b"0\r\n\r\n")
                    self.wfile.flush()
                    return
                payload = (
                    reply.raw_body
                    if reply.raw_body is not None
                    else json.dumps(reply.json_body).encode()
                )
                self.send_header("Content-Type", reply.content_type or "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                if reply.stall_after is not None:
                    self.wfile.write(payload[: reply.stall_after])
                    self.wfile.flush()
                    server.stopping.wait(30.0)
                    self.close_connection = True  # the client gave up on it
                    return
                self.wfile.write(payload)
                self.wfile.flush()

            do_GET = _handle
            do_POST = _handle
            do_DELETE = _handle

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def add(self, method: str, path: str, *replies: Reply) -> None:
        """Queue replies for ``method path``; each request takes the next one."""
        with self._lock:
            self._replies.setdefault((method.upper(), path), deque()).extend(replies)

    def _take(self, method: str, path: str) -> Reply:
        with self._lock:
            queue = self._replies.get((method, path))
            if not queue:
                return Reply(
                    status=599,
                    json_body={"error": {"message": f"no reply queued for {method} {path}"}},
                )
            return queue.popleft()

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def _note_disconnect(self) -> None:
        with self._lock:
            self.disconnects += 1
        self.disconnected.set()

    def start(self) -> WireServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()  # releases the replies that stall
        if self._thread.is_alive():  # shutdown() waits forever on a server never started
            self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> WireServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def iter_requests(self, path: str) -> Iterator[RecordedRequest]:
        return (r for r in self.requests if r.path.split("?", 1)[0] == path)
