"""One Messages API request, built from agentcore messages and options."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs
from anthropic import transform_schema
from anthropic.resources.messages import AsyncMessages

from agentcore import Message
from agentcore.structured import json_schema_for
from agentcore_anthropic._messages import convert_messages
from agentcore_anthropic._tools import convert_tool_choice, convert_tools

__all__ = ["AnthropicRequest", "build_request"]

_COUNT_TOKENS_FIELDS = frozenset(
    {
        "model",
        "messages",
        "system",
        "tools",
        "tool_choice",
        "thinking",
        "output_config",
        "mcp_servers",
    }
)
"""The body fields a token count shares with the request it counts."""


def _named_parameters(method: Callable[..., Any]) -> frozenset[str]:
    skip = {"self", "extra_headers", "extra_query", "extra_body", "timeout"}
    return frozenset(inspect.signature(method).parameters) - skip


# The SDK names some body fields as parameters and not others (and that set
# changes between versions); fields it does not name travel in ``extra_body``.
_CREATE_PARAMETERS = _named_parameters(AsyncMessages.create)
_COUNT_TOKENS_PARAMETERS = _named_parameters(AsyncMessages.count_tokens)


@attrs.frozen
class AnthropicRequest:
    """The JSON body of one request and its ``anthropic-beta`` header values."""

    body: dict[str, Any]
    betas: tuple[str, ...]

    def headers(self) -> dict[str, str]:
        """The extra HTTP headers of this request."""
        return {"anthropic-beta": ",".join(self.betas)} if self.betas else {}

    def create_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for the SDK's ``messages.create``."""
        return _split(self.body, _CREATE_PARAMETERS, self.headers())

    def count_tokens_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``messages.count_tokens`` (the fields a count uses)."""
        body = {k: v for k, v in self.body.items() if k in _COUNT_TOKENS_FIELDS}
        return _split(body, _COUNT_TOKENS_PARAMETERS, self.headers())


def _split(
    body: Mapping[str, Any], named: frozenset[str], headers: dict[str, str]
) -> dict[str, Any]:
    kwargs = {k: v for k, v in body.items() if k in named}
    extra = {k: v for k, v in body.items() if k not in named}
    kwargs["extra_headers"] = headers
    kwargs["extra_body"] = extra or None
    return kwargs


def build_request(
    messages: Sequence[Message],
    options: Mapping[str, Any],
    *,
    model: str,
    max_tokens: int,
) -> AnthropicRequest:
    """Map messages and options onto the API; ``ValueError`` for what it cannot send."""
    opts = {k: v for k, v in options.items() if v is not None}
    system, turns = convert_messages(messages, opts.get("instructions"))
    body: dict[str, Any] = {
        "model": opts.get("model") or model,
        "max_tokens": opts.get("max_tokens") or max_tokens,
        "messages": turns,
    }
    if system:
        body["system"] = system
    betas: list[str] = list(opts.get("betas") or ())

    declared = convert_tools(opts.get("tools") or ())
    if declared.tools:
        body["tools"] = declared.tools
        choice = convert_tool_choice(opts.get("tool_choice"), opts.get("parallel_tool_calls"))
        if choice is not None:
            body["tool_choice"] = choice
    if declared.mcp_servers:
        body["mcp_servers"] = declared.mcp_servers
    betas.extend(b for b in declared.betas if b not in betas)

    response_format = opts.get("response_format")
    if response_format is not None:
        _name, schema = json_schema_for(response_format)
        body["output_config"] = {
            "format": {"type": "json_schema", "schema": transform_schema(schema)}
        }

    for key in ("temperature", "top_p", "top_k", "service_tier", "container"):
        if key in opts:
            body[key] = opts[key]
    if "thinking" in opts:
        body["thinking"] = dict(opts["thinking"])
    stop = opts.get("stop")
    if stop is not None:
        body["stop_sequences"] = [stop] if isinstance(stop, str) else list(stop)
    metadata: Mapping[str, Any] = opts.get("metadata") or {}
    user_id = opts.get("user") or metadata.get("user_id")
    if user_id:
        body["metadata"] = {"user_id": user_id}

    body.update(opts.get("extra_body") or {})
    return AnthropicRequest(body=body, betas=tuple(betas))
