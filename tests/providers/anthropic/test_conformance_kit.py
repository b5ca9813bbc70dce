"""agentcore's adapter conformance kit, run against AnthropicChatClient over the wire."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import anthropic
import httpx2
import pytest
from agentcore_anthropic import AnthropicChatClient

from agentcore import ChatResponse, FunctionCallContent, ReasoningContent, TextContent
from agentcore.testing.conformance import (
    ChatClientConformance,
    ConformanceHarness,
    Scenario,
    SentRequest,
)
from tests.providers.anthropic.fixtures import (
    error_body,
    message,
    sse_events,
    text,
    thinking,
    tool_use,
)
from tests.providers.anthropic.replies import MESSAGES, QuickWireServer, json_reply
from tests.providers.wire_server import Reply

_STOP_REASONS = {"stop": "end_turn", "length": "max_tokens", "tool_calls": "tool_use"}
_ERRORS: dict[str, tuple[int, str, str]] = {
    "authentication": (401, "authentication_error", "invalid x-api-key"),
    "rate_limited": (429, "rate_limit_error", "Number of request tokens has exceeded your limit"),
    "context_length": (400, "invalid_request_error", "prompt is too long: 210000 tokens"),
    "invalid_request": (400, "invalid_request_error", "messages: roles must alternate"),
    "model_not_found": (404, "not_found_error", "model: conformance-model"),
    "transient": (529, "overloaded_error", "Overloaded"),
}


def _wire_message(response: ChatResponse[Any]) -> dict[str, Any]:
    blocks: list[dict[str, Any]] = []
    for content in response.messages[0].contents:
        if isinstance(content, ReasoningContent):
            blocks.append(thinking(content.text, content.protected_data or ""))
        elif isinstance(content, TextContent):
            blocks.append(text(content.text))
        elif isinstance(content, FunctionCallContent):
            blocks.append(tool_use(content.call_id, content.name, content.parse_arguments()))
    usage = response.usage
    assert usage is not None
    return message(
        *blocks,
        stop_reason=_STOP_REASONS[response.finish_reason or "stop"],
        message_id=response.response_id or "msg_conformance",
        model=response.model or "conformance-model",
        usage_={"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens},
    )


def _result_text(content: str | list[dict[str, Any]]) -> str:
    if isinstance(content, str):
        return content
    return "".join(block.get("text", "") for block in content)


class AnthropicHarness:
    """Serves the kit's scenarios as Messages API JSON and SSE from a local server."""

    def __init__(self) -> None:
        self.server = QuickWireServer().start()
        # No kept-alive connections: nothing is left open when a test ends.
        http = httpx2.AsyncClient(limits=httpx2.Limits(max_keepalive_connections=0))
        sdk = anthropic.AsyncAnthropic(
            api_key="sk-ant-test", base_url=self.server.base_url, max_retries=0, http_client=http
        )
        self._client = AnthropicChatClient("conformance-model", client=sdk)

    def client(self) -> AnthropicChatClient:
        return self._client

    def serve(self, scenario: Scenario, *, stream: bool) -> None:
        if scenario.error is not None:
            status, kind, detail = _ERRORS[scenario.error]
            headers = {"retry-after": str(scenario.retry_after)} if scenario.retry_after else None
            self.server.add(
                "POST", MESSAGES, json_reply(error_body(kind, detail), status, headers=headers)
            )
            return
        assert scenario.response is not None
        wire = _wire_message(scenario.response)
        if not stream:
            self.server.add("POST", MESSAGES, json_reply(wire))
        elif scenario.chunks:
            events = sse_events(wire, piece=5)
            self.server.add("POST", MESSAGES, Reply(sse=events, chunk_size=32, delay=0.002))
        else:
            self.server.add("POST", MESSAGES, Reply(sse=sse_events(wire, piece=7)))

    def connection_closed(self, timeout: float) -> bool:
        return self.server.disconnected.wait(timeout)

    def sent_call_ids(self, request_index: int) -> tuple[set[str], set[str]]:
        body = json.loads(self.server.requests[request_index].body)
        blocks = [
            b for m in body["messages"] if isinstance(m["content"], list) for b in m["content"]
        ]
        calls = {b["id"] for b in blocks if b["type"] == "tool_use"}
        results = {b["tool_use_id"] for b in blocks if b["type"] == "tool_result"}
        return calls, results

    def sent_request(self, request_index: int) -> SentRequest:
        body = json.loads(self.server.requests[request_index].body)
        system = body.get("system")
        if isinstance(system, list):
            system = "\n".join(block["text"] for block in system)
        blocks = [
            b for m in body["messages"] if isinstance(m["content"], list) for b in m["content"]
        ]
        choice = body.get("tool_choice")
        output_format = body.get("output_config", {}).get("format")
        return SentRequest(
            instructions=system,
            tools={
                t["name"]: t["input_schema"] for t in body.get("tools", ()) if "input_schema" in t
            },
            tool_choice=None
            if choice is None
            else choice.get("name") or {"any": "required"}.get(choice["type"], choice["type"]),
            response_format=output_format["schema"] if output_format else None,
            function_results={
                b["tool_use_id"]: _result_text(b["content"])
                for b in blocks
                if b["type"] == "tool_result"
            },
            reasoning=tuple(
                b.get("signature") or b.get("data", "")
                for b in blocks
                if b["type"] in ("thinking", "redacted_thinking")
            ),
        )

    def close(self) -> None:
        self.server.stop()


class TestAnthropicConformance(ChatClientConformance):
    @pytest.fixture
    def harness(self) -> Iterator[ConformanceHarness]:
        harness = AnthropicHarness()
        yield harness
        harness.close()
