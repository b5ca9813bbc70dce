"""Anthropic chat: an agent with a Python tool, streamed and not, offline by default.

Without ``ANTHROPIC_API_KEY`` the ``AnthropicChatClient`` talks (through the real
Anthropic SDK, over real HTTP) to a tiny server in this file that answers like the
Messages API: a tool call, a text answer, then a streamed answer. With the key set
it talks to the real API (``ANTHROPIC_MODEL`` picks the model).
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import anyio
from agentcore_anthropic import AnthropicChatClient

from agentcore import Agent, tool


@tool
def get_weather(city: str) -> str:
    """Current weather for a city."""
    forecasts = {"paris": "sunny, 21°C", "oslo": "snow, -3°C"}
    return forecasts.get(city.lower(), "cloudy, 15°C")


# -- the offline stand-in for api.anthropic.com ---------------------------------------


def _message(*content: dict[str, Any], stop_reason: str) -> dict[str, Any]:
    return {
        "id": "msg_offline",
        "type": "message",
        "role": "assistant",
        "model": "claude-offline",
        "content": list(content),
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 120, "output_tokens": 30},
    }


def _text_events(text: str) -> Iterator[tuple[str, dict[str, Any]]]:
    start = _message(stop_reason="end_turn")
    start.update(stop_reason=None, usage={"input_tokens": 150, "output_tokens": 1})
    yield "message_start", {"type": "message_start", "message": start}
    block = {"type": "text", "text": ""}
    yield "content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}
    for i, word in enumerate(text.split(" ")):
        piece = {"type": "text_delta", "text": word if i == 0 else " " + word}
        yield "content_block_delta", {"type": "content_block_delta", "index": 0, "delta": piece}
    yield "content_block_stop", {"type": "content_block_stop", "index": 0}
    stop = {"stop_reason": "end_turn", "stop_sequence": None}
    usage = {"output_tokens": 12}
    yield "message_delta", {"type": "message_delta", "delta": stop, "usage": usage}
    yield "message_stop", {"type": "message_stop"}


CALL = {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}
ANSWER = {"type": "text", "text": "Sunny and 21°C in Paris: sunglasses, yes."}
SCRIPT: list[Any] = [
    _message(CALL, stop_reason="tool_use"),
    _message(ANSWER, stop_reason="end_turn"),
    list(_text_events("In Oslo it is snowing at -3°C, so pack a warm coat.")),
]


class _MessagesApi(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        reply = SCRIPT.pop(0)
        self.send_response(200)
        if isinstance(reply, dict):
            body = json.dumps(reply).encode()
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
        else:
            sse = "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in reply)
            body = sse.encode()
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


# -- the program ---------------------------------------------------------------------


async def converse(client: AnthropicChatClient) -> None:
    agent = Agent(client, "You are a concise travel assistant.", tools=[get_weather])
    response = await agent.run("Should I pack sunglasses for Paris?")
    print(response.text)
    print(f"  ({response.usage})")

    stream = agent.run("And for Oslo?", stream=True)
    async for update in stream:
        print(update.text, end="", flush=True)
    final = await stream.get_final_response()
    print(f"\n  (finish: {final.finish_reason})")


async def main() -> None:
    if os.environ.get("ANTHROPIC_API_KEY"):
        await converse(AnthropicChatClient(os.environ.get("ANTHROPIC_MODEL", "claude-sonnet-4-6")))
        return
    server = ThreadingHTTPServer(("127.0.0.1", 0), _MessagesApi)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        host, port = server.server_address[:2]
        client = AnthropicChatClient(
            "claude-offline", api_key="offline", base_url=f"http://{host!s}:{port}"
        )
        await converse(client)
        await client.client.close()
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


if __name__ == "__main__":
    anyio.run(main)
