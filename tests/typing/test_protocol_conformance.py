# pyright: reportUnnecessaryTypeIgnoreComment=true
"""Static protocol conformance, verified by mypy and basedpyright in strict mode.

Each ``_name: Protocol = value`` line is a check the type checkers run. A line
that must be *rejected* carries ``# type: ignore[assignment]``: mypy
(``warn_unused_ignores``) and basedpyright (``reportUnnecessaryTypeIgnoreComment``,
enabled for this file above) both report that comment as unused if the error
it silences ever stops happening, so the ignore proves the rejection. Pyright
honours ``# type: ignore`` comments, so one comment serves both checkers.

The module is also collected by pytest: the runtime tests check that the same
objects answer ``isinstance`` the way the static checks say.
"""

from __future__ import annotations

from collections.abc import Awaitable, Mapping, Sequence
from typing import Any, Literal, overload

import pytest
from typing_extensions import assert_type

from agentcore import (
    ChatResponse,
    ChatResponseUpdate,
    Embedding,
    EmbeddingGenerationOptions,
    GeneratedEmbeddings,
    Message,
    ResponseStream,
    SupportsGetEmbeddings,
    SupportsGetResponse,
    SupportsWebSearchTool,
    WebSearchTool,
)
from agentcore.testing import FunctionChatClient, ScriptedChatClient

# -- chat clients -----------------------------------------------------------------------------


class DuckClient:
    """Unrelated to every agentcore class; it only has the right ``get_response`` shape."""

    @overload
    def get_response(
        self,
        messages: Sequence[Message],
        *,
        options: Mapping[str, Any] | None = None,
        stream: Literal[False] = False,
    ) -> Awaitable[ChatResponse[Any]]: ...

    @overload
    def get_response(
        self,
        messages: Sequence[Message],
        *,
        options: Mapping[str, Any] | None = None,
        stream: Literal[True],
    ) -> ResponseStream[ChatResponseUpdate, ChatResponse[Any]]: ...

    def get_response(
        self,
        messages: Sequence[Message],
        *,
        options: Mapping[str, Any] | None = None,
        stream: bool = False,
    ) -> Awaitable[ChatResponse[Any]] | ResponseStream[ChatResponseUpdate, ChatResponse[Any]]:
        inner = ScriptedChatClient(["duck"])
        if stream:
            return inner.get_response(messages, stream=True)
        return inner.get_response(messages)


class AsyncDefClient:
    """Wrong shape: an ``async def`` cannot hand back a stream before awaiting."""

    async def get_response(
        self,
        messages: Sequence[Message],
        *,
        options: Mapping[str, Any] | None = None,
        stream: bool = False,
    ) -> ChatResponse[Any]:
        return ChatResponse()


class NoStreamClient:
    """Wrong shape: no ``stream`` parameter."""

    async def get_response(self, messages: Sequence[Message]) -> ChatResponse[Any]:
        return ChatResponse()


_scripted: SupportsGetResponse = ScriptedChatClient([])
_function: SupportsGetResponse = FunctionChatClient(lambda messages, options: "ok")
_duck: SupportsGetResponse = DuckClient()
_async_def: SupportsGetResponse = AsyncDefClient()  # type: ignore[assignment]  # must be rejected: the checker proves it
_no_stream: SupportsGetResponse = NoStreamClient()  # type: ignore[assignment]  # must be rejected: the checker proves it


def check_inferred_types(client: SupportsGetResponse, messages: Sequence[Message]) -> None:
    assert_type(
        client.get_response(messages, stream=True),
        ResponseStream[ChatResponseUpdate, ChatResponse[Any]],
    )
    assert_type(client.get_response(messages), Awaitable[ChatResponse[Any]])
    assert_type(client.get_response(messages, stream=False), Awaitable[ChatResponse[Any]])


def check_inferred_types_of_the_double(messages: Sequence[Message]) -> None:
    client = ScriptedChatClient(["a", "b"])
    assert_type(
        client.get_response(messages, stream=True),
        ResponseStream[ChatResponseUpdate, ChatResponse[Any]],
    )
    assert_type(client.get_response(messages), Awaitable[ChatResponse[Any]])


async def check_final_of_a_stream(client: SupportsGetResponse, messages: Sequence[Message]) -> None:
    stream = client.get_response(messages, stream=True)
    async for update in stream:
        assert_type(update, ChatResponseUpdate)
    assert_type(await stream.get_final_response(), ChatResponse[Any])
    assert_type(await client.get_response(messages), ChatResponse[Any])


# -- embedding clients --------------------------------------------------------------------------


class FakeEmbeddingClient:
    """A small embedding client: one dimension, the length of each text."""

    def __init__(self) -> None:
        self.additional_properties: dict[str, Any] = {}

    async def get_embeddings(
        self,
        values: Sequence[str],
        *,
        options: EmbeddingGenerationOptions | None = None,
    ) -> GeneratedEmbeddings[list[float], EmbeddingGenerationOptions]:
        return GeneratedEmbeddings([Embedding([float(len(v))]) for v in values], options=options)


class IntInputEmbeddingClient:
    """Embeds token ids, not strings: not a ``SupportsGetEmbeddings[str, ...]``."""

    def __init__(self) -> None:
        self.additional_properties: dict[str, Any] = {}

    async def get_embeddings(
        self,
        values: Sequence[int],
        *,
        options: EmbeddingGenerationOptions | None = None,
    ) -> GeneratedEmbeddings[list[float], EmbeddingGenerationOptions]:
        return GeneratedEmbeddings([Embedding([float(v)]) for v in values])


_embeddings: SupportsGetEmbeddings = FakeEmbeddingClient()
_explicit: SupportsGetEmbeddings[str, list[float], EmbeddingGenerationOptions] = (
    FakeEmbeddingClient()
)
_token_ids: SupportsGetEmbeddings[int, list[float], EmbeddingGenerationOptions] = (
    IntInputEmbeddingClient()
)
_wrong_input: SupportsGetEmbeddings[str, list[float], EmbeddingGenerationOptions] = (
    IntInputEmbeddingClient()  # type: ignore[assignment]  # must be rejected: the checker proves it
)


async def check_embedding_types(client: SupportsGetEmbeddings) -> None:
    result = await client.get_embeddings(["a"])
    assert_type(result, GeneratedEmbeddings[list[float], EmbeddingGenerationOptions])
    assert_type(result[0].vector, list[float])


# -- capability protocols -------------------------------------------------------------------------


class SearchingClient(DuckClient):
    """A chat client whose service can also search the web."""

    @staticmethod
    def get_web_search_tool(**kwargs: Any) -> WebSearchTool:
        return WebSearchTool(options=kwargs)


class WrongToolClient(DuckClient):
    """Its factory returns a plain dict instead of the typed hosted tool."""

    @staticmethod
    def get_web_search_tool(**kwargs: Any) -> dict[str, Any]:
        return {"type": "web_search"}


_searching: SupportsWebSearchTool = SearchingClient()
_searching_chat: SupportsGetResponse = SearchingClient()
_not_searching: SupportsWebSearchTool = DuckClient()  # type: ignore[assignment]  # must be rejected: the checker proves it
_wrong_tool: SupportsWebSearchTool = WrongToolClient()  # type: ignore[assignment]  # must be rejected: the checker proves it


# -- runtime checks ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "client", [_scripted, _function, _duck, _searching], ids=lambda c: type(c).__name__
)
def test_statically_conforming_clients_pass_isinstance(client: object) -> None:
    assert isinstance(client, SupportsGetResponse)


def test_web_search_capability_is_seen_at_run_time() -> None:
    assert isinstance(SearchingClient(), SupportsWebSearchTool)
    assert not isinstance(DuckClient(), SupportsWebSearchTool)


def test_fake_embedding_client_passes_isinstance() -> None:
    assert isinstance(FakeEmbeddingClient(), SupportsGetEmbeddings)


@pytest.mark.anyio
async def test_fake_embedding_client_embeds_in_input_order() -> None:
    result = await FakeEmbeddingClient().get_embeddings(["a", "abc"], options={"dimensions": 1})

    assert [e.vector for e in result] == [[1.0], [3.0]]
    assert result.options == {"dimensions": 1}


@pytest.mark.anyio
async def test_duck_client_answers_in_both_modes() -> None:
    client: SupportsGetResponse = DuckClient()
    messages = [Message("user", "hi")]

    assert (await client.get_response(messages)).text == "duck"
    assert (await client.get_response(messages, stream=True)).text == "duck"
