"""``AnthropicChatClient``: agentcore's chat protocol over Anthropic's Messages API."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import aclosing
from typing import Any, ClassVar, NoReturn, cast

import anthropic
import httpx2
from typing_extensions import Self

from agentcore import (
    ChatResponse,
    ChatResponseUpdate,
    CodeInterpreterTool,
    MCPTool,
    Message,
    ResponseStream,
    WebSearchTool,
)
from agentcore.adapters import (
    DEFAULT_MAX_EVENT_SIZE,
    DEFAULT_READ_TIMEOUT,
    GetResponseResult,
    get_response_method,
    option_keys,
    own_client,
    refuse_sync_client,
    response_update,
    warn_unknown_options,
)
from agentcore_anthropic._errors import (
    READ_ERRORS,
    body_error,
    malformed,
    map_error,
    rate_limit_headers,
)
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

_CONNECT_TIMEOUT = 5.0

__all__ = ["AnthropicChatClient"]


def _close(client: anthropic.AsyncAnthropic) -> Any:
    return client.close()


def _message(content: bytes, rate_limit: Mapping[str, str] | None) -> ChatResponse[Any]:
    """A whole ``message`` body as a response; a malformed one (one without
    ``content`` among them) is a typed error."""
    try:
        data = json.loads(content)
    except ValueError as exc:
        excerpt = content[:200].decode("utf-8", "replace")
        raise malformed("message body", f"not JSON ({exc}): {excerpt!r}") from exc
    if not isinstance(data, dict):
        raise malformed("message body", f"a JSON {type(data).__name__} where an object belongs")
    body = cast("dict[str, Any]", data)
    error = body.get("error")
    if body.get("type") == "error" and isinstance(error, Mapping):
        raise body_error(cast("Mapping[str, Any]", error))
    if body.get("content") is None:  # an empty list is an empty answer; no list is none
        raise malformed(
            "message body", "it has no 'content' (the list of blocks), so it holds no answer"
        )
    try:
        return parse_message(body, rate_limit)
    except READ_ERRORS as exc:
        raise malformed("message body", repr(exc)) from exc


def _raise_mapped(exc: BaseException) -> NoReturn:
    mapped = map_error(exc)
    if mapped is exc:
        raise exc
    raise mapped from exc


_OPTION_KEYS = option_keys(AnthropicChatOptions)
"""The keys this adapter reads: any other gets a warning (a misspelling would vanish)."""


class AnthropicChatClient:
    """A chat client for Anthropic's Messages API (``POST /v1/messages``).

    Pass an SDK client (``client=anthropic.AsyncAnthropic(...)``) or let the
    adapter build one from ``api_key`` / ``base_url`` (falling back to the
    ``ANTHROPIC_API_KEY`` environment variable). A client built here has
    ``max_retries=0``: retrying is the job of agentcore's retry middleware.
    ``max_tokens`` is sent when the options do not set it (the API requires it).

    ``read_timeout`` is how many seconds to wait for the next bytes of an answer
    (default :data:`~agentcore.adapters.DEFAULT_READ_TIMEOUT`, or a given client's own
    timeout); ``max_event_size`` bounds one streamed event, in bytes. ``async with``
    or :meth:`aclose` closes a client built here, never a given one.
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
        read_timeout: float | None = None,
        max_event_size: int = DEFAULT_MAX_EVENT_SIZE,
    ) -> None:
        if not model:
            raise ValueError("AnthropicChatClient needs a model name, e.g. 'claude-sonnet-4-6'")
        if max_tokens < 1:
            raise ValueError(f"max_tokens must be a positive number of tokens, got {max_tokens}")
        if read_timeout is not None and not read_timeout > 0:
            raise ValueError(
                "AnthropicChatClient: read_timeout must be a positive number of seconds"
            )
        self.model = model
        self.max_tokens = max_tokens
        self.max_event_size = max_event_size
        idle = DEFAULT_READ_TIMEOUT if read_timeout is None else read_timeout
        timeout = httpx2.Timeout(idle, connect=_CONNECT_TIMEOUT)

        def build() -> anthropic.AsyncAnthropic:
            try:
                return anthropic.AsyncAnthropic(
                    api_key=api_key, base_url=base_url, max_retries=0, timeout=timeout
                )
            except anthropic.CredentialsError as exc:
                _raise_mapped(exc)

        refuse_sync_client(
            "AnthropicChatClient",
            client,
            (anthropic.Anthropic,),
            "anthropic.AsyncAnthropic(...)",
        )
        self._owned = own_client(
            "AnthropicChatClient",
            client,
            build,
            close=_close,
            settings={"api_key": api_key, "base_url": base_url},
        )
        # Per request too, so that a given client honours an explicit read_timeout.
        self._request_options: dict[str, Any] = (
            {"timeout": timeout} if read_timeout is not None else {}
        )
        self.client: anthropic.AsyncAnthropic = self._owned.client

    async def aclose(self) -> None:
        """Close the SDK client if this adapter created it (a given one stays open)."""
        await self._owned.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        return f"AnthropicChatClient(model={self.model!r})"

    def _request(
        self, messages: Sequence[Message], options: Mapping[str, Any] | None
    ) -> AnthropicRequest:
        if options:
            warn_unknown_options(
                "AnthropicChatClient", options, _OPTION_KEYS, options_type="AnthropicChatOptions"
            )
        return build_request(messages, options or {}, model=self.model, max_tokens=self.max_tokens)

    @get_response_method
    def get_response(
        self,
        messages: Sequence[Message],
        *,
        options: AnthropicChatOptions[Any] | None = None,
        stream: bool = False,
    ) -> GetResponseResult:
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
                **request.create_kwargs(), stream=False, **self._request_options
            )
            content = await raw.http_response.aread()
        except Exception as exc:
            _raise_mapped(exc)
        return _message(content, rate_limit_headers(raw.headers))

    async def _stream(self, request: AnthropicRequest) -> AsyncIterator[ChatResponseUpdate]:
        try:
            raw = await self.client.messages.with_raw_response.create(
                **request.create_kwargs(), stream=True, **self._request_options
            )
        except Exception as exc:
            _raise_mapped(exc)
        rate_limit = rate_limit_headers(raw.headers)
        response = raw.http_response
        try:
            if "json" in response.headers.get("content-type", ""):
                # A server that ignored "stream": the whole message, read as what it is.
                yield response_update(_message(await response.aread(), rate_limit))
                return
            parser = StreamParser(rate_limit)
            updates = iterate_response(response, parser, max_event_size=self.max_event_size)
            async with aclosing(updates):
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
            counted = await self.client.messages.count_tokens(
                **request.count_tokens_kwargs(), **self._request_options
            )
        except Exception as exc:
            _raise_mapped(exc)
        tokens = getattr(counted, "input_tokens", None)
        if isinstance(tokens, bool) or not isinstance(tokens, int):
            raise malformed("token count", f"input_tokens is {tokens!r}, not a number")
        return tokens

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
