"""agentcore's adapter conformance kit, run against both OpenAI chat clients over the wire."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from agentcore_openai import OpenAIChatClient, OpenAIResponsesClient

from agentcore import (
    ChatResponse,
    FunctionCallContent,
    ReasoningContent,
    SupportsGetResponse,
    TextContent,
)
from agentcore.testing.conformance import ChatClientConformance, Scenario, SentRequest
from tests.providers.openai import chat_fixtures as chat_fx
from tests.providers.openai import responses_fixtures as resp_fx
from tests.providers.openai import wire_fixtures as fx
from tests.providers.openai.conftest import QuickStopWireServer
from tests.providers.wire_server import Reply

_ERRORS: dict[str, tuple[int, dict[str, Any]]] = {
    "authentication": (401, fx.ERROR_401),
    "rate_limited": (429, fx.ERROR_429),
    "context_length": (400, fx.ERROR_CONTEXT),
    "invalid_request": (400, fx.ERROR_BAD_REQUEST),
    "model_not_found": (404, fx.ERROR_404),
    "transient": (503, fx.ERROR_500),
}


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def _tool_choice(choice: Any) -> str | None:
    """``tool_choice`` as sent, in the kit's terms: a mode, or the one forced function."""
    if choice is None or isinstance(choice, str):
        return choice
    function = choice.get("function") or choice
    return str(function["name"])


def _parts(response: ChatResponse[Any]) -> tuple[str, list[FunctionCallContent]]:
    contents = response.messages[0].contents
    text = "".join(c.text for c in contents if isinstance(c, TextContent))
    calls = [c for c in contents if isinstance(c, FunctionCallContent)]
    return text, calls


class _Harness:
    """What both harnesses share: the server, errors and the hang-up check."""

    path = ""
    client_: OpenAIChatClient | OpenAIResponsesClient

    def __init__(self) -> None:
        self.server = QuickStopWireServer().start()
        self.base_url = f"{self.server.base_url}/v1"

    def serve(self, scenario: Scenario, *, stream: bool) -> None:
        if scenario.error is not None:
            status, body = _ERRORS[scenario.error]
            headers = {"retry-after": str(scenario.retry_after)} if scenario.retry_after else {}
            self.server.add(
                "POST", self.path, Reply(status=status, json_body=body, headers=headers)
            )
            return
        assert scenario.response is not None
        if not stream:
            self.server.add("POST", self.path, Reply(json_body=self.whole(scenario.response)))
        elif scenario.chunks:
            events = self.events(scenario.response, piece=5)
            self.server.add("POST", self.path, Reply(sse=events, chunk_size=32, delay=0.002))
        else:
            self.server.add("POST", self.path, Reply(sse=self.events(scenario.response, piece=7)))

    def whole(self, response: ChatResponse[Any]) -> dict[str, Any]:
        raise NotImplementedError("each API's harness encodes a whole response its own way")

    def events(self, response: ChatResponse[Any], *, piece: int) -> fx.Events:
        raise NotImplementedError("each API's harness encodes its own event stream")

    async def close(self) -> None:
        await self.client_.aclose()
        self.server.stop()

    def connection_closed(self, timeout: float) -> bool:
        return self.server.disconnected.wait(timeout)

    def sent(self, request_index: int) -> dict[str, Any]:
        body: dict[str, Any] = json.loads(self.server.requests[request_index].body)
        return body


class ChatCompletionsHarness(_Harness):
    """Serves the kit's scenarios as Chat Completions JSON and SSE."""

    path = "/v1/chat/completions"

    def __init__(self) -> None:
        super().__init__()
        self.client_ = OpenAIChatClient("gpt-test", api_key="sk-test", base_url=self.base_url)

    def client(self) -> SupportsGetResponse[Any]:
        return self.client_

    def _usage(self, response: ChatResponse[Any]) -> dict[str, Any]:
        usage = response.usage
        assert usage is not None
        return {
            "prompt_tokens": usage.input_tokens,
            "completion_tokens": usage.output_tokens,
            "total_tokens": usage.total_tokens,
        }

    def whole(self, response: ChatResponse[Any]) -> dict[str, Any]:
        text, calls = _parts(response)
        message: dict[str, Any] = {"role": "assistant", "content": text or None}
        if calls:
            message["tool_calls"] = [
                {
                    "id": c.call_id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments},
                }
                for c in calls
            ]
        body = chat_fx.chat_completion(
            message, response.finish_reason or "stop", cid=response.response_id or "chatcmpl-1"
        )
        return {**body, "model": response.model, "usage": self._usage(response)}

    def events(self, response: ChatResponse[Any], *, piece: int) -> fx.Events:
        text, calls = _parts(response)
        cid = response.response_id or "chatcmpl-1"
        chunks = [chat_fx.chat_chunk({"role": "assistant", "content": ""}, cid=cid)]
        chunks += [chat_fx.chat_chunk({"content": p}, cid=cid) for p in _pieces(text, piece) if p]
        for index, call in enumerate(calls):
            start = {"index": index, "id": call.call_id, "type": "function"}
            chunks.append(
                chat_fx.chat_chunk(
                    {"tool_calls": [{**start, "function": {"name": call.name, "arguments": ""}}]},
                    cid=cid,
                )
            )
            assert isinstance(call.arguments, str)
            chunks += [
                chat_fx.chat_chunk(
                    {"tool_calls": [{"index": index, "function": {"arguments": p}}]}, cid=cid
                )
                for p in _pieces(call.arguments, piece)
            ]
        chunks.append(chat_fx.chat_chunk({}, response.finish_reason or "stop", cid=cid))
        chunks.append({**chat_fx.chat_usage_chunk(cid=cid), "usage": self._usage(response)})
        chunks = [{**c, "model": response.model} for c in chunks]
        return chat_fx.chat_stream(chunks)

    def sent_call_ids(self, request_index: int) -> tuple[set[str], set[str]]:
        messages = self.sent(request_index)["messages"]
        calls = {c["id"] for m in messages for c in m.get("tool_calls", ())}
        results = {m["tool_call_id"] for m in messages if m["role"] == "tool"}
        return calls, results

    def sent_request(self, request_index: int) -> SentRequest:
        body = self.sent(request_index)
        messages = body["messages"]
        system = [m["content"] for m in messages if m["role"] in ("system", "developer")]
        format_ = body.get("response_format")
        return SentRequest(
            instructions="\n".join(system) if system else None,
            tools={
                t["function"]["name"]: t["function"]["parameters"] for t in body.get("tools", ())
            },
            tool_choice=_tool_choice(body.get("tool_choice")),
            response_format=format_["json_schema"]["schema"] if format_ else None,
            function_results={
                m["tool_call_id"]: m["content"] for m in messages if m["role"] == "tool"
            },
            reasoning=None,  # Chat Completions takes no reasoning back
        )


class ResponsesHarness(_Harness):
    """Serves the kit's scenarios as Responses API JSON and SSE."""

    path = "/v1/responses"

    def __init__(self) -> None:
        super().__init__()
        self.client_ = OpenAIResponsesClient("gpt-test", api_key="sk-test", base_url=self.base_url)

    def client(self) -> SupportsGetResponse[Any]:
        return self.client_

    def _items(self, response: ChatResponse[Any]) -> list[dict[str, Any]]:
        text, calls = _parts(response)
        items: list[dict[str, Any]] = [
            resp_fx.reasoning(f"rs_{index}", [c.text], c.protected_data)
            for index, c in enumerate(response.messages[0].contents)
            if isinstance(c, ReasoningContent)
        ]
        if text:
            items.append(resp_fx.output_message("msg_k", [resp_fx.output_text(text)]))
        for index, call in enumerate(calls):
            assert isinstance(call.arguments, str)
            items.append(
                resp_fx.function_call(f"fc_{index}", call.call_id, call.name, call.arguments)
            )
        return items

    def whole(self, response: ChatResponse[Any]) -> dict[str, Any]:
        usage = response.usage
        assert usage is not None
        cut = response.finish_reason == "length"
        body = resp_fx.response(
            response.response_id or "resp_k",
            self._items(response),
            status="incomplete" if cut else "completed",
            incomplete_details={"reason": "max_output_tokens"} if cut else None,
            usage={
                "input_tokens": usage.input_tokens,
                "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
                "output_tokens": usage.output_tokens,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": usage.total_tokens,
            },
        )
        return {**body, "model": response.model}

    def events(self, response: ChatResponse[Any], *, piece: int) -> fx.Events:
        body = self.whole(response)
        events = resp_fx.created(body["id"])
        for index, item in enumerate(body["output"]):
            if item["type"] == "message":
                text = item["content"][0]["text"]
                events += resp_fx.text_item_events(index, item, _pieces(text, piece))
            elif item["type"] == "reasoning":
                events += resp_fx.whole_item_events(index, item)
            else:
                events += resp_fx.call_item_events(index, item, _pieces(item["arguments"], piece))
        return resp_fx.sse([*events, resp_fx.completed(body)])

    def sent_call_ids(self, request_index: int) -> tuple[set[str], set[str]]:
        items = self.sent(request_index)["input"]
        calls = {i["call_id"] for i in items if i.get("type") == "function_call"}
        results = {i["call_id"] for i in items if i.get("type") == "function_call_output"}
        return calls, results

    def sent_request(self, request_index: int) -> SentRequest:
        body = self.sent(request_index)
        items = body["input"]
        text_format = body.get("text", {}).get("format")
        return SentRequest(
            instructions=body.get("instructions"),
            tools={
                t["name"]: t["parameters"] for t in body.get("tools", ()) if t["type"] == "function"
            },
            tool_choice=_tool_choice(body.get("tool_choice")),
            response_format=text_format["schema"] if text_format else None,
            function_results={
                i["call_id"]: i["output"] for i in items if i.get("type") == "function_call_output"
            },
            reasoning=tuple(i["encrypted_content"] for i in items if i.get("type") == "reasoning"),
        )


class TestChatCompletionsConformance(ChatClientConformance):
    @pytest.fixture
    async def harness(self, anyio_backend: str) -> AsyncIterator[ChatCompletionsHarness]:
        harness = ChatCompletionsHarness()
        yield harness
        await harness.close()


class TestResponsesConformance(ChatClientConformance):
    @pytest.fixture
    async def harness(self, anyio_backend: str) -> AsyncIterator[ResponsesHarness]:
        harness = ResponsesHarness()
        yield harness
        await harness.close()
