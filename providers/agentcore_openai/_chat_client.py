"""``OpenAIChatClient``: the Chat Completions API (``POST /v1/chat/completions``)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, cast, overload

import openai
from openai.types.chat import ChatCompletionChunk
from typing_extensions import TypeVar

from agentcore import ChatOptions, ChatResponse, ChatResponseUpdate, Message, ResponseStream
from agentcore_openai._chat_parse import ChunkReader, parse_completion
from agentcore_openai._chat_request import build_chat_request
from agentcore_openai._errors import map_error, rate_limit_info
from agentcore_openai._sdk import build_client
from agentcore_openai._sse import drain, server_sent_events

if TYPE_CHECKING:
    from openai._legacy_response import LegacyAPIResponse
    from openai.types.chat import ChatCompletion

__all__ = ["OpenAIChatClient", "OpenAIChatOptions"]

ResponseT = TypeVar("ResponseT", default=None)


class OpenAIChatOptions(ChatOptions[ResponseT], total=False):
    """:class:`~agentcore.ChatOptions` plus the Chat Completions keys this adapter reads.

    ``max_tokens`` is sent as ``max_completion_tokens``. ``conversation_id`` is
    refused (Chat Completions keeps no history on the service).
    """

    instructions_role: Literal["system", "developer"] | None
    """Role of the leading instructions message and of system messages (default ``system``)."""
    reasoning_effort: str | None
    """``"minimal"``, ``"low"``, ``"medium"`` or ``"high"`` for reasoning models."""
    service_tier: str | None
    store: bool | None
    prompt_cache_key: str | None
    logprobs: bool | None
    top_logprobs: int | None
    extra_body: Mapping[str, Any] | None
    """Extra JSON fields merged into the request body (for options this adapter lacks)."""
    extra_headers: Mapping[str, str] | None


class OpenAIChatClient:
    """A chat client for OpenAI's Chat Completions API (and compatible servers).

    Pass an ``openai.AsyncOpenAI`` as ``client``, or ``api_key`` / ``base_url``
    (the key falls back to ``OPENAI_API_KEY``). A client built here has the
    SDK's own retries turned off: retrying is agentcore's retry middleware's job.
    Chat Completions has no hosted tools, so this client offers none.
    """

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        client: openai.AsyncOpenAI | None = None,
    ) -> None:
        if not model:
            raise ValueError("OpenAIChatClient needs a model name, e.g. 'gpt-4.1-mini'")
        self.model = model
        self._owns_client = client is None
        self.client = build_client(client, api_key, base_url)

    @overload
    def get_response(
        self,
        messages: Sequence[Message],
        *,
        options: OpenAIChatOptions[Any] | Mapping[str, Any] | None = None,
        stream: Literal[False] = False,
    ) -> Awaitable[ChatResponse[Any]]: ...

    @overload
    def get_response(
        self,
        messages: Sequence[Message],
        *,
        options: OpenAIChatOptions[Any] | Mapping[str, Any] | None = None,
        stream: Literal[True],
    ) -> ResponseStream[ChatResponseUpdate, ChatResponse[Any]]: ...

    def get_response(
        self,
        messages: Sequence[Message],
        *,
        options: OpenAIChatOptions[Any] | Mapping[str, Any] | None = None,
        stream: bool = False,
    ) -> Awaitable[ChatResponse[Any]] | ResponseStream[ChatResponseUpdate, ChatResponse[Any]]:
        """Send ``messages``; a whole response, or a stream of updates when ``stream``.

        Content or options the API cannot take raise ``ValueError`` here, before
        any request. Streamed requests ask for usage, so both modes report it.
        """
        params = build_chat_request(messages, options, self.model)
        if stream:
            return ResponseStream(self._stream(params), finalizer=ChatResponse.from_updates)
        return self._get(params)

    async def _get(self, params: dict[str, Any]) -> ChatResponse[Any]:
        try:
            raw: LegacyAPIResponse[
                ChatCompletion
            ] = await self.client.chat.completions.with_raw_response.create(stream=False, **params)
            completion = raw.parse()
        except openai.APIError as exc:
            raise map_error(exc) from exc
        return parse_completion(completion, rate_limit_info(raw.headers))

    async def _stream(self, params: dict[str, Any]) -> AsyncIterator[ChatResponseUpdate]:
        create = self.client.chat.completions.with_streaming_response.create
        try:
            async with create(stream=True, stream_options={"include_usage": True}, **params) as raw:
                reader = ChunkReader(rate_limit_info(raw.headers))
                async with contextlib.aclosing(server_sent_events(raw.http_response)) as events:
                    async for _, data in events:
                        if data.startswith("[DONE]"):
                            break
                        payload: dict[str, Any] = json.loads(data)
                        error = payload.get("error")
                        if isinstance(error, Mapping):
                            # The service reported an error inside the stream.
                            yield reader.error(cast("Mapping[str, Any]", error))
                            break
                        update = reader.read(ChatCompletionChunk.model_construct(**payload))
                        if update is not None:
                            yield update
                    await drain(events)
        except openai.APIError as exc:
            raise map_error(exc) from exc

    async def aclose(self) -> None:
        """Close the SDK client if this adapter created it."""
        if self._owns_client:
            await self.client.close()

    async def __aenter__(self) -> OpenAIChatClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()
