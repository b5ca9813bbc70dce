"""``AnthropicChatClient``: agentcore's chat protocol over Anthropic's Messages API."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Mapping, Sequence
from contextlib import aclosing
from typing import Any, ClassVar, Literal, NoReturn, cast, overload

import anthropic

from agentcore import (
    ChatResponse,
    ChatResponseUpdate,
    CodeInterpreterTool,
    MCPTool,
    Message,
    ResponseStream,
    WebSearchTool,
)
from agentcore_anthropic._errors import map_error, rate_limit_headers
from agentcore_anthropic._options import (
    CODE_EXECUTION_TOOL_TYPE,
    DEFAULT_MAX_TOKENS,
    PROVIDER,
    WEB_SEARCH_TOOL_TYPE,
    AnthropicChatOptions,
)
from agentcore_anthropic._request import AnthropicRequest, build_request
from agentcore_anthropic._response import parse_message
from agentcore_anthropic._stream import StreamParser, iterate_response

__all__ = ["AnthropicChatClient"]


def _raise_mapped(exc: BaseException) -> NoReturn:
    mapped = map_error(exc)
    if mapped is exc:
        raise exc
    raise mapped from exc


class AnthropicChatClient:
    """A chat client for Anthropic's Messages API (``POST /v1/messages``).

    Pass an SDK client (``client=anthropic.AsyncAnthropic(...)``) or let the
    adapter build one from ``api_key`` / ``base_url`` (falling back to the
    ``ANTHROPIC_API_KEY`` environment variable). A client built here has
    ``max_retries=0``: retrying is the job of agentcore's retry middleware.
    ``max_tokens`` is sent when the options do not set it (the API requires it).
    """

    provider: ClassVar[str] = PROVIDER
    """The ``provider`` of the reasoning and hosted-tool contents this client makes."""

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        client: anthropic.AsyncAnthropic | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
    ) -> None:
        if not model:
            raise ValueError("AnthropicChatClient needs a model name, e.g. 'claude-sonnet-4-6'")
        if max_tokens < 1:
            raise ValueError(f"max_tokens must be a positive number of tokens, got {max_tokens}")
        if client is not None and (api_key is not None or base_url is not None):
            raise ValueError(
                "pass either client= or api_key=/base_url= to AnthropicChatClient, not both: "
                "a ready SDK client already has its key and URL"
            )
        self.model = model
        self.max_tokens = max_tokens
        if client is None:
            try:
                client = anthropic.AsyncAnthropic(api_key=api_key, base_url=base_url, max_retries=0)
            except anthropic.CredentialsError as exc:
                _raise_mapped(exc)
        self.client = client

    def __repr__(self) -> str:
        return f"AnthropicChatClient(model={self.model!r})"

    def _request(
        self, messages: Sequence[Message], options: Mapping[str, Any] | None
    ) -> AnthropicRequest:
        return build_request(messages, options or {}, model=self.model, max_tokens=self.max_tokens)

    @overload
    def get_response(
        self,
        messages: Sequence[Message],
        *,
        options: AnthropicChatOptions[Any] | None = None,
        stream: Literal[False] = False,
    ) -> Awaitable[ChatResponse[Any]]: ...

    @overload
    def get_response(
        self,
        messages: Sequence[Message],
        *,
        options: AnthropicChatOptions[Any] | None = None,
        stream: Literal[True],
    ) -> ResponseStream[ChatResponseUpdate, ChatResponse[Any]]: ...

    def get_response(
        self,
        messages: Sequence[Message],
        *,
        options: AnthropicChatOptions[Any] | None = None,
        stream: bool = False,
    ) -> Awaitable[ChatResponse[Any]] | ResponseStream[ChatResponseUpdate, ChatResponse[Any]]:
        """Send one request; ``stream=True`` returns a :class:`ResponseStream` at once.

        Content the API cannot take raises ``ValueError`` here, before anything
        is sent. Service failures raise :mod:`agentcore.errors` exceptions.
        """
        request = self._request(messages, cast("Mapping[str, Any] | None", options))
        if stream:
            return ResponseStream(self._stream(request), finalizer=ChatResponse.from_updates)
        return self._respond(request)

    async def _respond(self, request: AnthropicRequest) -> ChatResponse[Any]:
        try:
            raw = await self.client.messages.with_raw_response.create(
                **request.create_kwargs(), stream=False
            )
            data = await raw.json()
        except Exception as exc:
            _raise_mapped(exc)
        return parse_message(cast("Mapping[str, Any]", data), rate_limit_headers(raw.headers))

    async def _stream(self, request: AnthropicRequest) -> AsyncIterator[ChatResponseUpdate]:
        try:
            raw = await self.client.messages.with_raw_response.create(
                **request.create_kwargs(), stream=True
            )
        except Exception as exc:
            _raise_mapped(exc)
        parser = StreamParser(rate_limit_headers(raw.headers))
        try:
            async with aclosing(iterate_response(raw.http_response, parser)) as updates:
                async for update in updates:
                    yield update
        except Exception as exc:
            _raise_mapped(exc)

    async def count_tokens(
        self, messages: Sequence[Message], *, options: AnthropicChatOptions[Any] | None = None
    ) -> int:
        """Input tokens of the request these messages and options would make.

        Uses ``POST /v1/messages/count_tokens`` with the same system prompt,
        tools, tool choice, thinking and output format as a real request.
        """
        request = self._request(messages, cast("Mapping[str, Any] | None", options))
        try:
            counted = await self.client.messages.count_tokens(**request.count_tokens_kwargs())
        except Exception as exc:
            _raise_mapped(exc)
        return counted.input_tokens

    # -- hosted tools ------------------------------------------------------------------

    @staticmethod
    def get_web_search_tool(
        *,
        max_uses: int | None = None,
        allowed_domains: Sequence[str] | None = None,
        blocked_domains: Sequence[str] | None = None,
        user_location: Mapping[str, Any] | None = None,
        version: str = WEB_SEARCH_TOOL_TYPE,
        **extra: Any,
    ) -> WebSearchTool:
        """Anthropic's server-side web search (``web_search_20250305`` unless ``version``).

        ``extra`` keys are sent as they are, for fields of newer tool versions.
        """
        options: dict[str, Any] = {"type": version}
        if max_uses is not None:
            options["max_uses"] = max_uses
        if allowed_domains is not None:
            options["allowed_domains"] = list(allowed_domains)
        if blocked_domains is not None:
            options["blocked_domains"] = list(blocked_domains)
        if user_location is not None:
            options["user_location"] = dict(user_location)
        options.update(extra)
        return WebSearchTool(options=options)

    @staticmethod
    def get_code_interpreter_tool(
        *, version: str = CODE_EXECUTION_TOOL_TYPE, **extra: Any
    ) -> CodeInterpreterTool:
        """Anthropic's code execution tool (``code_execution_20250825`` unless ``version``).

        The sandbox runs bash and edits files; reuse it with the ``container`` option.
        """
        return CodeInterpreterTool(options={"type": version, **extra})

    @staticmethod
    def get_mcp_tool(
        *,
        name: str = "",
        url: str = "",
        allowed_tools: Sequence[str] | None = None,
        authorization_token: str | None = None,
        **toolset_options: Any,
    ) -> MCPTool:
        """A remote MCP server that Anthropic's MCP connector calls for the model.

        ``allowed_tools`` limits the server's tools to those names; ``toolset_options``
        (``default_config``, ``configs``, ``cache_control``) go into its ``mcp_toolset``.
        The connector runs tools without asking, so there is no approval mode.
        """
        if not name or not url:
            raise ValueError(
                "get_mcp_tool needs name= (a label for the server) and url= (https://...)"
            )
        options: dict[str, Any] = dict(toolset_options)
        if authorization_token is not None:
            options["authorization_token"] = authorization_token
        return MCPTool(
            name=name,
            url=url,
            # cast: mypy's attrs plugin cannot type the field's converter.
            allowed_tools=cast("Any", tuple(allowed_tools)) if allowed_tools is not None else None,
            options=options,
        )
