"""Streaming through middleware: transforms, observers of each update, and the final fold."""

from __future__ import annotations

import attrs
import pytest

from agentcore import (
    Agent,
    AgentContext,
    AgentResponseUpdate,
    ChatContext,
    ChatResponse,
    ChatResponseUpdate,
    Message,
    ResponseStream,
    TextContent,
    tool,
)
from agentcore.middleware import CallNext, Middleware
from agentcore.testing import ScriptedChatClient

from .harness import one_call, run_agent, text

pytestmark = pytest.mark.anyio


@tool
def lookup(key: str) -> str:
    """Look a key up."""
    return f"value of {key}"


def upper_update(update: ChatResponseUpdate) -> ChatResponseUpdate:
    return attrs.evolve(
        update,
        contents=tuple(
            TextContent(c.text.upper()) if isinstance(c, TextContent) else c
            for c in update.contents
        ),
    )


def upper_response(response: ChatResponse[object]) -> ChatResponse[object]:
    messages = tuple(
        attrs.evolve(
            m,
            contents=tuple(
                TextContent(c.text.upper()) if isinstance(c, TextContent) else c for c in m.contents
            ),
        )
        for m in response.messages
    )
    return attrs.evolve(response, messages=messages)


async def uppercase(context: ChatContext, call_next: CallNext) -> None:
    await call_next()
    if isinstance(context.result, ResponseStream):
        context.result = context.result.map(upper_update)
    elif context.result is not None:
        context.result = upper_response(context.result)


def suffix(tag: str) -> Middleware:
    def add_tag(update: ChatResponseUpdate) -> ChatResponseUpdate:
        return attrs.evolve(
            update,
            contents=tuple(
                TextContent(c.text + tag) if isinstance(c, TextContent) and c.text else c
                for c in update.contents
            ),
        )

    async def tagging(context: ChatContext, call_next: CallNext) -> None:
        await call_next()
        assert isinstance(context.result, ResponseStream)
        context.result = context.result.map(add_tag)

    return tagging


async def test_chat_context_result_is_a_response_stream_in_a_streaming_run() -> None:
    kinds: list[type] = []

    async def inspect_result(context: ChatContext, call_next: CallNext) -> None:
        await call_next()
        kinds.append(type(context.result))

    agent = Agent(ScriptedChatClient([text("hi")]), middleware=[inspect_result])
    await run_agent(agent, stream=True)

    assert kinds == [ResponseStream]


async def test_a_transform_and_an_observer_of_each_update_agree_with_the_final_response() -> None:
    observed: list[str] = []

    async def watch(context: ChatContext, call_next: CallNext) -> None:
        await call_next()
        assert isinstance(context.result, ResponseStream)

        def record(update: ChatResponseUpdate) -> ChatResponseUpdate:
            observed.append(update.text)
            return update

        context.result = context.result.map(record)

    client = ScriptedChatClient([text("hello world")])
    agent = Agent(client, middleware=[watch, uppercase])  # watch is outside: sees the result
    response, updates = await run_agent(agent, stream=True)

    streamed = "".join(u.text for u in updates)
    assert streamed == "HELLO WORLD"
    assert "".join(observed) == streamed
    assert response.text == streamed


async def test_transforms_apply_to_every_model_call_of_the_loop() -> None:
    client = ScriptedChatClient([one_call("lookup", '{"key": "k"}'), text("it is v")])
    agent = Agent(client, tools=[lookup], middleware=[uppercase])
    response, updates = await run_agent(agent, stream=True)

    assert "".join(u.text for u in updates) == "IT IS V"
    assert response.text == "IT IS V"
    # The function call passed through the transform untouched and still ran.
    assert [m.role for m in response.messages] == ["assistant", "tool", "assistant"]


async def test_three_stacked_transforms_apply_inner_first_and_the_fold_matches() -> None:
    client = ScriptedChatClient([text("hello world")])
    agent = Agent(client, middleware=[suffix("1"), suffix("2"), suffix("3")])
    response, updates = await run_agent(agent, stream=True)

    pieces = [u.text for u in updates if u.text]
    assert pieces == ["hell321", "o wo321", "rld321"]
    assert response.text == "".join(pieces)


async def test_a_transform_that_drops_updates_drops_them_from_the_final_response() -> None:
    async def censor(context: ChatContext, call_next: CallNext) -> None:
        await call_next()
        assert isinstance(context.result, ResponseStream)
        context.result = context.result.map(lambda u: None if u.text == "o wo" else u)

    agent = Agent(ScriptedChatClient([text("hello world")]), middleware=[censor])
    response, updates = await run_agent(agent, stream=True)

    assert [u.text for u in updates if u.text] == ["hell", "rld"]
    assert response.text == "hellrld"


async def test_agent_middleware_can_map_the_agent_update_stream() -> None:
    def shout(update: AgentResponseUpdate) -> AgentResponseUpdate:
        return attrs.evolve(
            update,
            contents=tuple(
                TextContent(c.text.upper()) if isinstance(c, TextContent) else c
                for c in update.contents
            ),
        )

    async def loud(context: AgentContext, call_next: CallNext) -> None:
        await call_next()
        assert isinstance(context.result, ResponseStream)
        context.result = context.result.map(shout)

    client = ScriptedChatClient([one_call("lookup", '{"key": "k"}'), text("it is v")])
    agent = Agent(client, tools=[lookup], middleware=[loud])
    response, updates = await run_agent(agent, stream=True)

    assert "".join(u.text for u in updates) == "IT IS V"
    assert response.text == "IT IS V"
    assert response.messages[-1] == Message("assistant", "IT IS V")


@pytest.mark.parametrize("stream", [False, True])
async def test_one_middleware_gives_the_same_answer_in_both_modes(stream: bool) -> None:
    client = ScriptedChatClient([one_call("lookup", '{"key": "k"}'), text("it is v")])
    agent = Agent(client, tools=[lookup], middleware=[uppercase])
    response, _ = await run_agent(agent, stream=stream)

    assert response.text == "IT IS V"
    assert [m.role for m in response.messages] == ["assistant", "tool", "assistant"]
