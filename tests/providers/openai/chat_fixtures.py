"""Chat Completions wire fixtures: completions and the chunk streams of the same answers."""

from __future__ import annotations

from collections.abc import Sequence

from tests.providers.openai.wire_fixtures import (
    CREATED,
    JSON,
    MODEL,
    TIME_ARGS,
    WEATHER_ARGS,
    Events,
)

# ---------------------------------------------------------------- Chat Completions

CHAT_USAGE: JSON = {
    "prompt_tokens": 42,
    "completion_tokens": 9,
    "total_tokens": 51,
    "prompt_tokens_details": {"cached_tokens": 16, "audio_tokens": 0},
    "completion_tokens_details": {"reasoning_tokens": 4, "audio_tokens": 0},
}


def chat_completion(message: JSON, finish_reason: str, *, cid: str = "chatcmpl-1") -> JSON:
    return {
        "id": cid,
        "object": "chat.completion",
        "created": CREATED,
        "model": MODEL,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": CHAT_USAGE,
        "system_fingerprint": "fp_test",
    }


def chat_chunk(delta: JSON, finish_reason: str | None = None, *, cid: str = "chatcmpl-1") -> JSON:
    return {
        "id": cid,
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": MODEL,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
        "system_fingerprint": "fp_test",
    }


def chat_usage_chunk(*, cid: str = "chatcmpl-1") -> JSON:
    return {
        "id": cid,
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": MODEL,
        "choices": [],
        "usage": CHAT_USAGE,
    }


def chat_stream(chunks: Sequence[JSON]) -> Events:
    """Chat Completions SSE: ``data:`` lines only, closed by ``[DONE]``."""
    return [(None, chunk) for chunk in chunks] + [(None, "[DONE]")]


CHAT_TEXT = chat_completion(
    {"role": "assistant", "content": "Hello there, friend!", "refusal": None}, "stop"
)
CHAT_TEXT_CHUNKS = [
    chat_chunk({"role": "assistant", "content": "", "refusal": None}),
    chat_chunk({"content": "Hello"}),
    chat_chunk({"content": " there,"}),
    chat_chunk({"content": " friend!"}),
    chat_chunk({}, "stop"),
    chat_usage_chunk(),
]


CHAT_TOOL_CALL = chat_completion(
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_weather",
                "type": "function",
                "function": {"name": "get_weather", "arguments": WEATHER_ARGS},
            }
        ],
    },
    "tool_calls",
)
CHAT_TOOL_CALL_CHUNKS = [
    chat_chunk(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "index": 0,
                    "id": "call_weather",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": ""},
                }
            ],
        }
    ),
    chat_chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"city": '}}]}),
    chat_chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"Paris", "unit"'}}]}),
    chat_chunk({"tool_calls": [{"index": 0, "function": {"arguments": ': "celsius"}'}}]}),
    chat_chunk({}, "tool_calls"),
    chat_usage_chunk(),
]

CHAT_PARALLEL = chat_completion(
    {
        "role": "assistant",
        "content": "Checking both.",
        "tool_calls": [
            {
                "id": "call_weather",
                "type": "function",
                "function": {"name": "get_weather", "arguments": WEATHER_ARGS},
            },
            {
                "id": "call_time",
                "type": "function",
                "function": {"name": "get_time", "arguments": TIME_ARGS},
            },
        ],
    },
    "tool_calls",
)


def _call_start(index: int, call_id: str, name: str) -> JSON:
    return chat_chunk(
        {
            "tool_calls": [
                {
                    "index": index,
                    "id": call_id,
                    "type": "function",
                    "function": {"name": name, "arguments": ""},
                }
            ]
        }
    )


def _call_args(index: int, piece: str) -> JSON:
    return chat_chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})


# The two calls' pieces interleave, as they can when a model emits calls in parallel.
CHAT_PARALLEL_CHUNKS = [
    chat_chunk({"role": "assistant", "content": "Checking"}),
    chat_chunk({"content": " both."}),
    _call_start(0, "call_weather", "get_weather"),
    _call_start(1, "call_time", "get_time"),
    _call_args(1, '{"timezone": '),
    _call_args(0, '{"city": "Paris", '),
    _call_args(1, '"Europe/Paris"}'),
    _call_args(0, '"unit": "celsius"}'),
    chat_chunk({}, "tool_calls"),
    chat_usage_chunk(),
]

CHAT_STRUCTURED = chat_completion(
    {"role": "assistant", "content": '{"city": "Paris", "temperature": 21}'}, "stop"
)

CHAT_ANNOTATED = chat_completion(
    {
        "role": "assistant",
        "content": "Paris is sunny today.",
        "annotations": [
            {
                "type": "url_citation",
                "url_citation": {
                    "url": "https://weather.example/paris",
                    "title": "Paris weather",
                    "start_index": 0,
                    "end_index": 21,
                },
            }
        ],
    },
    "stop",
)

CHAT_REFUSAL = chat_completion(
    {"role": "assistant", "content": None, "refusal": "I can't help with that."}, "stop"
)

CHAT_STREAM_ERROR: Events = [
    (None, chat_chunk({"role": "assistant", "content": "Partial"})),
    (
        None,
        {
            "error": {
                "message": "The server had an error while processing your request.",
                "type": "server_error",
                "param": None,
                "code": "server_error",
            }
        },
    ),
]


# Registry for the validation tests.
CHAT_COMPLETIONS = [
    CHAT_TEXT,
    CHAT_TOOL_CALL,
    CHAT_PARALLEL,
    CHAT_STRUCTURED,
    CHAT_ANNOTATED,
    CHAT_REFUSAL,
]
CHAT_CHUNK_STREAMS = [CHAT_TEXT_CHUNKS, CHAT_TOOL_CALL_CHUNKS, CHAT_PARALLEL_CHUNKS]
