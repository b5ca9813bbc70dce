"""agentcore messages and options -> a Responses API request (``POST /responses``).

Messages become input items in order: user/system/assistant messages, then
``function_call`` / ``function_call_output`` items, OpenAI reasoning items
(reasoning from other providers is dropped), and hosted tool items sent back as
the service produced them (``raw``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agentcore import (
    CodeInterpreterTool,
    DataContent,
    FileSearchTool,
    FunctionApprovalResponseContent,
    FunctionCallContent,
    FunctionResultContent,
    HostedTool,
    HostedToolCallContent,
    HostedToolResultContent,
    ImageGenerationTool,
    MCPTool,
    Message,
    ReasoningContent,
    ShellTool,
    TextContent,
    UriContent,
    WebSearchTool,
)
from agentcore.adapters import tool_result_contents
from agentcore_openai._content_parts import (
    is_image,
    is_pdf,
    result_text,
    unsupported,
)
from agentcore_openai._errors import PROVIDER
from agentcore_openai._tools import (
    FunctionSpec,
    check_tool_choice,
    required_function_name,
    split_tools,
    structured_output,
)

__all__ = ["ADAPTER", "build_input", "build_responses_request", "hosted_tool_param"]

ADAPTER = "OpenAIResponsesClient"

_PASSTHROUGH = (
    "temperature",
    "top_p",
    "metadata",
    "user",
    "store",
    "service_tier",
    "prompt_cache_key",
    "truncation",
    "max_tool_calls",
    "reasoning",
    "top_logprobs",
)
_APPROVAL_MODES = {"always_require": "always", "never_require": "never"}


def _media_part(content: DataContent | UriContent) -> dict[str, Any]:
    if isinstance(content, UriContent):
        if is_image(content):
            return {"type": "input_image", "image_url": content.uri, "detail": "auto"}
        return {"type": "input_file", "file_url": content.uri}
    if is_image(content):
        return {"type": "input_image", "image_url": content.uri, "detail": "auto"}
    if is_pdf(content) or content.media_type.startswith("text/"):
        filename = content.name or ("document.pdf" if is_pdf(content) else "document.txt")
        return {"type": "input_file", "file_data": content.uri, "filename": filename}
    raise unsupported(
        ADAPTER,
        f"a DataContent of type {content.media_type!r}",
        "the Responses API takes images, PDFs and text files (audio needs OpenAIChatClient)",
    )


def _carries(content: DataContent | UriContent) -> bool:
    """Whether ``_media_part`` sends ``content`` (a tool result's media that it would
    refuse go to the model as text instead)."""
    if isinstance(content, UriContent):
        return is_image(content) or not content.uri.lower().startswith("data:")
    return is_image(content) or is_pdf(content) or content.media_type.startswith("text/")


def _result_output(content: FunctionResultContent) -> str | list[dict[str, Any]]:
    # A tool that returned media sends output parts (text, images, files); any
    # other result is one string.
    contents = tool_result_contents(content, _carries)
    if contents is None:
        return result_text(content, None)
    return [
        {"type": "input_text", "text": item.text}
        if isinstance(item, TextContent)
        else _media_part(item)
        for item in contents
    ]


def _reasoning_item(content: ReasoningContent) -> dict[str, Any]:
    item: dict[str, Any] = {
        "type": "reasoning",
        "id": content.id,
        "summary": [{"type": "summary_text", "text": content.text}] if content.text else [],
    }
    if content.protected_data is not None:
        item["encrypted_content"] = content.protected_data
    return item


def _approval_answer(content: FunctionApprovalResponseContent) -> dict[str, Any]:
    answer: dict[str, Any] = {
        "type": "mcp_approval_response",
        "approval_request_id": content.id,
        "approve": content.approved,
    }
    if content.reason:
        answer["reason"] = content.reason
    return answer


class _InputBuilder:
    """Collects input items; text and media of one message share a message item."""

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []
        self._parts: list[dict[str, Any]] = []
        self._role = "user"
        self._sent_ids: set[str] = set()
        self._approval_requests: set[str] = set()

    def flush(self) -> None:
        if self._parts:
            self.items.append({"role": self._role, "content": self._parts})
            self._parts = []

    def item(self, item: dict[str, Any]) -> None:
        self.flush()
        self.items.append(item)

    def message(self, message: Message) -> None:
        role = message.role
        self._role = role
        for content in message.contents:
            if isinstance(content, TextContent):
                if role == "tool":
                    raise unsupported(
                        ADAPTER,
                        "text in a tool message",
                        "tool messages hold FunctionResultContent",
                    )
                kind = "output_text" if role == "assistant" else "input_text"
                self._parts.append({"type": kind, "text": content.text})
            elif isinstance(content, (DataContent, UriContent)):
                if role != "user":
                    raise unsupported(
                        ADAPTER,
                        f"{type(content).__name__} in a {role} message",
                        "only user messages may carry images, files or audio",
                    )
                self._parts.append(_media_part(content))
            elif isinstance(content, FunctionCallContent):
                self.item(
                    {
                        "type": "function_call",
                        "call_id": content.call_id,
                        "name": content.name,
                        "arguments": content.arguments_json(),
                    }
                )
            elif isinstance(content, FunctionResultContent):
                self.item(
                    {
                        "type": "function_call_output",
                        "call_id": content.call_id,
                        "output": _result_output(content),
                    }
                )
            elif isinstance(content, ReasoningContent):
                if content.provider == PROVIDER and content.id:
                    self.item(_reasoning_item(content))
            elif isinstance(content, (HostedToolCallContent, HostedToolResultContent)):
                self._hosted(content)
            elif (
                isinstance(content, FunctionApprovalResponseContent)
                and content.id in self._approval_requests
            ):
                self.item(_approval_answer(content))
            # Approval requests (the tool loop's bookkeeping), errors and usage are not sent.
        self.flush()

    def _hosted(self, content: HostedToolCallContent | HostedToolResultContent) -> None:
        raw = content.raw
        if content.provider != PROVIDER or raw is None:
            return  # another provider's hosted tool: this service cannot replay it
        item_id = str(raw.get("id", ""))
        if item_id in self._sent_ids:
            return  # the call and its result share one item
        self._sent_ids.add(item_id)
        if raw.get("type") == "mcp_approval_request":
            self._approval_requests.add(item_id)
        self.item(dict(raw))


def build_input(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """The ``input`` items for ``messages``."""
    builder = _InputBuilder()
    for message in messages:
        builder.message(message)
    return builder.items


def hosted_tool_param(tool: HostedTool) -> dict[str, Any]:
    """The Responses API tool entry for a hosted tool value."""
    options = dict(tool.options)
    if isinstance(tool, WebSearchTool):
        return {"type": "web_search", **options}
    if isinstance(tool, FileSearchTool):
        if not tool.vector_store_ids:
            raise ValueError(
                f"{ADAPTER}: the file_search tool needs vector_store_ids; use "
                "get_file_search_tool(vector_store_ids=['vs_...'])"
            )
        return {"type": "file_search", "vector_store_ids": list(tool.vector_store_ids), **options}
    if isinstance(tool, CodeInterpreterTool):
        file_ids = options.pop("file_ids", None)
        container: Any = options.pop("container", None)
        if container is None:
            container = {"type": "auto"}
            if file_ids:
                container["file_ids"] = list(file_ids)
        return {"type": "code_interpreter", "container": container, **options}
    if isinstance(tool, ImageGenerationTool):
        return {"type": "image_generation", **options}
    if isinstance(tool, MCPTool):
        param: dict[str, Any] = {"type": "mcp", "server_label": tool.name, "server_url": tool.url}
        if tool.allowed_tools is not None:
            param["allowed_tools"] = list(tool.allowed_tools)
        if tool.approval_mode is not None:
            param["require_approval"] = _APPROVAL_MODES[tool.approval_mode]
        if tool.headers:
            param["headers"] = dict(tool.headers)
        return {**param, **options}
    environment: Any = options.pop("environment", None) or {"type": "container_auto"}
    if isinstance(environment, Mapping) and environment.get("type") == "local":  # pyright: ignore[reportUnknownMemberType]  # user JSON
        raise ValueError(
            f"{ADAPTER}: a shell tool with a local environment needs the caller to run "
            "commands, which agentcore does not do; use a hosted container environment"
        )
    assert isinstance(tool, ShellTool)
    return {"type": "shell", "environment": environment, **options}


def _tool_params(options: Mapping[str, Any], params: dict[str, Any]) -> None:
    tools: list[Any] = []
    for spec in split_tools(options.get("tools"), ADAPTER):
        if isinstance(spec, FunctionSpec):
            tool: dict[str, Any] = {
                "type": "function",
                "name": spec.name,
                "parameters": spec.parameters,
                "strict": spec.strict,
            }
            if spec.description is not None:
                tool["description"] = spec.description
            tools.append(tool)
        elif isinstance(spec, Mapping):
            tools.append(dict(spec))
        else:
            tools.append(hosted_tool_param(spec))
    if not tools:
        return
    params["tools"] = tools
    # Sent even when the caller chose nothing: servers disagree on the default.
    tool_choice = options.get("tool_choice", "auto")
    if tool_choice is not None:
        check_tool_choice(tool_choice, ADAPTER)
        name = required_function_name(tool_choice)
        if name is not None:
            params["tool_choice"] = {"type": "function", "name": name}
        else:
            params["tool_choice"] = "required" if isinstance(tool_choice, Mapping) else tool_choice
    if "parallel_tool_calls" in options:
        params["parallel_tool_calls"] = options["parallel_tool_calls"]


def build_responses_request(
    messages: Sequence[Message], options: Mapping[str, Any] | None, model: str
) -> dict[str, Any]:
    """The keyword arguments for ``responses.create`` (without ``stream``).

    Raises ``ValueError`` for content the Responses API cannot take, before
    anything is sent.
    """
    # ``stop``, ``seed`` and the penalties have no Responses API field: they are
    # not sent (as other adapters skip what their API lacks).
    opts = {key: value for key, value in (options or {}).items() if value is not None}
    params: dict[str, Any] = {"model": opts.get("model") or model, "input": build_input(messages)}
    if opts.get("instructions"):
        params["instructions"] = opts["instructions"]
    if "conversation_id" in opts:
        params["previous_response_id"] = opts["conversation_id"]
    for key in _PASSTHROUGH:
        if key in opts:
            params[key] = opts[key]
    if "max_tokens" in opts:
        params["max_output_tokens"] = opts["max_tokens"]
    include = list(opts.get("include", ()))
    if opts.get("store") is False and "reasoning.encrypted_content" not in include:
        include.append("reasoning.encrypted_content")
    if include:
        params["include"] = include
    _tool_params(opts, params)
    if "response_format" in opts:
        name, schema, strict = structured_output(opts["response_format"])
        params["text"] = {
            "format": {"type": "json_schema", "name": name, "schema": schema, "strict": strict}
        }
    for key in ("extra_body", "extra_headers"):
        if key in opts:
            params[key] = dict(opts[key])
    return params
