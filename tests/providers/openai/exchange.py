"""Running one fixture through an adapter in both modes, and a duck-typed function tool."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from agentcore import ChatResponse, ChatResponseUpdate, Message, SupportsGetResponse
from tests.providers.wire_server import Reply, WireServer

USER = [Message("user", ["What is the weather in Paris?"])]


@attrs.frozen
class SchemaTool:
    """The shape of ``agentcore.tools.FunctionTool`` the adapters rely on."""

    name: str
    description: str
    parameters: Mapping[str, Any]


WEATHER_TOOL = SchemaTool(
    "get_weather",
    "Current weather for a city.",
    {
        "type": "object",
        "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
        "required": ["city", "unit"],
        "additionalProperties": False,
    },
)
LOOSE_TOOL = SchemaTool(
    "search",
    "Search the notes.",
    {"type": "object", "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}}},
)


async def stream_updates(
    client: SupportsGetResponse[Any],
    messages: Sequence[Message] = USER,
    options: Mapping[str, Any] | None = None,
) -> tuple[list[ChatResponseUpdate], ChatResponse[Any]]:
    """Every streamed update and the stream's final response."""
    stream = client.get_response(messages, options=options, stream=True)
    updates = [update async for update in stream]
    return updates, await stream.get_final_response()


async def both_modes(
    client: SupportsGetResponse[Any],
    server: WireServer,
    path: str,
    body: Any,
    events: Sequence[tuple[str | None, Any]],
    *,
    chunk_size: int | None = None,
    messages: Sequence[Message] = USER,
    options: Mapping[str, Any] | None = None,
) -> tuple[ChatResponse[Any], ChatResponse[Any]]:
    """The non-streamed response to ``body`` and the fold of streaming ``events``."""
    server.add("POST", path, Reply(json_body=body), Reply(sse=events, chunk_size=chunk_size))
    whole = await client.get_response(messages, options=options)
    _, folded = await stream_updates(client, messages, options)
    return whole, folded
