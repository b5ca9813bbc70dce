"""OpenAI chat: an agent with a Python tool over the Responses API, then a streamed
answer over Chat Completions; offline by default.

Without ``OPENAI_API_KEY`` both clients talk (through the real OpenAI SDK, over
real HTTP) to a tiny server in this file that answers like the two APIs. With the
key set they talk to the real API (``OPENAI_MODEL`` picks the model).
"""

from __future__ import annotations

import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import anyio
from agentcore_openai import OpenAIChatClient, OpenAIResponsesClient

from agentcore import Agent, tool


@tool
def get_weather(city: str) -> str:
    """Current weather for a city."""
    forecasts = {"paris": "sunny, 21°C", "oslo": "snow, -3°C"}
    return forecasts.get(city.lower(), "cloudy, 15°C")


# -- the offline stand-in for api.openai.com ------------------------------------------

USAGE: dict[str, Any] = {
    "input_tokens": 120,
    "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
    "output_tokens": 30,
    "output_tokens_details": {"reasoning_tokens": 0},
    "total_tokens": 150,
}


def _response(rid: str, *output: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": rid,
        "object": "response",
        "created_at": 1767225600,
        "status": "completed",
        "model": "gpt-offline",
        "output": list(output),
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": USAGE,
    }


CALL: dict[str, Any] = {
    "type": "function_call",
    "id": "fc_1",
    "call_id": "call_1",
    "name": "get_weather",
    "arguments": '{"city": "Paris"}',
    "status": "completed",
}
ANSWER: dict[str, Any] = {
    "type": "message",
    "id": "msg_1",
    "role": "assistant",
    "status": "completed",
    "content": [
        {
            "type": "output_text",
            "text": "Sunny and 21°C in Paris: sunglasses, yes.",
            "annotations": [],
        }
    ],
}


def _chunks(text: str) -> list[dict[str, Any]]:
    base: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1767225600,
        "model": "gpt-offline",
    }
    words = text.split(" ")
    chunks: list[dict[str, Any]] = [
        {**base, "choices": [{"index": 0, "delta": {"content": w if i == 0 else " " + w}}]}
        for i, w in enumerate(words)
    ]
    chunks.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    usage = {"prompt_tokens": 90, "completion_tokens": 14, "total_tokens": 104}
    chunks.append({**base, "choices": [], "usage": usage})
    return chunks


SCRIPT: dict[str, list[Any]] = {
    "/v1/responses": [_response("resp_1", CALL), _response("resp_2", ANSWER)],
    "/v1/chat/completions": [_chunks("In Oslo it is snowing at -3°C, so pack a warm coat.")],
}


class _OpenAIApi(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        reply = SCRIPT[self.path].pop(0)
        self.send_response(200)
        if isinstance(reply, dict):
            body = json.dumps(reply).encode()
            self.send_header("Content-Type", "application/json")
        else:
            events = [f"data: {json.dumps(chunk)}\n\n" for chunk in reply]
            body = "".join([*events, "data: [DONE]\n\n"]).encode()
            self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


# -- the program ---------------------------------------------------------------------


async def converse(responses: OpenAIResponsesClient, chat: OpenAIChatClient) -> None:
    agent = Agent(responses, "You are a concise travel assistant.", tools=[get_weather])
    response = await agent.run("Should I pack sunglasses for Paris?")
    print(response.text)
    print(f"  ({response.usage})")

    streaming = Agent(chat, "You are a concise travel assistant.")
    stream = streaming.run("What should I pack for Oslo, where it snows at -3°C?", stream=True)
    async for update in stream:
        print(update.text, end="", flush=True)
    final = await stream.get_final_response()
    print(f"\n  (finish: {final.finish_reason}, {final.usage})")


async def main() -> None:
    if os.environ.get("OPENAI_API_KEY"):
        model = os.environ.get("OPENAI_MODEL", "gpt-4.1-mini")
        async with OpenAIResponsesClient(model) as responses, OpenAIChatClient(model) as chat:
            await converse(responses, chat)
        return
    server = ThreadingHTTPServer(("127.0.0.1", 0), _OpenAIApi)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        host, port = server.server_address[:2]
        base_url = f"http://{host!s}:{port}/v1"
        async with (
            OpenAIResponsesClient("gpt-offline", api_key="offline", base_url=base_url) as responses,
            OpenAIChatClient("gpt-offline", api_key="offline", base_url=base_url) as chat,
        ):
            await converse(responses, chat)
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


if __name__ == "__main__":
    anyio.run(main)
