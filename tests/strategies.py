"""Hypothesis strategies for agentcore values, shared by the tests.

Payloads typed ``Any`` (function results, event data, a response's ``value``)
are drawn as JSON values: that is what they must be to serialize.
"""

from __future__ import annotations

import json
import string
from typing import Any

from hypothesis import strategies as st

from agentcore import (
    AgentResponse,
    AgentResponseUpdate,
    AgentSession,
    Annotation,
    ChatResponse,
    ChatResponseUpdate,
    CodeInterpreterTool,
    CompactionContent,
    ConfidentialityLabel,
    Content,
    ContentLabel,
    CustomEvent,
    DataContent,
    Embedding,
    ErrorContent,
    FileSearchTool,
    FinishReason,
    FunctionApprovalRequestContent,
    FunctionApprovalResponseContent,
    FunctionCallContent,
    FunctionResultContent,
    GeneratedEmbeddings,
    HostedTool,
    HostedToolCallContent,
    HostedToolResultContent,
    ImageGenerationTool,
    IntegrityLabel,
    MCPTool,
    Message,
    ReasoningContent,
    Role,
    ShellTool,
    TextContent,
    UriContent,
    Usage,
    UsageContent,
    UserInputRequestContent,
    UserInputResponseContent,
    WebSearchTool,
)

# -- scalars and JSON ----------------------------------------------------------------

texts = st.text(max_size=16)
optional_texts = st.none() | texts
ids = st.text(alphabet=string.ascii_letters + string.digits + "_-", min_size=1, max_size=10)
optional_ids = st.none() | ids
counts = st.none() | st.integers(min_value=0, max_value=10**9)
finite_floats = st.floats(allow_nan=False, allow_infinity=False)

json_scalars: st.SearchStrategy[Any] = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63)
    | finite_floats
    | texts
)
json_values: st.SearchStrategy[Any] = st.recursive(
    json_scalars,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(texts, children, max_size=3),
    max_leaves=6,
)
json_objects: st.SearchStrategy[dict[str, Any]] = st.dictionaries(texts, json_values, max_size=3)
optional_json_objects = st.none() | json_objects

ROLES: list[Role] = ["system", "user", "assistant", "tool"]
FINISH_REASONS: list[FinishReason] = ["stop", "length", "tool_calls", "content_filter", "error"]
roles = st.sampled_from(ROLES)
finish_reasons = st.none() | st.sampled_from(FINISH_REASONS)

# -- values ----------------------------------------------------------------------------

usages = st.builds(
    Usage,
    input_tokens=counts,
    output_tokens=counts,
    total_tokens=counts,
    cache_read_tokens=counts,
    cache_write_tokens=counts,
    reasoning_tokens=counts,
    server_tool_calls=counts,
)
optional_usages = st.none() | usages

annotation_values = st.builds(
    Annotation,
    kind=st.sampled_from(["citation", "file_path", "other"]),
    url=optional_texts,
    title=optional_texts,
    file_id=optional_ids,
    quote=optional_texts,
    start=counts,
    end=counts,
)

text_contents = st.builds(
    TextContent, text=texts, annotations=st.lists(annotation_values, max_size=2).map(tuple)
)
reasoning_contents = st.builds(
    ReasoningContent,
    text=texts,
    provider=optional_texts,
    id=optional_ids,
    protected_data=optional_texts,
)
data_contents = st.builds(
    DataContent,
    data=st.binary(max_size=24),
    media_type=st.sampled_from(["image/png", "application/pdf", "audio/wav"]),
    name=optional_texts,
)
uri_contents = st.builds(UriContent, uri=texts, media_type=optional_texts, name=optional_texts)
function_calls = st.builds(
    FunctionCallContent,
    call_id=ids,
    name=texts,
    arguments=st.one_of(json_objects.map(json.dumps), json_objects, texts),
    index=st.none() | st.integers(min_value=0, max_value=8),
)
function_results = st.builds(
    FunctionResultContent, call_id=ids, result=json_values, error=optional_texts
)
approval_requests = st.builds(FunctionApprovalRequestContent, function_call=function_calls, id=ids)
approval_responses = st.builds(
    FunctionApprovalResponseContent,
    id=ids,
    function_call=function_calls,
    approved=st.booleans(),
    reason=optional_texts,
)
user_input_requests = st.builds(
    UserInputRequestContent, function_call=function_calls, prompt=texts, id=ids
)
user_input_responses = st.builds(
    UserInputResponseContent, id=ids, function_call=function_calls, text=texts
)
hosted_tool_calls = st.builds(
    HostedToolCallContent,
    call_id=ids,
    tool_type=texts,
    arguments=optional_json_objects,
    provider=optional_texts,
    raw=optional_json_objects,
)
hosted_tool_results = st.builds(
    HostedToolResultContent,
    call_id=ids,
    tool_type=texts,
    result=json_values,
    provider=optional_texts,
    raw=optional_json_objects,
)
error_contents = st.builds(ErrorContent, message=texts, code=optional_texts, details=optional_texts)
usage_contents = st.builds(UsageContent, usage=usages)

CONTENT_STRATEGIES: dict[str, st.SearchStrategy[Any]] = {
    "TextContent": text_contents,
    "ReasoningContent": reasoning_contents,
    "DataContent": data_contents,
    "UriContent": uri_contents,
    "FunctionCallContent": function_calls,
    "FunctionResultContent": function_results,
    "FunctionApprovalRequestContent": approval_requests,
    "FunctionApprovalResponseContent": approval_responses,
    "UserInputRequestContent": user_input_requests,
    "UserInputResponseContent": user_input_responses,
    "HostedToolCallContent": hosted_tool_calls,
    "HostedToolResultContent": hosted_tool_results,
    "ErrorContent": error_contents,
    "UsageContent": usage_contents,
    "CompactionContent": st.builds(
        CompactionContent,
        start=st.integers(0, 100),
        end=st.integers(0, 100),
        at=st.integers(0, 200),
        summary=optional_texts,
        call_ids=st.lists(ids, max_size=3).map(tuple),
        label=st.none()
        | st.builds(
            ContentLabel,
            st.sampled_from(list(IntegrityLabel)),
            st.sampled_from(list(ConfidentialityLabel)),
        ),
        strategy=texts,
        run_id=optional_ids,
        model=optional_texts,
    ),
}
"""One strategy per content class, by class name."""

contents: st.SearchStrategy[Content] = st.one_of(*CONTENT_STRATEGIES.values())
content_tuples = st.lists(contents, max_size=4).map(tuple)

messages = st.builds(
    Message,
    role=roles,
    contents=content_tuples,
    author_name=optional_texts,
    message_id=optional_ids,
    additional_properties=optional_json_objects,
)
message_tuples = st.lists(messages, max_size=3).map(tuple)

chat_responses: st.SearchStrategy[ChatResponse[Any]] = st.builds(
    ChatResponse,
    messages=message_tuples,
    response_id=optional_ids,
    conversation_id=optional_ids,
    model=optional_texts,
    finish_reason=finish_reasons,
    usage=optional_usages,
    created_at=optional_texts,
    value=json_values,
    additional_properties=optional_json_objects,
)
chat_updates = st.builds(
    ChatResponseUpdate,
    contents=content_tuples,
    role=st.none() | roles,
    author_name=optional_texts,
    response_id=optional_ids,
    message_id=optional_ids,
    conversation_id=optional_ids,
    model=optional_texts,
    finish_reason=finish_reasons,
    created_at=optional_texts,
    additional_properties=optional_json_objects,
)
custom_events = st.builds(CustomEvent, name=texts, data=json_values, source=optional_texts)
agent_responses: st.SearchStrategy[AgentResponse[Any]] = st.builds(
    AgentResponse,
    messages=message_tuples,
    response_id=optional_ids,
    agent_name=optional_texts,
    finish_reason=finish_reasons,
    usage=optional_usages,
    created_at=optional_texts,
    value=json_values,
    events=st.lists(custom_events, max_size=2).map(tuple),
    additional_properties=optional_json_objects,
)
agent_updates = st.builds(
    AgentResponseUpdate,
    contents=content_tuples,
    role=st.none() | roles,
    author_name=optional_texts,
    agent_name=optional_texts,
    response_id=optional_ids,
    message_id=optional_ids,
    finish_reason=finish_reasons,
    created_at=optional_texts,
    event=st.none() | custom_events,
    additional_properties=optional_json_objects,
)

embeddings: st.SearchStrategy[Embedding[list[float]]] = st.builds(
    Embedding,
    vector=st.lists(finite_floats, max_size=6),
    model=optional_texts,
    dimensions=counts,
    created_at=optional_texts,
    additional_properties=optional_json_objects,
)
embedding_options = st.none() | st.fixed_dictionaries(
    {}, optional={"model": texts, "dimensions": st.integers(min_value=1, max_value=4096)}
)


def _generated_embeddings(
    items: list[Embedding[list[float]]],
    options: dict[str, Any] | None,
    usage: Usage | None,
    additional_properties: dict[str, Any] | None,
) -> GeneratedEmbeddings[list[float], Any]:
    return GeneratedEmbeddings(
        items, options=options, usage=usage, additional_properties=additional_properties
    )


generated_embeddings = st.builds(
    _generated_embeddings,
    st.lists(embeddings, max_size=3),
    options=embedding_options,
    usage=optional_usages,
    additional_properties=optional_json_objects,
)

sessions = st.builds(
    AgentSession, session_id=ids, service_conversation_id=optional_ids, state=json_objects
)

web_search_tools = st.builds(WebSearchTool, options=json_objects)
code_interpreter_tools = st.builds(CodeInterpreterTool, options=json_objects)
file_search_tools = st.builds(
    FileSearchTool, vector_store_ids=st.lists(ids, max_size=3).map(tuple), options=json_objects
)
image_generation_tools = st.builds(ImageGenerationTool, options=json_objects)
mcp_tools = st.builds(
    MCPTool,
    name=ids,
    url=texts,
    allowed_tools=st.none() | st.lists(ids, max_size=3).map(tuple),
    headers=st.none() | st.dictionaries(texts, texts, max_size=2),
    approval_mode=st.none() | st.sampled_from(["always_require", "never_require"]),
    options=json_objects,
)
shell_tools = st.builds(ShellTool, options=json_objects)
hosted_tools: st.SearchStrategy[HostedTool] = st.one_of(
    web_search_tools,
    code_interpreter_tools,
    file_search_tools,
    image_generation_tools,
    mcp_tools,
    shell_tools,
)

labels = st.builds(
    ContentLabel,
    integrity=st.sampled_from(IntegrityLabel),
    confidentiality=st.sampled_from(ConfidentialityLabel),
)

VALUE_STRATEGIES: dict[str, st.SearchStrategy[Any]] = {
    **CONTENT_STRATEGIES,
    "Annotation": annotation_values,
    "Message": messages,
    "ChatResponse": chat_responses,
    "ChatResponseUpdate": chat_updates,
    "AgentResponse": agent_responses,
    "AgentResponseUpdate": agent_updates,
    "CustomEvent": custom_events,
    "Usage": usages,
    "Embedding": embeddings,
    "GeneratedEmbeddings": generated_embeddings,
    "AgentSession": sessions,
    "WebSearchTool": web_search_tools,
    "CodeInterpreterTool": code_interpreter_tools,
    "FileSearchTool": file_search_tools,
    "ImageGenerationTool": image_generation_tools,
    "MCPTool": mcp_tools,
    "ShellTool": shell_tools,
    "ContentLabel": labels,
}
"""One strategy per serializable kernel class, by class name."""


# -- conversations: valid transcripts for the compaction properties -------------------------

_words = st.text(alphabet=string.ascii_lowercase + " ", min_size=1, max_size=400).filter(
    lambda t: t.strip() != ""
)


@st.composite
def _step(draw: st.DrawFn, turn: int, number: int) -> list[Message]:
    """One step: maybe a reasoning-only message, calls (parallel ones), their results
    (one tool message each or all in one; some errors)."""
    out: list[Message] = []
    if draw(st.booleans()):
        out.append(Message("assistant", [ReasoningContent("thinking", id=f"rs_{turn}_{number}")]))
    count = draw(st.integers(1, 3))
    calls = [
        FunctionCallContent(call_id=f"t{turn}s{number}c{i}", name="search", arguments='{"q": "x"}')
        for i in range(count)
    ]
    lead = [ReasoningContent("plan", id=f"rr_{turn}_{number}")] if draw(st.booleans()) else []
    out.append(Message("assistant", [*lead, *calls]))
    results = [
        FunctionResultContent(
            call_id=c.call_id,
            result=draw(_words),
            error="failed" if draw(st.integers(0, 4)) == 0 else None,
        )
        for c in calls
    ]
    if draw(st.booleans()):
        out.append(Message("tool", results))
    else:
        out.extend(Message("tool", [r]) for r in results)
    return out


@st.composite
def conversations(draw: st.DrawFn, *, max_turns: int = 8) -> list[Message]:
    """A provider-valid conversation ending with a user message: a system message,
    maybe a summary note, turns of a user message, steps (parallel calls, error
    results, reasoning) and an answer (text, hosted tool calls)."""
    from agentcore.compaction import summary_note

    out: list[Message] = []
    if draw(st.booleans()):
        out.append(Message("system", "be helpful"))
    if draw(st.booleans()):
        out.append(summary_note("earlier: " + draw(_words)))
    turns = draw(st.integers(0, max_turns))
    for turn in range(turns):
        out.append(Message("user", draw(_words)))
        for number in range(draw(st.integers(0, 3))):
            out.extend(draw(_step(turn, number)))
        answer: list[Content] = [TextContent(draw(_words))]
        if draw(st.integers(0, 3)) == 0:
            answer.insert(0, HostedToolCallContent(call_id=f"h{turn}", tool_type="web_search"))
        out.append(Message("assistant", answer))
    out.append(Message("user", draw(_words)))
    return out
