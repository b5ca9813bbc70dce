"""OpenAI wire fixtures shared by every API: constants, error bodies, embeddings.

Shapes follow the installed SDK's types (``openai.types``); ``test_fixtures.py``
validates every body and every event here, in ``chat_fixtures`` and in
``responses_fixtures`` against them, so an SDK upgrade that changes a shape
fails loudly. Each streamed fixture has a non-streamed twin with the same
content, so the two modes can be compared.
"""

from __future__ import annotations

import base64
import struct
from collections.abc import Sequence
from typing import Any

JSON = dict[str, Any]
Events = list[tuple[str | None, Any]]

MODEL = "gpt-test-2026-01-01"
CREATED = 1767225600  # 2026-01-01T00:00:00+00:00
RATE_LIMIT_HEADERS = {
    "x-ratelimit-limit-requests": "5000",
    "x-ratelimit-remaining-requests": "4999",
    "x-ratelimit-reset-requests": "12ms",
    "x-ratelimit-limit-tokens": "800000",
    "x-ratelimit-remaining-tokens": "799950",
    "x-ratelimit-reset-tokens": "3ms",
}

WEATHER_ARGS = '{"city": "Paris", "unit": "celsius"}'
TIME_ARGS = '{"timezone": "Europe/Paris"}'

# -------------------------------------------------------------------- Embeddings

VECTORS = [[0.5, -1.25, 3.0], [0.125, 2.5, -0.75]]


def embedding_b64(vector: Sequence[float]) -> str:
    """A vector as the API's base64 encoding: little-endian float32 values."""
    return base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode()


def embeddings(data: list[Any]) -> JSON:
    return {
        "object": "list",
        "model": "text-embedding-test",
        "data": [
            {"object": "embedding", "index": index, "embedding": vector}
            for index, vector in enumerate(data)
        ],
        "usage": {"prompt_tokens": 11, "total_tokens": 11},
    }


EMBEDDINGS_FLOAT = embeddings(VECTORS)
EMBEDDINGS_BASE64 = embeddings([embedding_b64(v) for v in VECTORS])

# ------------------------------------------------------------------------ Errors


def error_body(
    message: str, code: str | None, kind: str = "invalid_request_error", param: str | None = None
) -> JSON:
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}


ERROR_401 = error_body("Incorrect API key provided: sk-test.", "invalid_api_key")
ERROR_404 = error_body(
    "The model `gpt-nope` does not exist or you do not have access to it.", "model_not_found"
)
ERROR_429 = error_body(
    "Rate limit reached for gpt-test on tokens per min (TPM).", "rate_limit_exceeded", "tokens"
)
ERROR_QUOTA = error_body(
    "You exceeded your current quota, please check your plan and billing details.",
    "insufficient_quota",
    "insufficient_quota",
)
ERROR_CONTEXT = error_body(
    "This model's maximum context length is 128000 tokens. However, your messages "
    "resulted in 130000 tokens. Please reduce the length of the messages.",
    "context_length_exceeded",
    param="messages",
)
ERROR_CONTENT_FILTER = error_body(
    "The response was filtered due to the prompt triggering content management policy.",
    "content_filter",
    param="prompt",
)
ERROR_CONTENT_POLICY = error_body(
    "Your request was rejected as a result of our safety system.", "content_policy_violation"
)
ERROR_BAD_REQUEST = error_body(
    "Invalid value for 'temperature'.", "invalid_value", param="temperature"
)
ERROR_500 = error_body("The server had an error processing your request.", None, "server_error")

ERROR_BODIES = [
    ERROR_401,
    ERROR_404,
    ERROR_429,
    ERROR_QUOTA,
    ERROR_CONTEXT,
    ERROR_CONTENT_FILTER,
    ERROR_CONTENT_POLICY,
    ERROR_BAD_REQUEST,
    ERROR_500,
]
