"""Responses API output items -> agentcore contents, usage and finish reasons.

Used for whole responses and, item by item, for streamed ones. Hosted tool
items (web search, file search, code interpreter, image generation, MCP,
hosted shell) become :class:`~agentcore.HostedToolCallContent` and, where the
item carries a result, :class:`~agentcore.HostedToolResultContent`; both keep
the item itself as ``raw`` so it can be sent back unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from openai.types.responses import (
    Response,
    ResponseFunctionToolCall,
    ResponseOutputItem,
    ResponseOutputMessage,
    ResponseReasoningItem,
    ResponseUsage,
)
from openai.types.responses.response_output_text import (
    Annotation as WireAnnotation,
)
from openai.types.responses.response_output_text import (
    AnnotationContainerFileCitation,
    AnnotationFileCitation,
    AnnotationURLCitation,
    ResponseOutputText,
)
from typing_extensions import TypeIs

from agentcore import (
    Annotation,
    ChatResponse,
    Content,
    ErrorContent,
    FinishReason,
    FunctionCallContent,
    HostedToolCallContent,
    HostedToolResultContent,
    Message,
    ReasoningContent,
    TextContent,
    Usage,
    merge_plain_text,
)
from agentcore_openai._content_parts import iso_timestamp
from agentcore_openai._errors import PROVIDER

__all__ = [
    "HOSTED_CALL_TYPES",
    "annotations_of",
    "finish_reason_of",
    "is_function_call",
    "is_message",
    "is_reasoning",
    "item_contents",
    "message_text",
    "parse_response",
    "reasoning_text",
    "responses_usage",
]

HOSTED_CALL_TYPES: dict[str, str] = {
    "web_search_call": "web_search",
    "file_search_call": "file_search",
    "code_interpreter_call": "code_interpreter",
    "image_generation_call": "image_generation",
    "mcp_call": "mcp",
    "shell_call": "shell",
}
"""Output item types that are hosted tool calls (counted as ``server_tool_calls``)."""

_SUMMARY_SEPARATOR = "\n\n"


def _annotation(item: WireAnnotation) -> Annotation:
    if isinstance(item, AnnotationURLCitation):
        return Annotation(
            kind="citation",
            url=item.url,
            title=item.title,
            start=item.start_index,
            end=item.end_index,
        )
    if isinstance(item, AnnotationFileCitation):
        return Annotation(
            kind="citation", file_id=item.file_id, title=item.filename, start=item.index
        )
    if isinstance(item, AnnotationContainerFileCitation):
        return Annotation(
            kind="citation",
            file_id=item.file_id,
            title=item.filename,
            start=item.start_index,
            end=item.end_index,
        )
    return Annotation(kind="file_path", file_id=item.file_id, start=item.index)


def annotations_of(part: ResponseOutputText) -> tuple[Annotation, ...]:
    return tuple(_annotation(a) for a in part.annotations)


# The SDK builds an item of a type it does not know as its first union member (a
# message): these look at the ``type`` too, so a new kind of item is skipped, not misread.
def is_message(item: object) -> TypeIs[ResponseOutputMessage]:
    """Whether ``item`` is a ``message`` output item."""
    return isinstance(item, ResponseOutputMessage) and item.type == "message"


def is_function_call(item: object) -> TypeIs[ResponseFunctionToolCall]:
    """Whether ``item`` is a ``function_call`` output item."""
    return isinstance(item, ResponseFunctionToolCall) and item.type == "function_call"


def is_reasoning(item: object) -> TypeIs[ResponseReasoningItem]:
    """Whether ``item`` is a ``reasoning`` output item."""
    return isinstance(item, ResponseReasoningItem) and item.type == "reasoning"


def _part_text(part: object) -> str | None:
    """The text of a message part: output text or a refusal; ``None`` for other parts."""
    if isinstance(part, ResponseOutputText) and part.type == "output_text":
        return part.text
    refusal = getattr(part, "refusal", None) if getattr(part, "type", None) == "refusal" else None
    return refusal if isinstance(refusal, str) else None


def message_text(item: ResponseOutputMessage) -> str:
    """All the text of a message item (refusals included), joined."""
    return "".join(text for part in item.content or () if (text := _part_text(part)) is not None)


def reasoning_text(item: ResponseReasoningItem) -> str:
    """The reasoning summary parts of an item, joined by blank lines."""
    return _SUMMARY_SEPARATOR.join(part.text for part in item.summary)


_HOSTED_TOOL_TYPES: dict[str, str] = {
    **HOSTED_CALL_TYPES,
    "mcp_list_tools": "mcp",
    "mcp_approval_request": "mcp",
    "shell_call_output": "shell",
}


def _hosted_arguments_and_result(raw: Mapping[str, Any]) -> tuple[Mapping[str, Any] | None, Any]:
    """What a hosted item says it was asked (arguments) and what came of it."""
    item_type = raw.get("type")
    if item_type == "web_search_call":
        action: Mapping[str, Any] = raw.get("action") or {}
        return action, {"status": raw.get("status"), "sources": action.get("sources")}
    if item_type == "file_search_call":
        return {"queries": raw.get("queries")}, raw.get("results")
    if item_type == "code_interpreter_call":
        return {"code": raw.get("code"), "container_id": raw.get("container_id")}, raw.get(
            "outputs"
        )
    if item_type == "image_generation_call":
        return {"revised_prompt": raw.get("revised_prompt")}, raw.get("result")
    if item_type == "mcp_list_tools":
        return {"server_label": raw.get("server_label"), "action": "list_tools"}, raw.get("tools")
    if item_type in ("mcp_call", "mcp_approval_request"):
        arguments = {
            "server_label": raw.get("server_label"),
            "name": raw.get("name"),
            "arguments": raw.get("arguments"),
        }
        if item_type == "mcp_approval_request":
            return {**arguments, "approval_required": True}, None
        error = raw.get("error")
        return arguments, {"error": error} if error else raw.get("output")
    if item_type == "shell_call":
        return raw.get("action"), None
    return None, raw.get("output")  # shell_call_output


def _hosted_contents(raw: Mapping[str, Any]) -> list[Content]:
    item_type = str(raw.get("type"))
    tool_type = _HOSTED_TOOL_TYPES.get(item_type)
    if tool_type is None:
        return []  # an item agentcore has no content for (computer use, custom tools, ...)
    call_id = str(raw.get("call_id") or raw.get("id") or "")
    arguments, result = _hosted_arguments_and_result(raw)
    contents: list[Content] = []
    if item_type != "shell_call_output":
        contents.append(
            HostedToolCallContent(
                call_id=call_id,
                tool_type=tool_type,
                arguments=arguments,
                provider=PROVIDER,
                raw=raw,
            )
        )
    if item_type not in ("shell_call", "mcp_approval_request"):
        contents.append(
            HostedToolResultContent(
                call_id=call_id, tool_type=tool_type, result=result, provider=PROVIDER, raw=raw
            )
        )
    return contents


def item_contents(item: ResponseOutputItem, index: int) -> list[Content]:
    """The contents of one output item (``index`` is its place in the output)."""
    if is_message(item):
        contents: list[Content] = []
        for part in item.content or ():
            text = _part_text(part)
            if isinstance(part, ResponseOutputText) and text is not None:
                contents.append(TextContent(text, annotations=annotations_of(part)))
            elif text is not None:
                contents.append(TextContent(text))
        return contents
    if is_function_call(item):
        return [
            FunctionCallContent(
                call_id=item.call_id, name=item.name, arguments=item.arguments, index=index
            )
        ]
    if is_reasoning(item):
        return [
            ReasoningContent(
                text=reasoning_text(item),
                provider=PROVIDER,
                id=item.id,
                protected_data=item.encrypted_content,
            )
        ]
    return _hosted_contents(item.to_dict(mode="json"))


def responses_usage(usage: ResponseUsage, output: Iterable[ResponseOutputItem]) -> Usage:
    """Usage figures; ``server_tool_calls`` counts the hosted tool calls in ``output``.

    Figures a server leaves out or sends as ``null`` (the details objects, often) are unset.
    """
    details = getattr(usage, "input_tokens_details", None)
    output_details = getattr(usage, "output_tokens_details", None)
    return Usage(
        input_tokens=getattr(usage, "input_tokens", None),
        output_tokens=getattr(usage, "output_tokens", None),
        total_tokens=getattr(usage, "total_tokens", None),
        cache_read_tokens=getattr(details, "cached_tokens", None),
        cache_write_tokens=getattr(details, "cache_write_tokens", None),
        reasoning_tokens=getattr(output_details, "reasoning_tokens", None),
        server_tool_calls=sum(1 for item in output if item.type in HOSTED_CALL_TYPES),
    )


def finish_reason_of(response: Response) -> FinishReason | None:
    status = getattr(response, "status", None)
    if status == "failed":
        return "error"
    if status == "incomplete":
        details = getattr(response, "incomplete_details", None)
        if getattr(details, "reason", None) == "content_filter":
            return "content_filter"
        return "length"
    if any(is_function_call(item) for item in response.output or ()):
        return "tool_calls"
    if status == "completed":
        return "stop"
    return None


def parse_response(
    response: Response, *, store: bool, rate_limit: dict[str, Any] | None
) -> ChatResponse[None]:
    """A whole ``Response`` as a :class:`~agentcore.ChatResponse`.

    ``conversation_id`` is the response id when the response is stored (send it
    back as ``options["conversation_id"]`` to continue from it).
    """
    contents: list[Content] = []
    output = response.output or []
    for index, item in enumerate(output):
        contents.extend(item_contents(item, index))
    error = getattr(response, "error", None)
    if getattr(response, "status", None) == "failed" and error is not None:
        contents.append(ErrorContent(error.message, code=error.code))
    contents = merge_plain_text(contents)
    usage = getattr(response, "usage", None)
    response_id = getattr(response, "id", None)
    return ChatResponse(
        messages=(Message("assistant", contents),) if contents else (),
        response_id=response_id,
        conversation_id=response_id if store else None,
        model=getattr(response, "model", None),
        finish_reason=finish_reason_of(response),
        usage=responses_usage(usage, output) if usage is not None else None,
        created_at=iso_timestamp(getattr(response, "created_at", None)),
        additional_properties={"rate_limit": rate_limit} if rate_limit else None,
    )
