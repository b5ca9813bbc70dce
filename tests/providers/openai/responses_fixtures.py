"""Responses API wire fixtures: responses, and the SSE events that stream the same output."""

from __future__ import annotations

import base64
from collections.abc import Sequence

from tests.providers.openai.wire_fixtures import (
    CREATED,
    JSON,
    MODEL,
    TIME_ARGS,
    WEATHER_ARGS,
    Events,
)

# ----------------------------------------------------------------- Responses API

RESPONSES_USAGE: JSON = {
    "input_tokens": 120,
    "input_tokens_details": {"cached_tokens": 64, "cache_write_tokens": 8},
    "output_tokens": 38,
    "output_tokens_details": {"reasoning_tokens": 20},
    "total_tokens": 158,
}


def response(
    rid: str,
    output: list[JSON],
    *,
    status: str = "completed",
    usage: JSON | None = RESPONSES_USAGE,
    error: JSON | None = None,
    incomplete_details: JSON | None = None,
) -> JSON:
    return {
        "id": rid,
        "object": "response",
        "created_at": CREATED,
        "status": status,
        "model": MODEL,
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": usage,
        "error": error,
        "incomplete_details": incomplete_details,
        "instructions": None,
        "metadata": {},
        "temperature": 1.0,
        "top_p": 1.0,
    }


def output_message(mid: str, parts: list[JSON], status: str = "completed") -> JSON:
    return {"id": mid, "type": "message", "role": "assistant", "status": status, "content": parts}


def output_text(text: str, annotations: list[JSON] | None = None) -> JSON:
    return {"type": "output_text", "text": text, "annotations": annotations or [], "logprobs": []}


def function_call(
    item_id: str, call_id: str, name: str, arguments: str, status: str = "completed"
) -> JSON:
    return {
        "id": item_id,
        "type": "function_call",
        "call_id": call_id,
        "name": name,
        "arguments": arguments,
        "status": status,
    }


def reasoning(item_id: str, summaries: list[str], encrypted: str | None) -> JSON:
    item: JSON = {
        "id": item_id,
        "type": "reasoning",
        "summary": [{"type": "summary_text", "text": s} for s in summaries],
    }
    if encrypted is not None:
        item["encrypted_content"] = encrypted
    return item


def sse(events: Sequence[JSON]) -> Events:
    """Responses API SSE: each event named by its type and numbered in order."""
    return [
        (event["type"], {**event, "sequence_number": number}) for number, event in enumerate(events)
    ]


def created(rid: str) -> list[JSON]:
    shell = response(rid, [], status="in_progress", usage=None)
    return [
        {"type": "response.created", "response": shell},
        {"type": "response.in_progress", "response": shell},
    ]


def completed(body: JSON) -> JSON:
    kind = {"failed": "response.failed", "incomplete": "response.incomplete"}.get(
        body["status"], "response.completed"
    )
    return {"type": kind, "response": body}


def text_item_events(index: int, item: JSON, pieces: list[str]) -> list[JSON]:
    """The events of one streamed message item with one output_text part."""
    mid = item["id"]
    part = item["content"][0]
    events: list[JSON] = [
        {
            "type": "response.output_item.added",
            "output_index": index,
            "item": {**item, "status": "in_progress", "content": []},
        },
        {
            "type": "response.content_part.added",
            "item_id": mid,
            "output_index": index,
            "content_index": 0,
            "part": {"type": "output_text", "text": "", "annotations": [], "logprobs": []},
        },
    ]
    for piece in pieces:
        events.append(
            {
                "type": "response.output_text.delta",
                "item_id": mid,
                "output_index": index,
                "content_index": 0,
                "delta": piece,
                "logprobs": [],
            }
        )
    for number, annotation in enumerate(part["annotations"]):
        events.append(
            {
                "type": "response.output_text.annotation.added",
                "item_id": mid,
                "output_index": index,
                "content_index": 0,
                "annotation_index": number,
                "annotation": annotation,
            }
        )
    events += [
        {
            "type": "response.output_text.done",
            "item_id": mid,
            "output_index": index,
            "content_index": 0,
            "text": part["text"],
            "logprobs": [],
        },
        {
            "type": "response.content_part.done",
            "item_id": mid,
            "output_index": index,
            "content_index": 0,
            "part": part,
        },
        {"type": "response.output_item.done", "output_index": index, "item": item},
    ]
    return events


def call_item_events(index: int, item: JSON, pieces: list[str]) -> list[JSON]:
    """The events of one streamed function_call item."""
    events: list[JSON] = [
        {
            "type": "response.output_item.added",
            "output_index": index,
            "item": {**item, "arguments": "", "status": "in_progress"},
        }
    ]
    for piece in pieces:
        events.append(
            {
                "type": "response.function_call_arguments.delta",
                "item_id": item["id"],
                "output_index": index,
                "delta": piece,
            }
        )
    events += [
        {
            "type": "response.function_call_arguments.done",
            "item_id": item["id"],
            "output_index": index,
            "arguments": item["arguments"],
        },
        {"type": "response.output_item.done", "output_index": index, "item": item},
    ]
    return events


def reasoning_item_events(index: int, item: JSON, pieces: list[list[str]]) -> list[JSON]:
    """The events of one streamed reasoning item (``pieces`` per summary part)."""
    rid = item["id"]
    events: list[JSON] = [
        {
            "type": "response.output_item.added",
            "output_index": index,
            "item": {"id": rid, "type": "reasoning", "summary": []},
        }
    ]
    for summary_index, part_pieces in enumerate(pieces):
        text = "".join(part_pieces)
        events.append(
            {
                "type": "response.reasoning_summary_part.added",
                "item_id": rid,
                "output_index": index,
                "summary_index": summary_index,
                "part": {"type": "summary_text", "text": ""},
            }
        )
        for piece in part_pieces:
            events.append(
                {
                    "type": "response.reasoning_summary_text.delta",
                    "item_id": rid,
                    "output_index": index,
                    "summary_index": summary_index,
                    "delta": piece,
                }
            )
        events += [
            {
                "type": "response.reasoning_summary_text.done",
                "item_id": rid,
                "output_index": index,
                "summary_index": summary_index,
                "text": text,
            },
            {
                "type": "response.reasoning_summary_part.done",
                "item_id": rid,
                "output_index": index,
                "summary_index": summary_index,
                "part": {"type": "summary_text", "text": text},
            },
        ]
    events.append({"type": "response.output_item.done", "output_index": index, "item": item})
    return events


def whole_item_events(index: int, item: JSON, extra: list[JSON] | None = None) -> list[JSON]:
    """Added / (progress events) / done for an item that does not stream deltas."""
    return [
        {
            "type": "response.output_item.added",
            "output_index": index,
            "item": {**item, "status": "in_progress"} if "status" in item else item,
        },
        *(extra or []),
        {"type": "response.output_item.done", "output_index": index, "item": item},
    ]


# Plain text.
RESP_TEXT_MESSAGE = output_message("msg_1", [output_text("Hello there, friend!")])
RESP_TEXT = response("resp_text", [RESP_TEXT_MESSAGE])
RESP_TEXT_EVENTS = sse(
    [
        *created("resp_text"),
        *text_item_events(0, RESP_TEXT_MESSAGE, ["Hel", "lo there,", " friend!"]),
        completed(RESP_TEXT),
    ]
)

# Reasoning (two summary parts, encrypted content) followed by one function call.
ENCRYPTED = "gAAAAABencrypted-reasoning-payload=="
RESP_REASONING_ITEM = reasoning(
    "rs_1", ["Need the weather.", "Call get_weather for Paris."], ENCRYPTED
)
RESP_CALL_ITEM = function_call("fc_1", "call_weather", "get_weather", WEATHER_ARGS)
RESP_TOOL_CALL = response("resp_call", [RESP_REASONING_ITEM, RESP_CALL_ITEM])
RESP_TOOL_CALL_EVENTS = sse(
    [
        *created("resp_call"),
        *reasoning_item_events(
            0, RESP_REASONING_ITEM, [["Need the ", "weather."], ["Call get_weather", " for Paris."]]
        ),
        *call_item_events(1, RESP_CALL_ITEM, ['{"city": ', '"Paris", "unit": ', '"celsius"}']),
        completed(RESP_TOOL_CALL),
    ]
)

# Two function calls in one turn.
RESP_TIME_ITEM = function_call("fc_2", "call_time", "get_time", TIME_ARGS)
RESP_PARALLEL = response("resp_parallel", [RESP_CALL_ITEM, RESP_TIME_ITEM])
RESP_PARALLEL_EVENTS = sse(
    [
        *created("resp_parallel"),
        *call_item_events(0, RESP_CALL_ITEM, ['{"city": "Paris", ', '"unit": "celsius"}']),
        *call_item_events(1, RESP_TIME_ITEM, ['{"timezone": ', '"Europe/Paris"}']),
        completed(RESP_PARALLEL),
    ]
)

# Every hosted tool, then an answer citing a web page.
WEB_SEARCH_ITEM: JSON = {
    "id": "ws_1",
    "type": "web_search_call",
    "status": "completed",
    "action": {
        "type": "search",
        "query": "paris weather today",
        "sources": [{"type": "url", "url": "https://weather.example/paris"}],
    },
}
FILE_SEARCH_ITEM: JSON = {
    "id": "fs_1",
    "type": "file_search_call",
    "status": "completed",
    "queries": ["travel policy"],
    "results": [
        {
            "file_id": "file-abc",
            "filename": "policy.pdf",
            "score": 0.92,
            "text": "Book trains.",
            "attributes": {},
        }
    ],
}
CODE_ITEM: JSON = {
    "id": "ci_1",
    "type": "code_interpreter_call",
    "status": "completed",
    "code": "print(6 * 7)",
    "container_id": "cntr_1",
    "outputs": [{"type": "logs", "logs": "42\n"}],
}
IMAGE_B64 = base64.b64encode(b"\x89PNG\r\n\x1a\nfake").decode()
IMAGE_ITEM: JSON = {
    "id": "ig_1",
    "type": "image_generation_call",
    "status": "completed",
    "result": IMAGE_B64,
    "revised_prompt": "A sunny Paris street",
}
MCP_LIST_ITEM: JSON = {
    "id": "mcpl_1",
    "type": "mcp_list_tools",
    "server_label": "docs",
    "tools": [
        {
            "name": "search_docs",
            "input_schema": {"type": "object", "properties": {}},
            "description": "Search",
        }
    ],
}
MCP_CALL_ITEM: JSON = {
    "id": "mcp_1",
    "type": "mcp_call",
    "server_label": "docs",
    "name": "search_docs",
    "arguments": '{"q": "trains"}',
    "output": "Trains are preferred.",
    "status": "completed",
}
MCP_APPROVAL_ITEM: JSON = {
    "id": "mcpr_1",
    "type": "mcp_approval_request",
    "server_label": "docs",
    "name": "delete_doc",
    "arguments": '{"id": 7}',
}
SHELL_CALL_ITEM: JSON = {
    "id": "sh_1",
    "type": "shell_call",
    "call_id": "call_shell",
    "status": "completed",
    "action": {"commands": ["ls /mnt/data"], "timeout_ms": 10000},
}
SHELL_OUTPUT_ITEM: JSON = {
    "id": "sho_1",
    "type": "shell_call_output",
    "call_id": "call_shell",
    "status": "completed",
    "output": [
        {"stdout": "report.csv\n", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}
    ],
}
CITATION: JSON = {
    "type": "url_citation",
    "url": "https://weather.example/paris",
    "title": "Paris weather",
    "start_index": 0,
    "end_index": 21,
}
RESP_HOSTED_MESSAGE = output_message("msg_h", [output_text("Paris is sunny today.", [CITATION])])
HOSTED_ITEMS = [
    WEB_SEARCH_ITEM,
    FILE_SEARCH_ITEM,
    CODE_ITEM,
    IMAGE_ITEM,
    MCP_LIST_ITEM,
    MCP_CALL_ITEM,
    SHELL_CALL_ITEM,
    SHELL_OUTPUT_ITEM,
]
RESP_HOSTED = response("resp_hosted", [*HOSTED_ITEMS, RESP_HOSTED_MESSAGE])
RESP_HOSTED_EVENTS = sse(
    [
        *created("resp_hosted"),
        *whole_item_events(
            0,
            WEB_SEARCH_ITEM,
            [{"type": "response.web_search_call.searching", "item_id": "ws_1", "output_index": 0}],
        ),
        *whole_item_events(1, FILE_SEARCH_ITEM),
        *whole_item_events(2, CODE_ITEM),
        *whole_item_events(
            3,
            IMAGE_ITEM,
            [
                {
                    "type": "response.image_generation_call.partial_image",
                    "item_id": "ig_1",
                    "output_index": 3,
                    "partial_image_b64": IMAGE_B64,
                    "partial_image_index": 0,
                }
            ],
        ),
        *whole_item_events(4, MCP_LIST_ITEM),
        *whole_item_events(
            5,
            MCP_CALL_ITEM,
            [
                {
                    "type": "response.mcp_call_arguments.delta",
                    "item_id": "mcp_1",
                    "output_index": 5,
                    "delta": '{"q": "trains"}',
                }
            ],
        ),
        *whole_item_events(6, SHELL_CALL_ITEM),
        *whole_item_events(7, SHELL_OUTPUT_ITEM),
        *text_item_events(8, RESP_HOSTED_MESSAGE, ["Paris is ", "sunny today."]),
        completed(RESP_HOSTED),
    ]
)

RESP_MCP_APPROVAL = response("resp_approval", [MCP_APPROVAL_ITEM])

# File citations and a generated file's path.
RESP_FILE_ANNOTATIONS = response(
    "resp_files",
    [
        output_message(
            "msg_files",
            [
                output_text(
                    "See policy.pdf and the chart.",
                    [
                        {
                            "type": "file_citation",
                            "file_id": "file-abc",
                            "filename": "policy.pdf",
                            "index": 4,
                        },
                        {
                            "type": "container_file_citation",
                            "container_id": "cntr_1",
                            "file_id": "cfile-1",
                            "filename": "chart.png",
                            "start_index": 20,
                            "end_index": 29,
                        },
                        {"type": "file_path", "file_id": "file-out", "index": 24},
                    ],
                )
            ],
        )
    ],
)

# Cut off by max_output_tokens.
RESP_INCOMPLETE_MESSAGE = output_message("msg_i", [output_text("The long answer")], "incomplete")
RESP_INCOMPLETE = response(
    "resp_incomplete",
    [RESP_INCOMPLETE_MESSAGE],
    status="incomplete",
    incomplete_details={"reason": "max_output_tokens"},
)
RESP_INCOMPLETE_EVENTS = sse(
    [
        *created("resp_incomplete"),
        *text_item_events(0, RESP_INCOMPLETE_MESSAGE, ["The long", " answer"]),
        completed(RESP_INCOMPLETE),
    ]
)

# Failed on the service after some output.
RESP_FAILED_MESSAGE = output_message("msg_f", [output_text("Partial")], "incomplete")
RESP_FAILED = response(
    "resp_failed",
    [RESP_FAILED_MESSAGE],
    status="failed",
    error={"code": "server_error", "message": "The model failed to finish."},
)
RESP_FAILED_EVENTS = sse(
    [
        *created("resp_failed"),
        *text_item_events(0, RESP_FAILED_MESSAGE, ["Part", "ial"]),
        completed(RESP_FAILED),
    ]
)

# An ``error`` event in the middle of a stream.
RESP_ERROR_EVENTS = sse(
    [
        *created("resp_error"),
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": output_message("msg_e", [], "in_progress"),
        },
        {
            "type": "response.output_text.delta",
            "item_id": "msg_e",
            "output_index": 0,
            "content_index": 0,
            "delta": "Partial",
            "logprobs": [],
        },
        {
            "type": "error",
            "code": "rate_limit_exceeded",
            "message": "Rate limit reached during generation.",
            "param": None,
        },
    ]
)


def many_text_events(rid: str, count: int) -> Events:
    """A long text stream (to see a client hang up part way)."""
    message = output_message("msg_long", [output_text("x" * count)])
    return sse(
        [
            *created(rid),
            *text_item_events(0, message, ["x"] * count),
            completed(response(rid, [message])),
        ]
    )


INPUT_TOKENS: JSON = {"object": "response.input_tokens", "input_tokens": 321}


# Registries for the validation tests.
RESPONSES = [
    RESP_TEXT,
    RESP_TOOL_CALL,
    RESP_PARALLEL,
    RESP_HOSTED,
    RESP_MCP_APPROVAL,
    RESP_FILE_ANNOTATIONS,
    RESP_INCOMPLETE,
    RESP_FAILED,
]
RESPONSE_EVENT_STREAMS = [
    RESP_TEXT_EVENTS,
    RESP_TOOL_CALL_EVENTS,
    RESP_PARALLEL_EVENTS,
    RESP_HOSTED_EVENTS,
    RESP_INCOMPLETE_EVENTS,
    RESP_FAILED_EVENTS,
    RESP_ERROR_EVENTS,
    many_text_events("resp_long", 5),
]
