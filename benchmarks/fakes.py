"""In-process fake model and tools: the work both sides of each benchmark share."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Sequence
from typing import Any

from agentcore import (
    ChatResponse,
    ChatResponseUpdate,
    FunctionCallContent,
    Message,
    ResponseStream,
    TextContent,
    Usage,
    UsageContent,
)
from agentcore.adapters import GetResponseResult, get_response_method

USAGE = Usage(input_tokens=10, output_tokens=5, total_tokens=15)


def text_response(text: str = "done") -> ChatResponse[None]:
    return ChatResponse(
        messages=(Message("assistant", (TextContent(text),)),), finish_reason="stop", usage=USAGE
    )


def calls_response(count: int) -> ChatResponse[None]:
    calls = tuple(
        FunctionCallContent(f"call_{i}", "lookup", json.dumps({"city": f"c{i}"}))
        for i in range(count)
    )
    return ChatResponse(
        messages=(Message("assistant", calls),), finish_reason="tool_calls", usage=USAGE
    )


def stream_updates(chunks: int) -> list[ChatResponseUpdate]:
    updates = [
        ChatResponseUpdate(contents=(TextContent("tok "),), role="assistant") for _ in range(chunks)
    ]
    updates.append(ChatResponseUpdate(contents=(UsageContent(USAGE),), finish_reason="stop"))
    return updates


async def _iterate(updates: Sequence[ChatResponseUpdate]) -> AsyncIterator[ChatResponseUpdate]:
    for update in updates:
        yield update


class FakeModel:
    """Answers from a fixed cycle of responses; no recording, no copying."""

    def __init__(
        self,
        responses: Sequence[ChatResponse[Any]],
        updates: Sequence[ChatResponseUpdate] = (),
        *,
        suspend: bool = False,
    ) -> None:
        self.suspend = suspend
        self.responses = list(responses)
        self.updates = list(updates)
        self.position = 0

    def next(self) -> ChatResponse[Any]:
        response = self.responses[self.position % len(self.responses)]
        self.position += 1
        return response

    async def _get(self) -> ChatResponse[Any]:
        if self.suspend:
            await asyncio.sleep(0)  # a real client waits on the network: let others run
        return self.next()

    @get_response_method
    def get_response(
        self, messages: Sequence[Message], *, options: Any | None = None, stream: bool = False
    ) -> GetResponseResult:
        if stream:
            return ResponseStream(_iterate(self.updates), finalizer=ChatResponse.from_updates)
        return self._get()


async def lookup(city: str) -> str:
    """The tool both sides call."""
    return f"sunny in {city}"
