"""A local HTTP server on 127.0.0.1 answering like OpenAI's and Anthropic's APIs, for the
adapter benchmarks: the same reply every time, a whole body or a 200-chunk stream."""

from __future__ import annotations

import json
import multiprocessing
import socket
from collections.abc import Generator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from multiprocessing.queues import Queue
from typing import Any

__all__ = ["CHUNKS", "serving"]

CHUNKS = 200
"""Text pieces in every streamed answer."""

_CREATED = 1767225600
_WORD = "word "
_ARGS = '{"city": "Paris"}'
_CHAT_USAGE = {"prompt_tokens": 20, "completion_tokens": 10, "total_tokens": 30}
_RESP_USAGE = {
    "input_tokens": 20,
    "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
    "output_tokens": 10,
    "output_tokens_details": {"reasoning_tokens": 0},
    "total_tokens": 30,
}


def _sse(events: list[tuple[str | None, Any]]) -> bytes:
    out: list[str] = []
    for name, data in events:
        if name is not None:
            out.append(f"event: {name}\n")
        out.append(f"data: {data if isinstance(data, str) else json.dumps(data)}\n\n")
    return "".join(out).encode()


def _chat() -> tuple[bytes, bytes]:
    base = {"id": "chatcmpl-b", "created": _CREATED, "model": "bench"}
    call = {"id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": _ARGS}}
    message = {"role": "assistant", "content": None, "tool_calls": [call]}
    whole = {
        **base,
        "object": "chat.completion",
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
        "usage": _CHAT_USAGE,
    }
    chunk = {**base, "object": "chat.completion.chunk"}
    deltas: list[tuple[dict[str, Any], str | None]] = [({"role": "assistant", "content": ""}, None)]
    deltas += [({"content": _WORD}, None)] * CHUNKS + [({}, "stop")]
    events: list[tuple[str | None, Any]] = [
        (None, {**chunk, "choices": [{"index": 0, "delta": d, "finish_reason": f}]})
        for d, f in deltas
    ]
    events += [(None, {**chunk, "choices": [], "usage": _CHAT_USAGE}), (None, "[DONE]")]
    return json.dumps(whole).encode(), _sse(events)


def _responses() -> tuple[bytes, bytes]:
    def response(status: str, output: list[Any], usage: Any) -> dict[str, Any]:
        return {
            "id": "resp_b",
            "object": "response",
            "created_at": _CREATED,
            "status": status,
            "model": "bench",
            "output": output,
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "usage": usage,
        }

    call = {
        "id": "fc_1",
        "type": "function_call",
        "call_id": "call_1",
        "name": "lookup",
        "arguments": _ARGS,
        "status": "completed",
    }
    text: dict[str, Any] = {"type": "output_text", "text": _WORD * CHUNKS, "annotations": []}
    item = {"id": "msg_1", "type": "message", "role": "assistant", "status": "completed"}
    where = {"item_id": "msg_1", "output_index": 0, "content_index": 0}
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": response("in_progress", [], None)},
        {"type": "response.output_item.added", "output_index": 0, "item": {**item, "content": []}},
    ]
    delta: dict[str, Any] = {"type": "response.output_text.delta", **where, "delta": _WORD}
    delta |= {"logprobs": []}  # as the API sends it (the SDK's type requires it)
    events += [delta] * CHUNKS
    done: dict[str, Any] = {**item, "content": [text]}
    events += [
        {"type": "response.output_item.done", "output_index": 0, "item": done},
        {"type": "response.completed", "response": response("completed", [done], _RESP_USAGE)},
    ]
    numbered = [(e["type"], {**e, "sequence_number": n}) for n, e in enumerate(events)]
    whole = response("completed", [call], _RESP_USAGE)
    return json.dumps(whole).encode(), _sse(numbered)  # pyright: ignore[reportArgumentType]  # a list of pairs


def _messages() -> tuple[bytes, bytes]:
    usage = {"input_tokens": 20, "output_tokens": 10}
    message = {
        "id": "msg_b",
        "type": "message",
        "role": "assistant",
        "model": "bench",
        "stop_sequence": None,
        "usage": usage,
    }
    tool_use = {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {"city": "Paris"}}
    whole = {**message, "content": [tool_use], "stop_reason": "tool_use"}
    start: dict[str, Any] = {**message, "content": [], "stop_reason": None}
    delta = {
        "type": "content_block_delta",
        "index": 0,
        "delta": {"type": "text_delta", "text": _WORD},
    }
    events: list[tuple[str | None, Any]] = [
        ("message_start", {"type": "message_start", "message": start}),
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
        ),
    ]
    events += [("content_block_delta", delta)] * CHUNKS
    events += [
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": usage},
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return json.dumps(whole).encode(), _sse(events)


_REPLIES = {
    "/v1/chat/completions": _chat(),
    "/v1/responses": _responses(),
    "/v1/messages": _messages(),
}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def setup(self) -> None:
        super().setup()
        # Headers and body go out at once, not held back waiting for an ACK (Nagle).
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        whole, streamed = _REPLIES[self.path.split("?", 1)[0]]
        stream = bool(body.get("stream"))
        payload = streamed if stream else whole
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream" if stream else "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


def _serve(ports: Queue[int]) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    ports.put(server.server_address[1])
    server.serve_forever(poll_interval=0.05)


@contextmanager
def serving() -> Generator[str, None, None]:
    """A server running in a process of its own (so that the client's CPU time is the
    client's alone); yields its base URL (``http://127.0.0.1:<port>``)."""
    context = multiprocessing.get_context("spawn")
    ports: Queue[int] = context.Queue()
    process = context.Process(target=_serve, args=(ports,), daemon=True)
    process.start()
    try:
        yield f"http://127.0.0.1:{ports.get(timeout=30)}"
    finally:
        process.terminate()
        process.join()
