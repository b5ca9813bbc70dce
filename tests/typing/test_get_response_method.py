# pyright: reportUnnecessaryTypeIgnoreComment=true
"""``agentcore.adapters.get_response_method``: one ``get_response`` written, both overloads
seen by callers, statically (mypy and basedpyright, strict) and at run time.

Lines that must be *rejected* carry ``# type: ignore[...]``: both checkers report the
comment as unused if the error ever stops happening, so the comment proves the rejection
(see ``test_protocol_conformance.py``). pytest runs the same module.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Mapping, Sequence
from typing import Any, TypedDict

import pytest
from typing_extensions import assert_type

from agentcore import (
    ChatResponse,
    ChatResponseUpdate,
    Message,
    ResponseStream,
    SupportsGetResponse,
    TextContent,
)
from agentcore.adapters import GetResponseResult, get_response_method


class EchoOptions(TypedDict, total=False):
    prefix: str


class EchoClient:
    """An adapter that answers with the last message, written the way the guide shows."""

    def __init__(self) -> None:
        self.calls = 0

    @get_response_method
    def get_response(
        self,
        messages: Sequence[Message],
        *,
        options: EchoOptions | None = None,
        stream: bool = False,
    ) -> GetResponseResult:
        self.calls += 1
        text = (options or {}).get("prefix", "") + messages[-1].text
        updates = ResponseStream(_updates(text), finalizer=ChatResponse.from_updates)
        return updates if stream else updates.get_final_response()

    def plain(self) -> str:
        return "an ordinary method next to it"


async def _updates(text: str) -> AsyncIterator[ChatResponseUpdate]:
    for word in text.split(" "):
        yield ChatResponseUpdate(contents=(TextContent(word + " "),), role="assistant")


# -- what callers see -------------------------------------------------------------------------

_any: SupportsGetResponse = EchoClient()
_typed: SupportsGetResponse[EchoOptions] = EchoClient()
_wider: SupportsGetResponse[Mapping[str, int]] = EchoClient()  # type: ignore[assignment]  # must be rejected: its options are EchoOptions


def check_call_types(client: EchoClient, messages: Sequence[Message]) -> None:
    assert_type(
        client.get_response(messages, stream=True),
        ResponseStream[ChatResponseUpdate, ChatResponse[Any]],
    )
    assert_type(client.get_response(messages), Awaitable[ChatResponse[Any]])
    assert_type(client.get_response(messages, stream=False), Awaitable[ChatResponse[Any]])
    assert_type(
        client.get_response(messages, options={"prefix": "> "}, stream=True),
        ResponseStream[ChatResponseUpdate, ChatResponse[Any]],
    )
    client.get_response(messages, options={"prefx": "> "})  # type: ignore[call-overload]  # must be rejected: no such option
    client.get_response(messages, {"prefix": "> "})  # type: ignore[call-overload]  # must be rejected: options is keyword-only
    assert_type(client.plain(), str)


async def check_final_types(client: EchoClient, messages: Sequence[Message]) -> None:
    assert_type(await client.get_response(messages), ChatResponse[Any])
    assert_type(
        await client.get_response(messages, stream=True).get_final_response(),
        ChatResponse[Any],
    )


# -- implementations the decorator refuses ------------------------------------------------------


def no_stream_parameter(client: Any, messages: Sequence[Message]) -> GetResponseResult:
    raise NotImplementedError


def wrong_return(
    client: Any,
    messages: Sequence[Message],
    *,
    options: EchoOptions | None = None,
    stream: bool = False,
) -> str:
    return ""


_no_stream: object = get_response_method(no_stream_parameter)  # type: ignore[arg-type]  # must be rejected: no stream parameter
_wrong_return: object = get_response_method(wrong_return)  # type: ignore[arg-type]  # must be rejected: returns a str


# -- run time -------------------------------------------------------------------------------------


def test_the_decorated_method_is_the_function_written() -> None:
    # Nothing wraps the implementation, so a call costs what the plain method did.
    method = EchoClient.__dict__["get_response"]
    assert type(method) is type(EchoClient.plain)
    assert method.__name__ == "get_response"
    client = EchoClient()
    assert client.get_response.__self__ is client  # type: ignore[attr-defined]  # bound at run time; typed as the bound method


def test_a_decorated_client_passes_isinstance() -> None:
    assert isinstance(EchoClient(), SupportsGetResponse)


@pytest.mark.anyio
async def test_both_modes_answer(anyio_backend: str) -> None:
    client = EchoClient()
    messages = [Message("user", "hi there")]

    whole = await client.get_response(messages, options={"prefix": "> "})
    stream = client.get_response(messages, stream=True)
    updates = [update async for update in stream]

    assert whole.text == "> hi there "
    assert (await stream.get_final_response()).text == "hi there "
    assert len(updates) == 2
    assert client.calls == 2


def test_an_async_def_is_refused_where_it_is_decorated() -> None:
    async def get_response(
        self: Any,
        messages: Sequence[Message],
        *,
        options: EchoOptions | None = None,
        stream: bool = False,
    ) -> ChatResponse[Any]:
        return ChatResponse()

    with pytest.raises(TypeError, match=r"must be a plain def .* an async def cannot return"):
        get_response_method(get_response)
