"""Tools: plain Python functions the model can call, offline by default.

The agent gets two tools: a sync one (run in a worker thread) and an async one
that reads run-local state through ``ToolContext``. The scripted model calls both
in one turn (they run concurrently), then answers. With ``OPENAI_API_KEY`` or
``ANTHROPIC_API_KEY`` set, a real model decides instead.
"""

from __future__ import annotations

import os
from typing import Annotated, Any, Literal

import anyio
import anyio.lowlevel

from agentcore import (
    Agent,
    ChatResponse,
    FunctionCallContent,
    FunctionResultContent,
    Message,
    ToolContext,
    Usage,
    tool,
)
from agentcore.testing import ScriptedChatClient

PRICES = {"espresso": 2.2, "cappuccino": 3.4, "croissant": 1.9}


@tool
def price(item: Annotated[str, "A menu item, e.g. 'espresso'"]) -> float:
    """The price of one menu item in euros."""
    return PRICES[item.lower()]


@tool
async def opening_hours(day: Literal["weekday", "weekend"], context: ToolContext) -> dict[str, str]:
    """When the café is open on a kind of day."""
    context.locals["asked_about"] = day  # visible to the other tools and middleware of this run
    await anyio.lowlevel.checkpoint()
    return {"opens": "07:00", "closes": "19:00" if day == "weekday" else "14:00"}


def offline_model() -> ScriptedChatClient:
    """Calls both tools in one turn, then answers from their results."""
    calls = [
        FunctionCallContent("call_1", "price", '{"item": "cappuccino"}'),
        FunctionCallContent("call_2", "opening_hours", '{"day": "weekend"}'),
    ]
    return ScriptedChatClient(
        [
            ChatResponse(
                messages=[Message("assistant", calls)],
                finish_reason="tool_calls",
                usage=Usage(input_tokens=120, output_tokens=30, total_tokens=150),
            ),
            ChatResponse(
                messages=[
                    Message(
                        "assistant",
                        "A cappuccino is €3.40, and on weekends we are open 07:00-14:00.",
                    )
                ],
                finish_reason="stop",
                usage=Usage(input_tokens=190, output_tokens=20, total_tokens=210),
            ),
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
    agent = Agent(
        make_client(),
        "You are the café's assistant. Use the tools for prices and hours.",
        tools=[price, opening_hours],
    )
    response = await agent.run("How much is a cappuccino, and when are you open on Sunday?")
    for message in response.messages:
        for content in message.contents:
            if isinstance(content, FunctionCallContent):
                print(f"[call]   {content.name}({content.arguments})")
            elif isinstance(content, FunctionResultContent):
                print(f"[result] {content.call_id}: {content.result}")
    print(response.text)
    if response.usage is not None:
        print(f"tokens used: {response.usage.total_tokens}")


if __name__ == "__main__":
    anyio.run(main)
