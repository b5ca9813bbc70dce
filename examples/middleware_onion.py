"""The middleware onion: agent, chat and function middleware around one run, offline.

Run it with ``python examples/middleware_onion.py``. A scripted model asks for a
tool once and then answers, so every layer has something to wrap; the script prints
each layer as control passes in and out, then shows a short-circuit, a
termination and a streaming transform. See docs/middleware.md.
"""

from __future__ import annotations

import anyio
import attrs

from agentcore import (
    Agent,
    AgentContext,
    ChatContext,
    ChatResponse,
    ChatResponseUpdate,
    FunctionCallContent,
    FunctionInvocationContext,
    FunctionResultContent,
    Message,
    MiddlewareTermination,
    ResponseStream,
    TextContent,
    tool,
)
from agentcore.middleware import CallNext
from agentcore.testing import ScriptedChatClient


@tool
def convert(amount: float, rate: float) -> float:
    """Convert an amount of money at an exchange rate."""
    return round(amount * rate, 2)


def scripted_model() -> ScriptedChatClient:
    """A model that calls the convert tool, then answers with its result."""
    call = FunctionCallContent("call_1", "convert", '{"amount": 100, "rate": 0.92}')
    return ScriptedChatClient(
        [
            ChatResponse(messages=(Message("assistant", (call,)),), finish_reason="tool_calls"),
            "100 USD is 92.0 EUR.",
        ]
    )


def say(depth: int, text: str) -> None:
    print("  " * depth + text)


async def around_the_run(context: AgentContext, call_next: CallNext) -> None:
    """Agent scope: once per run."""
    say(0, f"agent    > run starts with {context.messages[0].text!r}")
    context.options["temperature"] = 0.0  # this run only
    await call_next()
    say(0, "agent    < run done")


class AroundEachModelCall:
    """Chat scope: around every model call of the tool loop."""

    def __init__(self) -> None:
        self.calls = 0

    async def process(self, context: ChatContext, call_next: CallNext) -> None:
        self.calls += 1
        say(1, f"chat     > model call {self.calls} with {len(context.messages)} message(s)")
        await call_next()
        say(1, f"chat     < model call {self.calls} answered")


async def around_each_tool_call(context: FunctionInvocationContext, call_next: CallNext) -> None:
    """Function scope: around every tool call, with validated arguments."""
    say(2, f"function > {context.function.name}({dict(context.arguments)})")
    await call_next()
    say(2, f"function < {context.function.name} returned {context.result!r}")


async def show_the_onion() -> None:
    print("1. One run through all three scopes")
    agent = Agent(
        scripted_model(),
        tools=[convert],
        middleware=[around_the_run, AroundEachModelCall(), around_each_tool_call],
    )
    response = await agent.run("How much is 100 USD in EUR?")
    print(f"   answer: {response.text}\n")


async def show_a_short_circuit() -> None:
    print("2. A chat middleware answers from its cache: the model is never called")

    async def cache(context: ChatContext, call_next: CallNext) -> None:
        context.result = ChatResponse(messages=(Message("assistant", "cached: 92.0 EUR"),))

    client = ScriptedChatClient([])
    agent = Agent(client, middleware=[around_the_run, cache])
    response = await agent.run("How much is 100 USD in EUR?")
    print(f"   answer: {response.text} (model requests: {len(client.requests)})\n")


async def show_a_termination() -> None:
    print("3. A function middleware terminates: no further model call")

    async def budget(context: FunctionInvocationContext, call_next: CallNext) -> None:
        await call_next()
        raise MiddlewareTermination("budget reached", result=f"{context.result} EUR (final)")

    client = scripted_model()
    agent = Agent(client, tools=[convert], middleware=[budget])
    response = await agent.run("How much is 100 USD in EUR?")
    last = response.messages[-1]
    tool_results = [c.result for c in last.contents if isinstance(c, FunctionResultContent)]
    print(f"   the run ends with the {last.role} result {tool_results}")
    print(f"   model requests: {len(client.requests)}\n")


def shout(update: ChatResponseUpdate) -> ChatResponseUpdate:
    contents = tuple(
        TextContent(c.text.upper()) if isinstance(c, TextContent) else c for c in update.contents
    )
    return attrs.evolve(update, contents=contents)


async def uppercase(context: ChatContext, call_next: CallNext) -> None:
    await call_next()
    if isinstance(context.result, ResponseStream):
        context.result = context.result.map(shout)


async def show_a_streaming_transform() -> None:
    print("4. A chat middleware transforms the stream; the final response agrees")
    agent = Agent(scripted_model(), tools=[convert], middleware=[uppercase])
    stream = agent.run("How much is 100 USD in EUR?", stream=True)
    pieces = [update.text async for update in stream if update.text]
    final = await stream.get_final_response()
    print(f"   streamed: {pieces}")
    print(f"   final:    {final.text!r}")
    assert "".join(pieces) == final.text


async def main() -> None:
    await show_the_onion()
    await show_a_short_circuit()
    await show_a_termination()
    await show_a_streaming_transform()


if __name__ == "__main__":
    anyio.run(main)
