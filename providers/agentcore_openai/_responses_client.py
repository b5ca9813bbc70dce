"""``OpenAIResponsesClient``: the Responses API (``POST /v1/responses``) and its hosted tools."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any, Literal, cast

import openai
from openai.types.responses import Response
from typing_extensions import Self, TypeVar

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
from agentcore.adapters import (
    DEFAULT_MAX_EVENT_SIZE,
    GetResponseResult,
    get_response_method,
    option_keys,
    response_update,
    warn_unknown_options,
)
from agentcore.errors import TransientError
from agentcore_openai._errors import PROVIDER, body_error, map_error, rate_limit_info
from agentcore_openai._responses_items import parse_response
from agentcore_openai._responses_request import build_responses_request
from agentcore_openai._responses_stream import EventReader, parse_event
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


_OPTION_KEYS = option_keys(OpenAIResponsesOptions)
"""The keys this adapter reads: any other gets a warning (a misspelling would vanish)."""


class OpenAIResponsesClient:
    """A chat client for OpenAI's Responses API, with its hosted tools.

    Pass an ``openai.AsyncOpenAI`` as ``client``, or ``api_key`` / ``base_url``
    (the key falls back to ``OPENAI_API_KEY``). A client built here has the
    SDK's own retries turned off: retrying is agentcore's retry middleware's job.
    A stored response's id comes back as ``ChatResponse.conversation_id``.

    ``stateless=True`` keeps nothing on the service: every request says
    ``store: false`` and carries the whole history (reasoning travels encrypted),
    and ``conversation_id`` is refused. Servers that implement the Responses API
    without storage need it. ``read_timeout``, ``max_event_size`` and the lifecycle
    are as for :class:`~agentcore_openai.OpenAIChatClient`.
    """

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        client: openai.AsyncOpenAI | None = None,
        stateless: bool = False,
        read_timeout: float | None = None,
        max_event_size: int = DEFAULT_MAX_EVENT_SIZE,
    ) -> None:
        if not model:
            raise ValueError("OpenAIResponsesClient needs a model name, e.g. 'gpt-4.1-mini'")
        self.model = model
        self.stateless = stateless
        self.max_event_size = max_event_size
        self._owned = open_client(
            "OpenAIResponsesClient",
            client,
            api_key=api_key,
            base_url=base_url,
            read_timeout=read_timeout,
        )
        self._request_options = request_options(read_timeout)
        self.client: openai.AsyncOpenAI = self._owned.client

    def _options(
        self, options: OpenAIResponsesOptions[Any] | Mapping[str, Any] | None
    ) -> Mapping[str, Any] | None:
        """``options``, checked, with ``store: false`` when the client is stateless."""
        if options:
            warn_unknown_options(
                "OpenAIResponsesClient",
                options,
                _OPTION_KEYS,
                options_type="OpenAIResponsesOptions",
            )
        if not self.stateless:
            return options
        if (options or {}).get("conversation_id") is not None:
            raise ValueError(
                "OpenAIResponsesClient(stateless=True) stores nothing on the service, so "
                "options['conversation_id'] cannot continue a stored response; send the "
                "whole history instead (an Agent does when the client returns no conversation id)"
            )
        if (options or {}).get("store"):
            raise ValueError(
                "OpenAIResponsesClient(stateless=True) cannot send store=True; build the "
                "client with stateless=False to keep responses on the service"
            )
        return {**(options or {}), "store": False}

    @get_response_method
    def get_response(
        self,
        messages: Sequence[Message],
        *,
        options: OpenAIResponsesOptions[Any] | Mapping[str, Any] | None = None,
        stream: bool = False,
    ) -> GetResponseResult:
        """Send ``messages``; a whole response, or a stream of updates when ``stream``.

        Content or options the API cannot take raise ``ValueError`` here, before
        any request.
        """
        options = self._options(options)
        params = build_responses_request(messages, options, self.model)
        store = _stored(options)
        if stream:
            return ResponseStream(self._stream(params, store), finalizer=ChatResponse.from_updates)
        return self._get(params, store)

    async def _get(self, params: dict[str, Any], store: bool) -> ChatResponse[Any]:
        create = self.client.responses.with_raw_response.create
        try:
            raw = await create(stream=False, **params, **self._request_options)
        except openai.APIError as exc:
            raise map_error(exc) from exc
        body = json_object(raw.http_response.content, "response body")
        return _response(body, store, rate_limit_info(raw.headers))

    async def _stream(
        self, params: dict[str, Any], store: bool
    ) -> AsyncIterator[ChatResponseUpdate]:
        create = self.client.responses.with_streaming_response.create
        try:
            async with create(stream=True, **params, **self._request_options) as raw:
                rate_limit = rate_limit_info(raw.headers)
                response = raw.http_response
                if is_json(response):  # a server that ignored "stream": a whole answer
                    body = await read_body(response, "response body")
                    yield response_update(_response(body, store, rate_limit))
                    return
                reader = EventReader(store=store, rate_limit=rate_limit)
                events = server_sent_events(response, max_event_size=self.max_event_size)
                async with contextlib.aclosing(events):
                    async for _, data in events:
                        payload = json_object(data, "stream event")
                        try:
                            event = parse_event(payload)
                            update = reader.read(event) if event is not None else None
                        except READ_ERRORS as exc:
                            what = f"{payload.get('type') or 'stream'} event {data[:200]!r}"
                            raise malformed(what, repr(exc)) from exc
                        if update is not None:
                            yield update
                        if reader.done:
                            break
                    await drain(events)
                if not reader.done:
                    raise TransientError(
                        "the OpenAI stream ended without response.completed (or another "
                        "terminal event): the answer is incomplete",
                        provider=PROVIDER,
                    )
        except openai.APIError as exc:
            raise map_error(exc) from exc

    async def count_tokens(
        self,
        messages: Sequence[Message],
        *,
        options: OpenAIResponsesOptions[Any] | Mapping[str, Any] | None = None,
    ) -> int:
        """The input tokens this request would use (``POST /v1/responses/input_tokens``)."""
        params = build_responses_request(messages, self._options(options), self.model)
        counted = {key: params[key] for key in _COUNT_KEYS if key in params}
        try:
            result = await self.client.responses.input_tokens.count(
                **counted, **self._request_options
            )
        except openai.APIError as exc:
            raise map_error(exc) from exc
        except json.JSONDecodeError as exc:
            raise malformed("input token count", f"not JSON ({exc})") from exc
        tokens = getattr(result, "input_tokens", None)
        if isinstance(tokens, bool) or not isinstance(tokens, int):
            raise malformed("input token count", f"input_tokens is {tokens!r}, not a number")
        return tokens

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
        """Close the SDK client if this adapter created it (a given one stays open)."""
        await self._owned.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


def _response(
    body: dict[str, Any], store: bool, rate_limit: dict[str, Any] | None
) -> ChatResponse[None]:
    """A whole ``response`` body as a response; a malformed one is a typed error
    (one without ``output`` among them: it holds no answer, not an empty one)."""
    error = body.get("error")
    if isinstance(error, Mapping) and "output" not in body:
        raise body_error(cast("Mapping[str, Any]", error))
    if body.get("output") is None:
        raise malformed(
            "response body", "it has no 'output' (the list of output items), so it holds no answer"
        )
    try:
        return parse_response(read_model(Response, body), store=store, rate_limit=rate_limit)
    except READ_ERRORS as exc:
        raise malformed("response body", repr(exc)) from exc
