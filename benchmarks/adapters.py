"""What the provider adapters add to the raw SDKs, over real HTTP to a local server.

For each adapter, two requests: one answered with a tool call (whole), and one answered
with a 200-chunk text stream. Each runs through the adapter and through the raw SDK
doing the same work (read the call and parse its arguments; read every chunk and join
the text), the two interleaved in each repeat so that a busy host slows both alike.

The server runs in a process of its own, so the figures are the client process's CPU
time per request (what an adapter can add); wall-clock times are in the note.
"""

from __future__ import annotations

import asyncio
import gc
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

import anthropic
import openai
from agentcore_anthropic import AnthropicChatClient
from agentcore_openai import OpenAIChatClient, OpenAIResponsesClient

from agentcore import Message, tool
from benchmarks.scenarios import Result
from benchmarks.wire import CHUNKS, serving

__all__ = ["adapter_overhead"]

BUDGET = 1.10
"""An adapter may take at most 10 % more than the raw SDK."""

Run = Callable[[], Awaitable[object]]
_USER = [Message("user", "Weather in Paris?")]
_RAW_USER: Any = [{"role": "user", "content": "Weather in Paris?"}]
# The raw SDK sends the very request the adapter sends: the same messages and tool.
_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
    "additionalProperties": False,
}
_DESCRIPTION = "Weather for a city."
_RAW_INPUT: Any = [
    {"role": "user", "content": [{"type": "input_text", "text": "Weather in Paris?"}]}
]


@tool
def lookup(city: str) -> str:
    """Weather for a city."""
    return f"sunny in {city}"


_OPTIONS: Any = {"tools": [lookup]}


async def _adapter_call(client: Any) -> object:
    response = await client.get_response(_USER, options=_OPTIONS)
    calls = [c for m in response.messages for c in m.contents if c.type == "function_call"]
    return calls[0].parse_arguments()


async def _adapter_stream(client: Any) -> object:
    stream = client.get_response(_USER, stream=True)
    async for update in stream:
        _ = update.text
    return (await stream.get_final_response()).text


def _factories(base: str) -> dict[str, tuple[Callable[[], Any], Callable[[], Any]]]:
    """Per API: a factory of the adapter and one of the raw SDK client, both at ``base``."""
    v1 = f"{base}/v1"
    return {
        "Chat Completions": (
            lambda: OpenAIChatClient("bench", api_key="k", base_url=v1),
            lambda: openai.AsyncOpenAI(api_key="k", base_url=v1, max_retries=0),
        ),
        "Responses": (
            lambda: OpenAIResponsesClient("bench", api_key="k", base_url=v1),
            lambda: openai.AsyncOpenAI(api_key="k", base_url=v1, max_retries=0),
        ),
        "Anthropic Messages": (
            lambda: AnthropicChatClient("bench", api_key="k", base_url=base),
            lambda: anthropic.AsyncAnthropic(api_key="k", base_url=base, max_retries=0),
        ),
    }


async def _raw_chat_call(sdk: openai.AsyncOpenAI) -> object:
    function = {"name": "lookup", "parameters": _SCHEMA, "description": _DESCRIPTION}
    tools: Any = [{"type": "function", "function": {**function, "strict": True}}]
    completion = await sdk.chat.completions.create(
        model="bench", messages=_RAW_USER, tools=tools, tool_choice="auto"
    )
    calls: Any = completion.choices[0].message.tool_calls
    return json.loads(calls[0].function.arguments)


async def _raw_chat_stream(sdk: openai.AsyncOpenAI) -> object:
    stream = await sdk.chat.completions.create(
        model="bench", messages=_RAW_USER, stream=True, stream_options={"include_usage": True}
    )
    parts: list[str] = []
    async for chunk in stream:
        if chunk.choices and chunk.choices[0].delta.content:
            parts.append(chunk.choices[0].delta.content)
    return "".join(parts)


async def _raw_responses_call(sdk: openai.AsyncOpenAI) -> object:
    tool: Any = {"type": "function", "name": "lookup", "parameters": _SCHEMA, "strict": True}
    tools: Any = [{**tool, "description": _DESCRIPTION}]
    response = await sdk.responses.create(
        model="bench", input=_RAW_INPUT, tools=tools, tool_choice="auto"
    )
    item: Any = response.output[0]
    return json.loads(item.arguments)


async def _raw_responses_stream(sdk: openai.AsyncOpenAI) -> object:
    stream = await sdk.responses.create(model="bench", input=_RAW_INPUT, stream=True)
    parts: list[str] = []
    async for event in stream:
        if event.type == "response.output_text.delta":
            parts.append(event.delta)
    return "".join(parts)


async def _raw_messages_call(sdk: anthropic.AsyncAnthropic) -> object:
    message = await sdk.messages.create(
        model="bench",
        max_tokens=4096,
        messages=[{"role": "user", "content": "Weather in Paris?"}],
        tools=[{"name": "lookup", "input_schema": _SCHEMA, "description": _DESCRIPTION}],  # pyright: ignore[reportArgumentType]  # a plain schema dict
    )
    block: Any = message.content[0]
    return block.input


async def _raw_messages_stream(sdk: anthropic.AsyncAnthropic) -> object:
    stream = await sdk.messages.create(
        model="bench",
        max_tokens=4096,
        messages=[{"role": "user", "content": "Weather in Paris?"}],
        stream=True,
    )
    parts: list[str] = []
    async for event in stream:
        if event.type == "content_block_delta" and event.delta.type == "text_delta":
            parts.append(event.delta.text)
    return "".join(parts)


_RAW: dict[str, tuple[Callable[[Any], Awaitable[object]], Callable[[Any], Awaitable[object]]]] = {
    "Chat Completions": (_raw_chat_call, _raw_chat_stream),
    "Responses": (_raw_responses_call, _raw_responses_stream),
    "Anthropic Messages": (_raw_messages_call, _raw_messages_stream),
}


async def _timed(run: Run, iterations: int) -> tuple[float, float]:
    """Microseconds per call of ``run``: CPU time of this process, and wall-clock time."""
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(iterations):
        await run()
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return cpu / iterations * 1e6, wall / iterations * 1e6


async def _one_repeat(
    make_adapter: Callable[[], Any],
    make_sdk: Callable[[], Any],
    adapter_run: Callable[[Any], Awaitable[object]],
    raw_run: Callable[[Any], Awaitable[object]],
    iterations: int,
) -> tuple[tuple[float, float], tuple[float, float]]:
    adapter, sdk = make_adapter(), make_sdk()
    try:
        for _ in range(min(iterations, 10)):  # warm up: connections, caches
            await adapter_run(adapter)
            await raw_run(sdk)
        raw = await _timed(lambda: raw_run(sdk), iterations)
        through_adapter = await _timed(lambda: adapter_run(adapter), iterations)
        return through_adapter, raw
    finally:
        await adapter.aclose()
        await sdk.close()


def adapter_overhead(iterations: int, repeats: int) -> list[Result]:
    """One row per API and request kind: the adapter beside the raw SDK, best of ``repeats``."""
    results: list[Result] = []
    with serving() as base:
        for api, (make_adapter, make_sdk) in _factories(base).items():
            raw_call, raw_stream = _RAW[api]
            kinds = (
                ("one request answered with a tool call", _adapter_call, raw_call),
                (f"one {CHUNKS}-chunk stream", _adapter_stream, raw_stream),
            )
            for kind, adapter_run, raw_run in kinds:
                best: list[float] = [float("inf")] * 4  # cpu, wall of the adapter, of the SDK
                for _ in range(repeats):
                    gc.collect()
                    (a_cpu, a_wall), (r_cpu, r_wall) = asyncio.run(
                        _one_repeat(make_adapter, make_sdk, adapter_run, raw_run, iterations)
                    )
                    best = [
                        min(b, v) for b, v in zip(best, (a_cpu, a_wall, r_cpu, r_wall), strict=True)
                    ]
                results.append(
                    Result(
                        f"{api}: {kind}",
                        best[0],
                        best[2],
                        best[2] * BUDGET,
                        note=f"wall: {best[1]:.0f} µs vs {best[3]:.0f} µs",
                    )
                )
    return results
