"""``OpenAIResponsesClient``: the Responses API (``POST /v1/responses``) and its hosted tools."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, overload

import openai
from typing_extensions import TypeVar

from agentcore import (
    ChatOptions,
    ChatResponse,
    ChatResponseUpdate,
    CodeInterpreterTool,
    FileSearchTool,
    ImageGenerationTool,
    MCPTool,
    Message,
    ResponseStream,
    ShellTool,
    WebSearchTool,
)
from agentcore_openai._errors import map_error, rate_limit_info
from agentcore_openai._responses_items import parse_response
from agentcore_openai._responses_request import build_responses_request
from agentcore_openai._responses_stream import EventReader, parse_event
from agentcore_openai._sdk import build_client
from agentcore_openai._sse import drain, server_sent_events

if TYPE_CHECKING:
    from openai._legacy_response import LegacyAPIResponse
    from openai.types.responses import Response

__all__ = ["OpenAIResponsesClient", "OpenAIResponsesOptions"]

ResponseT = TypeVar("ResponseT", default=None)

# What ``responses.input_tokens.count`` accepts of a request.
_COUNT_KEYS = (
    "model",
    "input",
    "instructions",
    "tools",
    "tool_choice",
    "parallel_tool_calls",
    "previous_response_id",
    "reasoning",
    "text",
    "truncation",
    "extra_body",
    "extra_headers",
)


class OpenAIResponsesOptions(ChatOptions[ResponseT], total=False):
    """:class:`~agentcore.ChatOptions` plus the Responses API keys this adapter reads.

    ``instructions`` go in the ``instructions`` parameter; ``max_tokens`` is sent
    as ``max_output_tokens``; ``conversation_id`` as ``previous_response_id``.
    ``stop``, ``seed``, ``frequency_penalty`` and ``presence_penalty`` do not
    exist in this API and are not sent.
    """

    store: bool | None
    """Keep the response on the service (the API's default is on). With ``False``
    the adapter asks for encrypted reasoning so reasoning still round-trips."""
    reasoning: Mapping[str, Any] | None
    """E.g. ``{"effort": "low", "summary": "auto"}`` for reasoning models."""
    include: Sequence[str] | None
    truncation: Literal["auto", "disabled"] | None
    service_tier: str | None
    prompt_cache_key: str | None
    max_tool_calls: int | None
    top_logprobs: int | None
    extra_body: Mapping[str, Any] | None
    """Extra JSON fields merged into the request body (for options this adapter lacks)."""
    extra_headers: Mapping[str, str] | None


def _stored(options: Mapping[str, Any] | None) -> bool:
    return (options or {}).get("store") is not False


class OpenAIResponsesClient:
    """A chat client for OpenAI's Responses API, with its hosted tools.

    Pass an ``openai.AsyncOpenAI`` as ``client``, or ``api_key`` / ``base_url``
    (the key falls back to ``OPENAI_API_KEY``). A client built here has the
    SDK's own retries turned off: retrying is agentcore's retry middleware's job.
    A stored response's id comes back as ``ChatResponse.conversation_id``.
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
            raise ValueError("OpenAIResponsesClient needs a model name, e.g. 'gpt-4.1-mini'")
        self.model = model
        self._owns_client = client is None
        self.client = build_client(client, api_key, base_url)

    @overload
    def get_response(
        self,
        messages: Sequence[Message],
        *,
        options: OpenAIResponsesOptions[Any] | Mapping[str, Any] | None = None,
        stream: Literal[False] = False,
    ) -> Awaitable[ChatResponse[Any]]: ...

    @overload
    def get_response(
        self,
        messages: Sequence[Message],
        *,
        options: OpenAIResponsesOptions[Any] | Mapping[str, Any] | None = None,
        stream: Literal[True],
    ) -> ResponseStream[ChatResponseUpdate, ChatResponse[Any]]: ...

    def get_response(
        self,
        messages: Sequence[Message],
        *,
        options: OpenAIResponsesOptions[Any] | Mapping[str, Any] | None = None,
        stream: bool = False,
    ) -> Awaitable[ChatResponse[Any]] | ResponseStream[ChatResponseUpdate, ChatResponse[Any]]:
        """Send ``messages``; a whole response, or a stream of updates when ``stream``.

        Content or options the API cannot take raise ``ValueError`` here, before
        any request.
        """
        params = build_responses_request(messages, options, self.model)
        store = _stored(options)
        if stream:
            return ResponseStream(self._stream(params, store), finalizer=ChatResponse.from_updates)
        return self._get(params, store)

    async def _get(self, params: dict[str, Any], store: bool) -> ChatResponse[Any]:
        try:
            raw: LegacyAPIResponse[Response] = await self.client.responses.with_raw_response.create(
                stream=False, **params
            )
            response = raw.parse()
        except openai.APIError as exc:
            raise map_error(exc) from exc
        return parse_response(response, store=store, rate_limit=rate_limit_info(raw.headers))

    async def _stream(
        self, params: dict[str, Any], store: bool
    ) -> AsyncIterator[ChatResponseUpdate]:
        create = self.client.responses.with_streaming_response.create
        try:
            async with create(stream=True, **params) as raw:
                reader = EventReader(store=store, rate_limit=rate_limit_info(raw.headers))
                async with contextlib.aclosing(server_sent_events(raw.http_response)) as events:
                    async for _, data in events:
                        event = parse_event(json.loads(data))
                        update = reader.read(event) if event is not None else None
                        if update is not None:
                            yield update
                        if reader.done:
                            break
                    await drain(events)
        except openai.APIError as exc:
            raise map_error(exc) from exc

    async def count_tokens(
        self,
        messages: Sequence[Message],
        *,
        options: OpenAIResponsesOptions[Any] | Mapping[str, Any] | None = None,
    ) -> int:
        """The input tokens this request would use (``POST /v1/responses/input_tokens``)."""
        params = build_responses_request(messages, options, self.model)
        counted = {key: params[key] for key in _COUNT_KEYS if key in params}
        try:
            result = await self.client.responses.input_tokens.count(**counted)
        except openai.APIError as exc:
            raise map_error(exc) from exc
        return result.input_tokens

    @staticmethod
    def get_web_search_tool(**kwargs: Any) -> WebSearchTool:
        """Hosted web search; ``kwargs`` (``search_context_size``, ``user_location``,
        ``filters``, ...) are sent with the ``web_search`` tool."""
        return WebSearchTool(options=kwargs)

    @staticmethod
    def get_file_search_tool(
        *, vector_store_ids: Sequence[str] | None = None, **kwargs: Any
    ) -> FileSearchTool:
        """Search over your vector stores; ``vector_store_ids`` is required.

        Other ``kwargs`` (``max_num_results``, ``filters``, ``ranking_options``)
        are sent with the ``file_search`` tool.
        """
        if not vector_store_ids or isinstance(vector_store_ids, str):
            raise ValueError(
                "get_file_search_tool needs vector_store_ids, a list of vector store ids "
                "such as ['vs_abc123']"
            )
        return FileSearchTool(vector_store_ids=tuple(vector_store_ids), options=kwargs)

    @staticmethod
    def get_code_interpreter_tool(**kwargs: Any) -> CodeInterpreterTool:
        """Python in an OpenAI container; ``file_ids=[...]`` or ``container=...``
        choose what it sees (default: a new automatic container)."""
        return CodeInterpreterTool(options=kwargs)

    @staticmethod
    def get_image_generation_tool(**kwargs: Any) -> ImageGenerationTool:
        """Image generation; ``kwargs`` (``size``, ``quality``, ``output_format``,
        ...) are sent with the ``image_generation`` tool."""
        return ImageGenerationTool(options=kwargs)

    @staticmethod
    def get_mcp_tool(
        *,
        name: str | None = None,
        url: str | None = None,
        allowed_tools: Sequence[str] | None = None,
        headers: Mapping[str, str] | None = None,
        approval_mode: Literal["always_require", "never_require"] | None = None,
        **kwargs: Any,
    ) -> MCPTool:
        """A remote MCP server the service calls itself.

        ``name`` (sent as ``server_label``) and ``url`` are required;
        ``approval_mode`` maps to ``require_approval`` (``always`` / ``never``).
        """
        if not name or not url:
            raise ValueError(
                "get_mcp_tool needs name= (the server label) and url= (the MCP server URL)"
            )
        return MCPTool(
            name=name,
            url=url,
            allowed_tools=tuple(allowed_tools) if allowed_tools is not None else None,
            headers=headers,
            approval_mode=approval_mode,
            options=kwargs,
        )

    @staticmethod
    def get_shell_tool(**kwargs: Any) -> ShellTool:
        """A shell in an OpenAI-hosted container (``environment`` defaults to
        ``{"type": "container_auto"}``); local environments are refused."""
        environment = kwargs.get("environment")
        if isinstance(environment, Mapping) and environment.get("type") == "local":  # pyright: ignore[reportUnknownMemberType]  # user JSON
            raise ValueError(
                "get_shell_tool: a local shell environment needs the caller to run commands, "
                "which agentcore does not do; use {'type': 'container_auto'}"
            )
        return ShellTool(options=kwargs)

    async def aclose(self) -> None:
        """Close the SDK client if this adapter created it."""
        if self._owns_client:
            await self.client.close()

    async def __aenter__(self) -> OpenAIResponsesClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()
