"""Quickstart: an agent with one tool, offline by default.

Run it with ``make demo``. Without an API key it uses a scripted model (the
answers are canned, the tool really runs); with ``OPENAI_API_KEY`` or
``ANTHROPIC_API_KEY`` set it asks the real service instead.
"""

from __future__ import annotations

import os
from typing import Annotated, Any

import anyio

from agentcore import Agent, ChatResponse, FunctionCallContent, Message, tool
from agentcore.testing import ScriptedChatClient


@tool
def get_weather(city: Annotated[str, "The city to look up"]) -> str:
    """Current weather for a city."""
    forecasts = {"paris": "sunny, 21°C", "oslo": "snow, -3°C"}
    return forecasts.get(city.lower(), "cloudy, 15°C")


def offline_model() -> ScriptedChatClient:
    """A model that asks for the weather tool once, then answers."""
    return ScriptedChatClient(
        [
            ChatResponse(
                messages=[
                    Message(
                        "assistant",
                        [FunctionCallContent("call_1", "get_weather", '{"city": "Paris"}')],
                    )
                ],
                finish_reason="tool_calls",
            ),
            "It is sunny and 21°C in Paris: a good day for a walk along the Seine.",
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
        "You are a concise travel assistant. Use the weather tool before answering.",
        name="travel",
        tools=[get_weather],
    )
    response = await agent.run("Should I walk around Paris today?")
    for message in response.messages:
        for content in message.contents:
            if isinstance(content, FunctionCallContent):
                print(f"[tool call] {content.name}({content.arguments})")
    print(response.text)


if __name__ == "__main__":
    anyio.run(main)
