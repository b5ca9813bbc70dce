"""agentcore messages and options -> a Chat Completions request (``POST /chat/completions``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agentcore import (
    DataContent,
    FunctionCallContent,
    FunctionResultContent,
    Message,
    TextContent,
    UriContent,
)
from agentcore.adapters import tool_result_contents
from agentcore_openai._content_parts import (
    audio_format,
    is_image,
    is_pdf,
    result_text,
    unsupported,
)
from agentcore_openai._tools import (
    FunctionSpec,
    check_tool_choice,
    required_function_name,
    split_tools,
    structured_output,
)

__all__ = ["ADAPTER", "build_chat_request"]

ADAPTER = "OpenAIChatClient"

# Options sent under the same name.
_PASSTHROUGH = (
    "temperature",
    "top_p",
    "seed",
    "frequency_penalty",
    "presence_penalty",
    "metadata",
    "user",
    "reasoning_effort",
    "service_tier",
    "store",
    "prompt_cache_key",
    "logprobs",
    "top_logprobs",
)


def _media_part(content: DataContent | UriContent) -> dict[str, Any]:
    if isinstance(content, UriContent):
        if is_image(content):
            return {"type": "image_url", "image_url": {"url": content.uri}}
        raise unsupported(
            ADAPTER,
            f"a UriContent of type {content.media_type!r}",
            "Chat Completions takes image URLs only; send other files as DataContent",
        )
    if is_image(content):
        return {"type": "image_url", "image_url": {"url": content.uri}}
    if is_pdf(content):
        filename = content.name or "document.pdf"
        return {"type": "file", "file": {"filename": filename, "file_data": content.uri}}
    fmt = audio_format(content)
    if fmt is not None:
        return {"type": "input_audio", "input_audio": {"data": content.base64, "format": fmt}}
    raise unsupported(
        ADAPTER,
        f"a DataContent of type {content.media_type!r}",
        "Chat Completions takes images, PDFs and wav/mp3 audio",
    )


def _carries(content: DataContent | UriContent) -> bool:
    """Whether ``_media_part`` sends ``content`` (a tool result's media that it would
    refuse go to the model as text instead)."""
    if isinstance(content, UriContent):
        return is_image(content)
    return is_image(content) or is_pdf(content) or audio_format(content) is not None


def _message_items(message: Message, system_role: str) -> list[dict[str, Any]]:
    """One wire message (plus one ``tool`` message per function result)."""
    role = message.role
    parts: list[dict[str, Any]] = []
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    media: list[dict[str, Any]] = []  # images and files tools returned
    for content in message.contents:
        if isinstance(content, TextContent):
            if role == "tool":
                raise unsupported(
                    ADAPTER, "text in a tool message", "tool messages hold FunctionResultContent"
                )
            texts.append(content.text)
            parts.append({"type": "text", "text": content.text})
        elif isinstance(content, (DataContent, UriContent)):
            if role != "user":
                raise unsupported(
                    ADAPTER,
                    f"{type(content).__name__} in a {role} message",
                    "only user messages may carry images, files or audio",
                )
            parts.append(_media_part(content))
        elif isinstance(content, FunctionCallContent):
            if role != "assistant":
                raise unsupported(
                    ADAPTER,
                    f"a FunctionCallContent in a {role} message",
                    "function calls belong in assistant messages",
                )
            calls.append(
                {
                    "id": content.call_id,
                    "type": "function",
                    "function": {"name": content.name, "arguments": content.arguments_json()},
                }
            )
        elif isinstance(content, FunctionResultContent):
            contents = tool_result_contents(content, _carries)
            text = result_text(content, contents)
            results.append({"role": "tool", "tool_call_id": content.call_id, "content": text})
            if contents is not None:
                media.extend(
                    _media_part(item) for item in contents if not isinstance(item, TextContent)
                )
        # Reasoning, hosted tool calls/results (Chat Completions has neither),
        # approvals (the tool loop's bookkeeping), errors and usage are not sent.
    items: list[dict[str, Any]] = []
    if parts or calls:
        wire_role = system_role if role == "system" else role
        item: dict[str, Any] = {"role": wire_role}
        if role == "user" and len(texts) != len(parts):
            item["content"] = parts
        else:
            item["content"] = "".join(texts) if texts or not calls else None
        if calls:
            item["tool_calls"] = calls
        if message.author_name and role != "tool":
            item["name"] = message.author_name
        items.append(item)
    items.extend(results)
    if media:
        # A tool message holds text only: the media a tool returned follow as a user
        # message, after every result of the turn so the results stay together.
        intro = {"type": "text", "text": "Images and files the tools above returned:"}
        items.append({"role": "user", "content": [intro, *media]})
    return items


def _tool_params(options: Mapping[str, Any], params: dict[str, Any]) -> None:
    specs = split_tools(options.get("tools"), ADAPTER)
    tools: list[Any] = []
    for spec in specs:
        if isinstance(spec, FunctionSpec):
            function: dict[str, Any] = {"name": spec.name, "parameters": spec.parameters}
            if spec.description is not None:
                function["description"] = spec.description
            function["strict"] = spec.strict
            tools.append({"type": "function", "function": function})
        elif isinstance(spec, Mapping):
            tools.append(dict(spec))
        else:
            raise ValueError(
                f"{ADAPTER} cannot send the hosted {spec.kind!r} tool: Chat Completions has "
                "no hosted tools; use OpenAIResponsesClient for them"
            )
    if not tools:
        return
    params["tools"] = tools
    # Sent even when the caller chose nothing: servers disagree on the default.
    tool_choice = options.get("tool_choice", "auto")
    if tool_choice is not None:
        check_tool_choice(tool_choice, ADAPTER)
        name = required_function_name(tool_choice)
        if name is not None:
            params["tool_choice"] = {"type": "function", "function": {"name": name}}
        else:
            params["tool_choice"] = "required" if isinstance(tool_choice, Mapping) else tool_choice
    if "parallel_tool_calls" in options:
        params["parallel_tool_calls"] = options["parallel_tool_calls"]


def build_chat_request(
    messages: Sequence[Message], options: Mapping[str, Any] | None, model: str
) -> dict[str, Any]:
    """The keyword arguments for ``chat.completions.create`` (without ``stream``).

    Raises ``ValueError`` for content or options Chat Completions cannot take,
    before anything is sent.
    """
    opts = {key: value for key, value in (options or {}).items() if value is not None}
    if "conversation_id" in opts:
        raise ValueError(
            f"{ADAPTER} has no service-side conversations, so options['conversation_id'] "
            "cannot be honoured; send the whole history, or use OpenAIResponsesClient"
        )
    system_role = opts.get("instructions_role", "system")
    if system_role not in ("system", "developer"):
        raise ValueError(
            f"{ADAPTER}: instructions_role must be 'system' or 'developer', got {system_role!r}"
        )
    wire: list[dict[str, Any]] = []
    instructions = opts.get("instructions")
    if instructions:
        wire.append({"role": system_role, "content": instructions})
    for message in messages:
        wire.extend(_message_items(message, system_role))
    params: dict[str, Any] = {"model": opts.get("model") or model, "messages": wire}
    for key in _PASSTHROUGH:
        if key in opts:
            params[key] = opts[key]
    if "max_tokens" in opts:
        params["max_completion_tokens"] = opts["max_tokens"]
    if "stop" in opts:
        stop = opts["stop"]
        params["stop"] = stop if isinstance(stop, str) else list(stop)
    _tool_params(opts, params)
    if "response_format" in opts:
        name, schema, strict = structured_output(opts["response_format"])
        params["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": name, "schema": schema, "strict": strict},
        }
    for key in ("extra_body", "extra_headers"):
        if key in opts:
            params[key] = dict(opts[key])
    choices = params.get("extra_body", {}).get("n")
    if choices is not None and choices != 1:
        raise ValueError(
            f"{ADAPTER} reads one choice per response, so extra_body['n'] must be 1 (got "
            f"{choices!r}); make separate requests for several answers"
        )
    return params
