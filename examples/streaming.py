"""Streaming: print an agent's answer as it is written, offline by default.

``agent.run(..., stream=True)`` returns a stream at once. Iterating it yields
updates: model text in small pieces, the tool calls and their results, and custom
events a tool emits while it works. ``get_final_response()`` then gives the same
response a non-streaming run would. With ``OPENAI_API_KEY`` or
``ANTHROPIC_API_KEY`` set, a real model streams instead.
"""

from __future__ import annotations

import os
from typing import Any

import anyio

from agentcore import (
    Agent,
    ChatResponse,
    FunctionCallContent,
    FunctionResultContent,
    Message,
    ToolContext,
    tool,
)
from agentcore.testing import ScriptedChatClient


@tool
async def search_trains(origin: str, destination: str, context: ToolContext) -> list[str]:
    """Find today's direct trains between two cities."""
    found: list[str] = []
    for departure in ("08:04", "10:04", "12:04"):
        await anyio.sleep(0.05)  # a slow timetable service
        found.append(f"{origin} {departure} -> {destination}")
        await context.emit({"found": len(found)}, name="search_progress")
    return found


def offline_model() -> ScriptedChatClient:
    """Asks for the timetable, then writes a short answer (streamed in 4-character pieces)."""
    return ScriptedChatClient(
        [
            ChatResponse(
                messages=[
                    Message(
                        "assistant",
                        [
                            FunctionCallContent(
                                "call_1",
                                "search_trains",
                                '{"origin": "Lyon", "destination": "Paris"}',
                            )
                        ],
                    )
                ],
                finish_reason="tool_calls",
            ),
            "There are three direct trains today: 08:04, 10:04 and 12:04. "
            "The 10:04 gets you to Paris before lunch.",
        ]
    )


def make_client() -> Any:
    if os.environ.get("OPENAI_API_KEY"):
        from agentcore_openai import OpenAIChatClient

        return OpenAIChatClient(os.environ.get("OPENAI_MODEL", "gpt-4o-mini"))
    if os.environ.get("ANTHROPIC_API_KEY"):
        from agentcore_anthropic import AnthropicChatClient

        return AnthropicChatClient(os.environ.get("ANTHROPIC_MODEL", "claude-sonnet-4-5"))
    return offline_model()


async def main() -> None:
    agent = Agent(make_client(), "You plan train trips. Be brief.", tools=[search_trains])
    stream = agent.run("Is there a train from Lyon to Paris this morning?", stream=True)
    async for update in stream:
        if update.event is not None:
            print(f"[event] {update.event.name}: {update.event.data}")
        for content in update.contents:
            if isinstance(content, FunctionCallContent) and content.name:
                print(f"[calling {content.name}]")
            elif isinstance(content, FunctionResultContent):
                print(f"[result] {content.result}")
        print(update.text, end="", flush=True)
    response = await stream.get_final_response()
    print(f"\n\nfinal answer ({len(response.messages)} messages): {response.text}")


if __name__ == "__main__":
    anyio.run(main)
