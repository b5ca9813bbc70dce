"""Test doubles: ScriptedChatClient replays a script, FunctionChatClient asks a function."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import anyio
import anyio.lowlevel
import pytest

from agentcore import (
    ChatResponse,
    ChatResponseUpdate,
    FunctionCallContent,
    Message,
    TextContent,
    Usage,
    UsageContent,
)
from agentcore.errors import RateLimitedError
from agentcore.testing import (
    ChatRequest,
    FunctionChatClient,
    ScriptedChatClient,
    ScriptExhaustedError,
)

pytestmark = pytest.mark.anyio

HELLO = [Message("user", "hello")]


def _answer(text: str, **fields: Any) -> ChatResponse[Any]:
    return ChatResponse(messages=[Message("assistant", text)], **fields)


# -- ScriptedChatClient -----------------------------------------------------------------------


async def test_scripted_client_answers_in_script_order() -> None:
    client = ScriptedChatClient([_answer("one"), _answer("two")])

    first = await client.get_response(HELLO)
    second = await client.get_response(HELLO)

    assert (first.text, second.text) == ("one", "two")


async def test_scripted_string_is_an_assistant_text_answer() -> None:
    response = await ScriptedChatClient(["hi there"]).get_response(HELLO)

    assert response == ChatResponse(
        messages=[Message("assistant", "hi there")], finish_reason="stop"
    )


async def test_scripted_exception_is_raised_when_awaited() -> None:
    client = ScriptedChatClient([RateLimitedError("slow down", retry_after=2.0)])

    with pytest.raises(RateLimitedError, match="slow down"):
        await client.get_response(HELLO)


async def test_scripted_exception_is_raised_while_streaming() -> None:
    stream = ScriptedChatClient([RateLimitedError("slow down")]).get_response(HELLO, stream=True)

    with pytest.raises(RateLimitedError, match="slow down"):
        await stream


async def test_scripted_updates_are_streamed_as_given() -> None:
    updates = [
        ChatResponseUpdate([TextContent("Hel")], role="assistant"),
        ChatResponseUpdate([TextContent("lo")]),
        ChatResponseUpdate([UsageContent(Usage(output_tokens=2))], finish_reason="stop"),
    ]
    stream = ScriptedChatClient([updates]).get_response(HELLO, stream=True)

    streamed = [update async for update in stream]

    assert streamed == updates
    assert (await stream.get_final_response()).text == "Hello"


async def test_scripted_updates_are_folded_when_not_streaming() -> None:
    updates = [
        ChatResponseUpdate([TextContent("Hel")], role="assistant"),
        ChatResponseUpdate([TextContent("lo")], finish_reason="stop"),
    ]

    response = await ScriptedChatClient([updates]).get_response(HELLO)

    assert response == ChatResponse.from_updates(updates)
    assert response.text == "Hello"


async def test_scripted_response_is_chunked_when_streamed() -> None:
    call = FunctionCallContent("c1", "lookup", '{"city": "Oslo"}')
    response = ChatResponse(
        messages=[Message("assistant", ["Looking it up", call])],
        finish_reason="tool_calls",
        usage=Usage(input_tokens=5, output_tokens=7),
        model="scripted",
    )
    stream = ScriptedChatClient([response]).get_response(HELLO, stream=True)

    streamed = [update async for update in stream]

    assert len(streamed) > 3
    assert await stream.get_final_response() == response


async def test_scripted_client_records_every_request() -> None:
    client = ScriptedChatClient(["a", "b"])

    await client.get_response(HELLO, options={"temperature": 0.2})
    await client.get_response(HELLO, stream=True)

    assert client.requests == [
        ChatRequest(tuple(HELLO), {"temperature": 0.2}, stream=False),
        ChatRequest(tuple(HELLO), {}, stream=True),
    ]


async def test_recorded_messages_do_not_change_with_the_caller_list() -> None:
    client = ScriptedChatClient(["a"])
    messages = [Message("user", "first")]

    await client.get_response(messages)
    messages.append(Message("user", "later"))

    assert client.requests[0].messages == (Message("user", "first"),)


async def test_remaining_counts_unused_entries() -> None:
    client = ScriptedChatClient(["a", "b"])
    await client.get_response(HELLO)

    assert client.remaining == 1


def test_exhausted_script_says_how_many_calls_and_entries() -> None:
    client = ScriptedChatClient([])

    with pytest.raises(ScriptExhaustedError, match="called 1 times but its script has 0 entries"):
        client.get_response(HELLO)


# -- FunctionChatClient -----------------------------------------------------------------------


async def test_function_client_asks_a_sync_function() -> None:
    def respond(messages: Sequence[Message], options: Mapping[str, Any]) -> str:
        return f"{len(messages)} message(s), model={options.get('model')}"

    response = await FunctionChatClient(respond).get_response(HELLO, options={"model": "m"})

    assert response.text == "1 message(s), model=m"


async def test_function_client_awaits_an_async_function() -> None:
    async def respond(messages: Sequence[Message], options: Mapping[str, Any]) -> ChatResponse[Any]:
        await anyio.lowlevel.checkpoint()
        return _answer(messages[-1].text.upper())

    response = await FunctionChatClient(respond).get_response(HELLO)

    assert response.text == "HELLO"


async def test_function_client_streams_the_answer() -> None:
    client = FunctionChatClient(lambda messages, options: "streamed answer")

    stream = client.get_response(HELLO, stream=True)
    pieces = [update.text async for update in stream]

    assert "".join(pieces) == "streamed answer"
    assert (await stream.get_final_response()).text == "streamed answer"


async def test_function_client_streams_updates_it_returns() -> None:
    updates = [ChatResponseUpdate([TextContent("x")], role="assistant")]

    async def respond(
        messages: Sequence[Message], options: Mapping[str, Any]
    ) -> list[ChatResponseUpdate]:
        return updates

    stream = FunctionChatClient(respond).get_response(HELLO, stream=True)

    assert [update async for update in stream] == updates


async def test_function_client_asks_only_when_the_stream_is_consumed() -> None:
    calls: list[int] = []

    def respond(messages: Sequence[Message], options: Mapping[str, Any]) -> str:
        calls.append(len(messages))
        return "ok"

    stream = FunctionChatClient(respond).get_response(HELLO, stream=True)
    assert calls == []

    await stream
    assert calls == [1]


async def test_function_client_error_fails_the_request() -> None:
    def respond(messages: Sequence[Message], options: Mapping[str, Any]) -> str:
        raise RateLimitedError("busy")

    client = FunctionChatClient(respond)

    with pytest.raises(RateLimitedError, match="busy"):
        await client.get_response(HELLO)
    with pytest.raises(RateLimitedError, match="busy"):
        await client.get_response(HELLO, stream=True)


async def test_function_client_records_requests() -> None:
    client = FunctionChatClient(lambda messages, options: "ok")

    await client.get_response(HELLO, options={"seed": 1})

    assert client.requests == [ChatRequest(tuple(HELLO), {"seed": 1}, stream=False)]
