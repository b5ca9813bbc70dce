"""Messages API wire fixtures: whole ``message`` objects and the SSE events of each.

Shapes follow the installed SDK's types (``anthropic.types``); ``test_fixtures.py``
validates every fixture against them. :func:`sse_events` derives the stream the
API sends for a message (``message_start`` with the input usage, one start /
deltas / stop group per block, ``message_delta`` with the final usage), so a
streamed fixture and its non-streamed twin always describe the same answer.
"""

from __future__ import annotations

import json
from typing import Any

from agentcore.tools import tool

MODEL = "claude-wire-test"
"""A model name the SDK has no deprecation warning for, now or later."""

Event = tuple[str | None, dict[str, Any]]


def usage(
    input_tokens: int = 25,
    output_tokens: int = 12,
    *,
    cache_read: int = 0,
    cache_write: int = 0,
    web_search_requests: int | None = None,
    thinking_tokens: int | None = None,
) -> dict[str, Any]:
    """A ``usage`` object."""
    out: dict[str, Any] = {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "cache_creation_input_tokens": cache_write,
        "cache_read_input_tokens": cache_read,
        "service_tier": "standard",
    }
    if web_search_requests is not None:
        out["server_tool_use"] = {
            "web_search_requests": web_search_requests,
            "web_fetch_requests": 0,
        }
    if thinking_tokens is not None:
        out["output_tokens_details"] = {"thinking_tokens": thinking_tokens}
    return out


def message(
    *content: dict[str, Any],
    stop_reason: str = "end_turn",
    message_id: str = "msg_01XFDUDYJgAACzvnptvVoYEL",
    model: str = MODEL,
    usage_: dict[str, Any] | None = None,
    container: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A whole ``message`` object as ``POST /v1/messages`` returns it."""
    out: dict[str, Any] = {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": list(content),
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": usage_ if usage_ is not None else usage(),
    }
    if container is not None:
        out["container"] = container
    return out


def text(value: str, *citations: dict[str, Any]) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "text", "text": value}
    if citations:
        block["citations"] = list(citations)
    return block


def tool_use(call_id: str, name: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": tool_input}


def thinking(value: str, signature: str) -> dict[str, Any]:
    return {"type": "thinking", "thinking": value, "signature": signature}


def redacted_thinking(data: str) -> dict[str, Any]:
    return {"type": "redacted_thinking", "data": data}


def web_citation(url: str, title: str, cited: str) -> dict[str, Any]:
    return {
        "type": "web_search_result_location",
        "url": url,
        "title": title,
        "cited_text": cited,
        "encrypted_index": "EqgfCioIARgBIiQ3YTAw",
    }


def _pieces(value: str, size: int) -> list[str]:
    return [value[i : i + size] for i in range(0, len(value), size)]


_STREAMED_INPUT = {"tool_use", "server_tool_use", "mcp_tool_use"}


def _block_events(index: int, block: dict[str, Any], piece: int) -> list[Event]:
    kind = block["type"]
    events: list[Event] = []

    def delta(body: dict[str, Any]) -> None:
        events.append(
            ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": body})
        )

    if kind == "text":
        start: dict[str, Any] = {"type": "text", "text": ""}
        events.append(_start(index, start))
        for citation in block.get("citations") or ():
            delta({"type": "citations_delta", "citation": citation})
        for part in _pieces(block["text"], piece):
            delta({"type": "text_delta", "text": part})
    elif kind == "thinking":
        events.append(_start(index, {"type": "thinking", "thinking": "", "signature": ""}))
        for part in _pieces(block["thinking"], piece):
            delta({"type": "thinking_delta", "thinking": part})
        delta({"type": "signature_delta", "signature": block["signature"]})
    elif kind in _STREAMED_INPUT:
        events.append(_start(index, {**block, "input": {}}))
        delta({"type": "input_json_delta", "partial_json": ""})
        for part in _pieces(json.dumps(block["input"]), piece):
            delta({"type": "input_json_delta", "partial_json": part})
    else:
        events.append(_start(index, block))
    events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    return events


def _start(index: int, block: dict[str, Any]) -> Event:
    return (
        "content_block_start",
        {"type": "content_block_start", "index": index, "content_block": block},
    )


def sse_events(msg: dict[str, Any], *, piece: int = 5, pings: bool = True) -> list[Event]:
    """The events the API streams for ``msg``; text and JSON cut into ``piece``-char parts."""
    final = msg["usage"]
    start_usage = {k: v for k, v in final.items() if k != "server_tool_use"}
    start_usage["output_tokens"] = 1
    start_usage.pop("output_tokens_details", None)
    start_message: dict[str, Any] = {
        **{k: v for k, v in msg.items() if k != "container"},
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": start_usage,
    }
    events: list[Event] = [("message_start", {"type": "message_start", "message": start_message})]
    if pings:
        events.append(("ping", {"type": "ping"}))
    for index, block in enumerate(msg["content"]):
        events.extend(_block_events(index, block, piece))
    delta_usage: dict[str, Any] = {"output_tokens": final["output_tokens"]}
    for key in ("server_tool_use", "output_tokens_details"):
        if key in final:
            delta_usage[key] = final[key]
    message_delta: dict[str, Any] = {
        "stop_reason": msg["stop_reason"],
        "stop_sequence": msg["stop_sequence"],
    }
    if "container" in msg:
        message_delta["container"] = msg["container"]
    events.append(
        ("message_delta", {"type": "message_delta", "delta": message_delta, "usage": delta_usage})
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return events


@tool
def get_weather(city: str) -> str:
    """Current weather for a city."""
    return f"sunny in {city}"


def error_body(kind: str, text: str) -> dict[str, Any]:
    """An error response body (also the data of a mid-stream ``error`` event)."""
    return {"type": "error", "error": {"type": kind, "message": text}, "request_id": "req_011"}


# -- the catalogue: one message per behaviour ------------------------------------------

TEXT = message(text("Hello! How can I help you today?"))

TOOL_CALL = message(
    text("I'll check the weather in Paris."),
    tool_use("toolu_01A09q90qw90lq917835lq9", "get_weather", {"city": "Paris", "unit": "c"}),
    stop_reason="tool_use",
)

PARALLEL_TOOL_CALLS = message(
    tool_use("toolu_01Paris", "get_weather", {"city": "Paris"}),
    tool_use("toolu_02Tokyo", "get_weather", {"city": "Tokyo", "days": [1, 2, 3]}),
    tool_use("toolu_03Empty", "get_time", {}),
    stop_reason="tool_use",
)

THINKING_TOOL_CALL = message(
    thinking("The user wants Paris weather; I should call the tool.", "EqQBCgIYAhIM1gbcDa9GJwZA"),
    redacted_thinking("EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP"),
    tool_use("toolu_01Think", "get_weather", {"city": "Paris"}),
    stop_reason="tool_use",
    usage_=usage(40, 90, thinking_tokens=70),
)

WEB_SEARCH = message(
    {
        "type": "server_tool_use",
        "id": "srvtoolu_01WYG3ziw53XMcoyKL4XcZmE",
        "name": "web_search",
        "input": {"query": "claude shannon birth date"},
    },
    {
        "type": "web_search_tool_result",
        "tool_use_id": "srvtoolu_01WYG3ziw53XMcoyKL4XcZmE",
        "content": [
            {
                "type": "web_search_result",
                "url": "https://en.wikipedia.org/wiki/Claude_Shannon",
                "title": "Claude Shannon - Wikipedia",
                "encrypted_content": "EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5LTQ1NGUtODgx",
                "page_age": "April 30, 2025",
            }
        ],
    },
    text("Claude Shannon was born on "),
    text(
        "April 30, 1916, in Petoskey, Michigan",
        web_citation(
            "https://en.wikipedia.org/wiki/Claude_Shannon",
            "Claude Shannon - Wikipedia",
            "Claude Elwood Shannon (April 30, 1916 - February 24, 2001)",
        ),
    ),
    text("."),
    usage_=usage(6039, 931, web_search_requests=1),
)

CODE_EXECUTION = message(
    text("Let me compute that."),
    {
        "type": "server_tool_use",
        "id": "srvtoolu_01BashRun",
        "name": "bash_code_execution",
        "input": {"command": "python -c 'print(sum(range(10)))'"},
    },
    {
        "type": "bash_code_execution_tool_result",
        "tool_use_id": "srvtoolu_01BashRun",
        "content": {
            "type": "bash_code_execution_result",
            "stdout": "45\n",
            "stderr": "",
            "return_code": 0,
            "content": [],
        },
    },
    text("The sum is 45."),
    container={"id": "container_011CPR5CNjB747bTd36fQLFk", "expires_at": "2025-05-23T21:13:31Z"},
)

MCP = message(
    {
        "type": "mcp_tool_use",
        "id": "mcptoolu_014Q35RayjACSWkSj4X2yov1",
        "name": "echo",
        "server_name": "example-mcp",
        "input": {"message": "hello"},
    },
    {
        "type": "mcp_tool_result",
        "tool_use_id": "mcptoolu_014Q35RayjACSWkSj4X2yov1",
        "is_error": False,
        "content": [{"type": "text", "text": "hello"}],
    },
    text("The server echoed: hello"),
)

STRUCTURED = message(text('{"city": "Paris", "temperature": 21}'))

CACHED = message(text("Cached answer."), usage_=usage(12, 7, cache_read=1800, cache_write=300))

CATALOGUE: dict[str, dict[str, Any]] = {
    "text": TEXT,
    "tool_call": TOOL_CALL,
    "parallel_tool_calls": PARALLEL_TOOL_CALLS,
    "thinking_tool_call": THINKING_TOOL_CALL,
    "web_search": WEB_SEARCH,
    "code_execution": CODE_EXECUTION,
    "mcp": MCP,
    "structured": STRUCTURED,
    "cached": CACHED,
}
"""Every message fixture, by name."""

BETA_ONLY = frozenset({"mcp"})
"""Fixtures whose blocks exist only in the SDK's beta types (the MCP connector)."""

COUNT_TOKENS = {"input_tokens": 2095}
