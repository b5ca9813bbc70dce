"""``OpenAIChatClient``: the Chat Completions API (``POST /v1/chat/completions``)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any, Literal, cast

import openai
from openai.types.chat import ChatCompletion, ChatCompletionChunk
from typing_extensions import Self, TypeVar

from agentcore import ChatOptions, ChatResponse, ChatResponseUpdate, Message, ResponseStream
from agentcore.adapters import (
    DEFAULT_MAX_EVENT_SIZE,
    GetResponseResult,
    get_response_method,
    option_keys,
    response_update,
    warn_unknown_options,
)
from agentcore.errors import TransientError
from agentcore_openai._chat_parse import ChunkReader, parse_completion
from agentcore_openai._chat_request import build_chat_request
from agentcore_openai._errors import PROVIDER, body_error, map_error, rate_limit_info
from agentcore_openai._sdk import open_client, request_options
from agentcore_openai._sse import (
    READ_ERRORS,
    drain,
    is_json,
    json_object,
    malformed,
    read_body,
    read_model,
    server_sent_events,
)

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


_OPTION_KEYS = option_keys(OpenAIChatOptions)
"""The keys this adapter reads: any other gets a warning (a misspelling would vanish)."""


class OpenAIChatClient:
    """A chat client for OpenAI's Chat Completions API (and compatible servers).

    Pass an ``openai.AsyncOpenAI`` as ``client``, or ``api_key`` / ``base_url``
    (the key falls back to ``OPENAI_API_KEY``). A client built here has the
    SDK's own retries turned off: retrying is agentcore's retry middleware's job.
    ``read_timeout`` is how many seconds to wait for the next bytes of an answer
    (default :data:`~agentcore.adapters.DEFAULT_READ_TIMEOUT`, or a given client's
    own timeout); ``max_event_size`` bounds one streamed event, in bytes.
    ``async with`` or :meth:`aclose` closes a client built here, never a given one.
    Chat Completions has no hosted tools, so this client offers none.
    """

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        client: openai.AsyncOpenAI | None = None,
        read_timeout: float | None = None,
        max_event_size: int = DEFAULT_MAX_EVENT_SIZE,
    ) -> None:
        if not model:
            raise ValueError("OpenAIChatClient needs a model name, e.g. 'gpt-4.1-mini'")
        self.model = model
        self.max_event_size = max_event_size
        self._owned = open_client(
            "OpenAIChatClient",
            client,
            api_key=api_key,
            base_url=base_url,
            read_timeout=read_timeout,
        )
        self._request_options = request_options(read_timeout)
        self.client: openai.AsyncOpenAI = self._owned.client

    @get_response_method
    def get_response(
        self,
        messages: Sequence[Message],
        *,
        options: OpenAIChatOptions[Any] | Mapping[str, Any] | None = None,
        stream: bool = False,
    ) -> GetResponseResult:
        """Send ``messages``; a whole response, or a stream of updates when ``stream``.

        Content or options the API cannot take raise ``ValueError`` here, before
        any request. Streamed requests ask for usage, so both modes report it.
        """
        if options:
            warn_unknown_options(
                "OpenAIChatClient", options, _OPTION_KEYS, options_type="OpenAIChatOptions"
            )
        params = build_chat_request(messages, options, self.model)
        if stream:
            return ResponseStream(self._stream(params), finalizer=ChatResponse.from_updates)
        return self._get(params)

    async def _get(self, params: dict[str, Any]) -> ChatResponse[Any]:
        create = self.client.chat.completions.with_raw_response.create
        try:
            raw = await create(stream=False, **params, **self._request_options)
        except openai.APIError as exc:
            raise map_error(exc) from exc
        body = json_object(raw.http_response.content, "chat completion")
        return _completion(body, rate_limit_info(raw.headers))

    async def _stream(self, params: dict[str, Any]) -> AsyncIterator[ChatResponseUpdate]:
        create = self.client.chat.completions.with_streaming_response.create
        usage: dict[str, Any] = {"stream_options": {"include_usage": True}}
        try:
            async with create(stream=True, **usage, **params, **self._request_options) as raw:
                rate_limit = rate_limit_info(raw.headers)
                response = raw.http_response
                if is_json(response):  # a server that ignored "stream": a whole answer
                    body = await read_body(response, "chat completion")
                    yield response_update(_completion(body, rate_limit))
                    return
                reader = ChunkReader(rate_limit)
                events = server_sent_events(response, max_event_size=self.max_event_size)
                ended = errored = False
                async with contextlib.aclosing(events):
                    async for _, data in events:
                        if data.startswith("[DONE]"):
                            ended = True
                            break
                        payload = json_object(data, "stream chunk")
                        error = payload.get("error")
                        if isinstance(error, Mapping):
                            # The service reported an error inside the stream.
                            yield reader.error(cast("Mapping[str, Any]", error))
                            ended = errored = True
                            break
                        try:
                            update = reader.read(read_model(ChatCompletionChunk, payload))
                        except READ_ERRORS as exc:
                            raise malformed(f"stream chunk {data[:200]!r}", repr(exc)) from exc
                        if update is not None:
                            yield update
                    await drain(events)
                if not errored:
                    reader.check_choices(ended=ended)
                if not (ended or reader.finished):
                    raise TransientError(
                        "the OpenAI stream ended without [DONE] or a finish reason: the "
                        "answer is incomplete",
                        provider=PROVIDER,
                    )
        except openai.APIError as exc:
            raise map_error(exc) from exc

    async def aclose(self) -> None:
        """Close the SDK client if this adapter created it (a given one stays open)."""
        await self._owned.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


def _completion(body: dict[str, Any], rate_limit: dict[str, Any] | None) -> ChatResponse[None]:
    """A whole ``chat.completion`` body as a response; a malformed one is a typed error."""
    error = body.get("error")
    if isinstance(error, Mapping) and "choices" not in body:
        raise body_error(cast("Mapping[str, Any]", error))
    try:
        return parse_completion(read_model(ChatCompletion, body), rate_limit)
    except READ_ERRORS as exc:
        raise malformed("chat completion", repr(exc)) from exc
