"""A conformance harness for the guide's example adapter: the kit's scenarios as Chat
Completions JSON and SSE, served by the project's recording wire server.

This is the harness ``docs/provider-guide.md`` shows; it is what a provider author
writes for their own wire format.
"""

from __future__ import annotations

from typing import Any

from agentcore import ChatResponse, FunctionCallContent, SupportsGetResponse, TextContent
from agentcore.testing.conformance import ErrorKind, Scenario, SentRequest
from tests.provider_guide.example import load_example
from tests.providers.wire_server import Reply, WireServer

__all__ = ["CHAT_PATH", "ERRORS", "CompatibleHarness", "completion", "stream_chunks"]

CHAT_PATH = "/v1/chat/completions"
CREATED = 1767225600

# How an OpenAI-compatible server fails, per kind: status, error type and code, message.
ERRORS: dict[ErrorKind, tuple[int, str, str, str]] = {
    "authentication": (401, "invalid_request_error", "invalid_api_key", "Incorrect API key"),
    "rate_limited": (429, "requests", "rate_limit_exceeded", "Rate limit reached for requests"),
    "context_length": (
        400,
        "invalid_request_error",
        "context_length_exceeded",
        "This model's maximum context length is 4096 tokens; you requested 5120 tokens.",
    ),
    "invalid_request": (400, "invalid_request_error", "invalid_value", "'messages' is empty"),
    "model_not_found": (
        404,
        "invalid_request_error",
        "model_not_found",
        "The model `conformance-model` does not exist",
    ),
    "transient": (503, "server_error", "server_error", "The server is overloaded"),
}


def _parts(response: ChatResponse[Any]) -> tuple[str, list[FunctionCallContent]]:
    contents = [c for m in response.messages for c in m.contents]
    text = "".join(c.text for c in contents if isinstance(c, TextContent))
    return text, [c for c in contents if isinstance(c, FunctionCallContent)]


def _arguments(call: FunctionCallContent) -> str:
    assert isinstance(call.arguments, str), "the kit's scenarios carry JSON string arguments"
    return call.arguments


def _usage(response: ChatResponse[Any]) -> dict[str, Any]:
    usage = response.usage
    assert usage is not None, "every kit scenario reports usage"
    return {
        "prompt_tokens": usage.input_tokens,
        "completion_tokens": usage.output_tokens,
        "total_tokens": usage.total_tokens,
    }


def completion(response: ChatResponse[Any]) -> dict[str, Any]:
    """``response`` as a whole ``chat.completion`` body."""
    text, calls = _parts(response)
    message: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        message["tool_calls"] = [
            {
                "id": call.call_id,
                "type": "function",
                "function": {"name": call.name, "arguments": _arguments(call)},
            }
            for call in calls
        ]
    return {
        "id": response.response_id,
        "object": "chat.completion",
        "created": CREATED,
        "model": response.model,
        "choices": [{"index": 0, "message": message, "finish_reason": response.finish_reason}],
        "usage": _usage(response),
    }


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def stream_chunks(response: ChatResponse[Any], *, piece: int) -> list[dict[str, Any]]:
    """``response`` as ``chat.completion.chunk`` objects: text and arguments cut into
    ``piece``-character deltas, each call opened by a chunk with its id and name, then
    the finish reason and, last, a usage chunk with no choices."""
    text, calls = _parts(response)
    deltas: list[dict[str, Any]] = [{"role": "assistant", "content": ""}]
    deltas += [{"content": p} for p in _pieces(text, piece)]
    for index, call in enumerate(calls):
        opening = {"index": index, "id": call.call_id, "type": "function"}
        deltas.append({"tool_calls": [{**opening, "function": {"name": call.name}}]})
        deltas += [
            {"tool_calls": [{"index": index, "function": {"arguments": p}}]}
            for p in _pieces(_arguments(call), piece)
        ]
    choices: list[dict[str, Any]] = [
        {"index": 0, "delta": delta, "finish_reason": None} for delta in deltas
    ]
    choices.append({"index": 0, "delta": {}, "finish_reason": response.finish_reason})
    base: dict[str, Any] = {
        "id": response.response_id,
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": response.model,
    }
    chunks = [{**base, "choices": [choice]} for choice in choices]
    chunks.append({**base, "choices": [], "usage": _usage(response)})
    return chunks


def error_body(kind: ErrorKind) -> tuple[int, dict[str, Any]]:
    """The status and JSON body a server answers with for ``kind``."""
    status, error_type, code, message = ERRORS[kind]
    return status, {"error": {"message": message, "type": error_type, "param": None, "code": code}}


class CompatibleHarness:
    """Builds the example adapter against a local wire server and serves scenarios."""

    def __init__(self) -> None:
        self.server = WireServer().start()
        adapter_class = load_example().OpenAICompatibleChatClient
        self._client = adapter_class(
            "conformance-model", base_url=f"{self.server.base_url}/v1", api_key="test-key"
        )

    def client(self) -> SupportsGetResponse[Any]:
        client: SupportsGetResponse[Any] = self._client
        return client

    def serve(self, scenario: Scenario, *, stream: bool) -> None:
        if scenario.error is not None:
            status, body = error_body(scenario.error)
            headers = {"retry-after": str(scenario.retry_after)} if scenario.retry_after else {}
            self.server.add(
                "POST", CHAT_PATH, Reply(status=status, json_body=body, headers=headers)
            )
            return
        assert scenario.response is not None
        if not stream:
            self.server.add("POST", CHAT_PATH, Reply(json_body=completion(scenario.response)))
            return
        # A long stream is cut small and sent slowly, so the client leaves mid-stream and
        # the server's next write sees the closed connection.
        piece, chunk_size, delay = (5, 32, 0.002) if scenario.chunks else (7, None, 0.0)
        chunks = stream_chunks(scenario.response, piece=piece)
        events: list[tuple[str | None, Any]] = [(None, chunk) for chunk in chunks]
        events.append((None, "[DONE]"))
        self.server.add("POST", CHAT_PATH, Reply(sse=events, chunk_size=chunk_size, delay=delay))

    def connection_closed(self, timeout: float) -> bool:
        return self.server.disconnected.wait(timeout)

    def sent_call_ids(self, request_index: int) -> tuple[set[str], set[str]]:
        messages: list[dict[str, Any]] = self.server.requests[request_index].json["messages"]
        calls = {call["id"] for m in messages for call in m.get("tool_calls") or ()}
        results = {m["tool_call_id"] for m in messages if m["role"] == "tool"}
        return calls, results

    def sent_request(self, request_index: int) -> SentRequest:
        body: dict[str, Any] = self.server.requests[request_index].json
        messages: list[dict[str, Any]] = body["messages"]
        system = [m["content"] for m in messages if m["role"] == "system"]
        choice = body.get("tool_choice")
        response_format = body.get("response_format")
        return SentRequest(
            instructions="\n".join(system) if system else None,
            tools={
                t["function"]["name"]: t["function"]["parameters"] for t in body.get("tools", ())
            },
            tool_choice=choice if not isinstance(choice, dict) else choice["function"]["name"],
            response_format=response_format["json_schema"]["schema"] if response_format else None,
            function_results={
                m["tool_call_id"]: m["content"] for m in messages if m["role"] == "tool"
            },
            reasoning=None,  # Chat Completions takes no reasoning back
        )

    async def close(self) -> None:
        await self._client.aclose()
        self.server.stop()
