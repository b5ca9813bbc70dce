"""Structured output: the answer parsed into your own type, offline by default.

``options={"response_format": Recipe}`` sends Recipe's JSON schema to the model and
gives ``response.value`` as a ``Recipe`` (typed ``Recipe | None`` for mypy and pyright:
a paused run has no answer to parse), in streaming runs too. An answer that does not
fit raises ``StructuredOutputError`` with the raw text. With ``OPENAI_API_KEY`` or
``ANTHROPIC_API_KEY`` set, a real model answers instead.
"""

from __future__ import annotations

import json
import os
from typing import Any

import anyio
import attrs

from agentcore import Agent
from agentcore.errors import StructuredOutputError
from agentcore.testing import ScriptedChatClient


@attrs.frozen
class Ingredient:
    name: str
    grams: int


@attrs.frozen
class Recipe:
    title: str
    servings: int
    ingredients: list[Ingredient]
    steps: list[str]


PANCAKES = {
    "title": "Pancakes",
    "servings": 4,
    "ingredients": [
        {"name": "flour", "grams": 250},
        {"name": "milk", "grams": 500},
        {"name": "eggs", "grams": 120},
    ],
    "steps": ["Whisk everything together.", "Rest 20 minutes.", "Fry thin pancakes."],
}


def offline_model() -> ScriptedChatClient:
    """Answers once as JSON, once streamed, and once with prose that does not fit."""
    answer = json.dumps(PANCAKES)
    return ScriptedChatClient([answer, answer, "Pancakes are easy: mix, rest and fry!"])


def make_client() -> Any:
    if os.environ.get("OPENAI_API_KEY"):
        from agentcore_openai import OpenAIChatClient

        return OpenAIChatClient(os.environ.get("OPENAI_MODEL", "gpt-4o-mini"))
    if os.environ.get("ANTHROPIC_API_KEY"):
        from agentcore_anthropic import AnthropicChatClient

        return AnthropicChatClient(os.environ.get("ANTHROPIC_MODEL", "claude-sonnet-4-5"))
    return offline_model()


async def main() -> None:
    agent = Agent(make_client(), "You are a cook. Answer with a recipe.")

    response = await agent.run("Pancakes for four?", options={"response_format": Recipe})
    recipe = response.value  # a Recipe | None for the type checker: None had the run
    assert recipe is not None  # paused for an approval or stopped on tool calls
    print(f"{recipe.title} for {recipe.servings}:")
    for ingredient in recipe.ingredients:
        print(f"  {ingredient.grams:>4} g {ingredient.name}")

    stream = agent.run("Same again, streamed.", options={"response_format": Recipe}, stream=True)
    pieces = [update.text async for update in stream]
    streamed = (await stream.get_final_response()).value
    assert streamed is not None
    print(
        f"streamed in {len(pieces)} pieces; {len(streamed.steps)} steps, first: {streamed.steps[0]}"
    )

    try:
        third = await agent.run("Tell me about pancakes.", options={"response_format": Recipe})
    except StructuredOutputError as exc:
        print(f"not a recipe ({exc}); the model said: {exc.raw_text!r}")
    else:
        print(f"a recipe again: {third.value.title if third.value else None}")


if __name__ == "__main__":
    anyio.run(main)
