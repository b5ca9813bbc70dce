"""AnthropicChatClient against answers real servers give that the happy-path fixtures do
not: streams cut short, streamed requests answered whole, fields left out, blocks the
adapter does not model, malformed bodies and events, a server that stalls. Real SDK,
real HTTP to the local wire server.
"""

from __future__ import annotations

import json
from typing import Any

import anthropic
import pytest
from agentcore_anthropic import AnthropicChatClient
from anthropic.types import Message as SdkMessage
from anthropic.types.beta import (
    BetaCompactionBlock,
    BetaCompactionContentBlockDelta,
    BetaContainerUploadBlock,
    BetaMCPToolListingBlock,
)

from agentcore import ChatResponse, HostedToolCallContent, HostedToolResultContent, Message
from agentcore.errors import MalformedResponseError, RateLimitedError, TransientError
from tests.providers.anthropic.fixtures import (
    MODEL,
    TEXT,
    WEB_SEARCH,
    error_body,
    message,
    sse_events,
    text,
)
from tests.providers.anthropic.replies import MESSAGES, json_reply, sent
from tests.providers.wire_server import Reply, WireServer

pytestmark = pytest.mark.anyio

HI = [Message("user", "Hi")]
JSON = dict[str, Any]


async def _streamed(client: AnthropicChatClient, messages: list[Message] = HI) -> ChatResponse[Any]:
    return await client.get_response(messages, stream=True).get_final_response()


async def _both(
    client: AnthropicChatClient, server: WireServer, body: JSON, events: list[Any]
) -> tuple[ChatResponse[Any], ChatResponse[Any]]:
    server.add("POST", MESSAGES, json_reply(body), Reply(sse=events))
    return await client.get_response(HI), await _streamed(client)


# -- 1. a stream without message_stop; a streamed request answered whole ---------------------


@pytest.mark.parametrize("cut", [0, 3, -3], ids=["empty body", "mid block", "before stop"])
async def test_a_stream_cut_short_is_a_retryable_error(
    client: AnthropicChatClient, server: WireServer, cut: int
) -> None:
    server.add("POST", MESSAGES, Reply(sse=sse_events(TEXT)[:cut]))
    with pytest.raises(TransientError, match="without message_stop") as caught:
        await _streamed(client)
    assert caught.value.retryable


async def test_a_streamed_request_answered_with_json_is_read_as_that_message(
    client: AnthropicChatClient, server: WireServer
) -> None:
    server.add("POST", MESSAGES, json_reply(TEXT), json_reply(TEXT))
    whole = await client.get_response(HI)
    streamed = await _streamed(client)
    assert streamed.text == whole.text == TEXT["content"][0]["text"]
    assert (streamed.usage, streamed.finish_reason, streamed.response_id) == (
        whole.usage,
        whole.finish_reason,
        whole.response_id,
    )


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
async def test_an_error_body_with_status_200_is_a_typed_error(
    client: AnthropicChatClient, server: WireServer, stream: bool
) -> None:
    server.add("POST", MESSAGES, json_reply(error_body("rate_limit_error", "slow down")))
    with pytest.raises(RateLimitedError, match="slow down"):
        await (_streamed(client) if stream else client.get_response(HI))


# -- 2. fields real servers leave out --------------------------------------------------------


async def test_a_message_without_model_or_usage_leaves_them_unset(
    client: AnthropicChatClient, server: WireServer
) -> None:
    body = {k: v for k, v in TEXT.items() if k not in ("model", "usage")}
    events = sse_events(TEXT)
    start = events[0][1]["message"]
    events[0] = ("message_start", {**events[0][1], "message": {**start, "usage": None}})
    del events[0][1]["message"]["model"]
    end_turn = {"type": "message_delta", "delta": {"stop_reason": "end_turn"}}  # no usage
    events = [e for e in events if e[0] != "message_delta"]
    events.insert(-1, ("message_delta", end_turn))
    whole, streamed = await _both(client, server, body, events)
    for response in (whole, streamed):
        assert response.text == TEXT["content"][0]["text"]
        assert (response.model, response.usage) == (None, None)
        assert response.finish_reason == "stop"


# -- 3. blocks the adapter does not model; a server tool call cut off ------------------------

COMPACTION: JSON = {
    "type": "compaction",
    "content": "The user asked about Paris weather twice.",
    "encrypted_content": "EncOpaque==",
    "signature": "sig-compaction",
}
CONTAINER_UPLOAD: JSON = {"type": "container_upload", "file_id": "file_011CNha8iCJcU1wXNR6q4V8w"}
MCP_LISTING: JSON = {
    "type": "mcp_tool_listing",
    "mcp_server_name": "weather",
    "tools": [{"name": "forecast", "input_schema": {"type": "object"}}],
}
NOVEL: JSON = {"type": "hologram_2031", "id": "holo_1", "payload": {"x": 1}}
UNMODELLED = [COMPACTION, CONTAINER_UPLOAD, MCP_LISTING, NOVEL]


def test_the_unmodelled_blocks_are_valid_for_the_sdk() -> None:
    BetaCompactionBlock.model_validate(COMPACTION)
    BetaContainerUploadBlock.model_validate(CONTAINER_UPLOAD)
    BetaMCPToolListingBlock.model_validate(MCP_LISTING)
    BetaCompactionContentBlockDelta.model_validate({"type": "compaction_delta", "content": "x"})


def _unmodelled_events(body: JSON) -> list[Any]:
    """The stream of ``body`` (text first, then the unmodelled blocks), the compaction
    block streamed in deltas as the API streams it."""
    events = sse_events({**body, "content": body["content"][:1]})
    blocks: list[Any] = []
    for index, block in enumerate(body["content"][1:], start=1):
        if block["type"] == "compaction":
            blocks.append(
                _start(index, {"type": "compaction", "content": "", "encrypted_content": ""})
            )
            for field in ("content", "encrypted_content"):
                for piece in (block[field][:6], block[field][6:]):
                    blocks.append(_delta(index, {"type": "compaction_delta", field: piece}))
            blocks.append(
                _delta(index, {"type": "signature_delta", "signature": block["signature"]})
            )
        else:
            blocks.append(_start(index, block))
        blocks.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    return [*events[:-2], *blocks, *events[-2:]]


def _start(index: int, block: JSON) -> Any:
    return (
        "content_block_start",
        {"type": "content_block_start", "index": index, "content_block": block},
    )


def _delta(index: int, delta: JSON) -> Any:
    return ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})


async def test_unmodelled_blocks_are_kept_whole_and_sent_back(
    client: AnthropicChatClient, server: WireServer
) -> None:
    body = message(text("Sunny."), *UNMODELLED)
    whole, streamed = await _both(client, server, body, _unmodelled_events(body))
    for response in (whole, streamed):
        kept = [
            c
            for m in response.messages
            for c in m.contents
            if isinstance(c, HostedToolResultContent)
        ]
        assert [dict(c.raw or {}) for c in kept] == UNMODELLED
        assert [c.tool_type for c in kept] == [b["type"] for b in UNMODELLED]
        assert response.text == "Sunny."
    server.add("POST", MESSAGES, json_reply(TEXT), json_reply(TEXT))
    for response in (whole, streamed):
        await client.get_response([*HI, *response.messages, Message("user", "And tomorrow?")])
        assistant = sent(server)["messages"][1]
        assert assistant["role"] == "assistant"
        assert assistant["content"] == [text("Sunny."), *UNMODELLED]


async def test_a_server_tool_call_cut_off_by_max_tokens_is_a_partial_call(
    client: AnthropicChatClient, server: WireServer
) -> None:
    body = message(WEB_SEARCH["content"][0], stop_reason="max_tokens")
    events = sse_events(body)
    deltas = [i for i, e in enumerate(events) if e[0] == "content_block_delta"]
    events = events[: deltas[2]] + events[deltas[-1] + 1 :]  # the input's JSON ends early
    server.add("POST", MESSAGES, Reply(sse=events))
    response = await _streamed(client)
    calls = [
        c for m in response.messages for c in m.contents if isinstance(c, HostedToolCallContent)
    ]
    assert [c.call_id for c in calls] == [body["content"][0]["id"]]
    assert calls[0].arguments is None or dict(calls[0].arguments) == {}
    assert response.finish_reason == "length"


# -- 4. nothing untyped escapes ----------------------------------------------------------------

BAD_EVENTS: dict[str, Any] = {
    "message_start without its message": ("message_start", {"type": "message_start"}),
    "a message that is a string": ("message_start", {"type": "message_start", "message": "m"}),
    "a block index that is no number": (
        "content_block_start",
        {"type": "content_block_start", "index": "first", "content_block": text("")},
    ),
    "a delta of the wrong type": (
        "content_block_delta",
        {"type": "content_block_delta", "index": 0, "delta": 7},
    ),
    "a JSON list": ("content_block_delta", "[1, 2]"),
}


@pytest.mark.parametrize("event", list(BAD_EVENTS.values()), ids=list(BAD_EVENTS))
async def test_a_malformed_event_is_a_malformed_response_error_naming_it(
    client: AnthropicChatClient, server: WireServer, event: Any
) -> None:
    events = sse_events(TEXT)
    at = {"message_start": 0, "content_block_start": 2}.get(event[0], 3)
    events[at] = event
    server.add("POST", MESSAGES, Reply(sse=events))
    with pytest.raises(MalformedResponseError, match=f"malformed {event[0]} event") as caught:
        await _streamed(client)
    assert not caught.value.retryable
    assert caught.value.provider == "anthropic"


BAD_BODIES = {
    "invalid JSON": b'{"id": "msg_1", "content": [',
    "a JSON list": b"[1]",
    "content of the wrong type": json.dumps({**TEXT, "content": 5}).encode(),
    "a block of the wrong type": json.dumps({**TEXT, "content": ["hello"]}).encode(),
}


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("body", list(BAD_BODIES.values()), ids=list(BAD_BODIES))
async def test_a_malformed_body_is_a_malformed_response_error(
    client: AnthropicChatClient, server: WireServer, body: bytes, stream: bool
) -> None:
    server.add("POST", MESSAGES, Reply(raw_body=body))
    with pytest.raises(MalformedResponseError, match="Anthropic sent a malformed"):
        await (_streamed(client) if stream else client.get_response(HI))


async def test_an_enormous_event_is_a_malformed_response_error(
    server: WireServer, anyio_backend: str
) -> None:
    base_url = server.base_url
    async with AnthropicChatClient(
        MODEL, api_key="k", base_url=base_url, max_event_size=4096
    ) as ac:
        events = sse_events(message(text("x" * 20_000)), piece=20_000)
        server.add("POST", MESSAGES, Reply(sse=events, chunk_size=1000))
        with pytest.raises(MalformedResponseError, match="grew past 4096 bytes"):
            await _streamed(ac)


def test_the_fixture_messages_are_valid_for_the_sdk() -> None:
    SdkMessage.model_validate(TEXT)


# -- 5. never hang ---------------------------------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
async def test_a_stalled_answer_ends_in_a_timeout_error(
    server: WireServer, anyio_backend: str, stream: bool
) -> None:
    reply = (
        Reply(sse=sse_events(TEXT), stall_after=300)
        if stream
        else Reply(json_body=TEXT, stall_after=30)
    )
    server.add("POST", MESSAGES, reply)
    async with AnthropicChatClient(
        MODEL, api_key="k", base_url=server.base_url, read_timeout=0.2
    ) as ac:
        with pytest.raises(TransientError, match="timed out") as caught:
            await (_streamed(ac) if stream else ac.get_response(HI))
    assert caught.value.retryable


async def test_read_timeout_applies_to_a_given_client_too(
    server: WireServer, anyio_backend: str
) -> None:
    sdk = anthropic.AsyncAnthropic(api_key="k", base_url=server.base_url, max_retries=0)
    server.add("POST", MESSAGES, Reply(sse=sse_events(TEXT), stall_after=300))
    adapter = AnthropicChatClient(MODEL, client=sdk, read_timeout=0.2)
    with pytest.raises(TransientError, match="timed out"):
        await _streamed(adapter)
    await sdk.close()


# -- 6. interoperability: plain text as strings --------------------------------------------------


async def test_blocks_are_sent_only_where_plain_text_is_not_enough(
    client: AnthropicChatClient, server: WireServer
) -> None:
    server.add("POST", MESSAGES, json_reply(TEXT))
    messages = [Message("user", "Hi"), Message("assistant", "Hello"), Message("user", ["a", "b"])]
    await client.get_response(messages, options={"instructions": "Be brief."})
    body = sent(server)
    assert body["system"] == "Be brief."
    assert body["messages"][0] == {"role": "user", "content": "Hi"}
    # Two parts stay two blocks: joining them would change what the model reads.
    assert body["messages"][2]["content"] == [text("a"), text("b")]


# -- 7. lifecycle ---------------------------------------------------------------------------


async def test_async_with_closes_a_built_client_and_leaves_a_given_one_open(
    server: WireServer, anyio_backend: str
) -> None:
    async with AnthropicChatClient(MODEL, api_key="k", base_url=server.base_url) as built:
        assert not built.client.is_closed()
    assert built.client.is_closed()
    await built.aclose()  # a second close does nothing
    sdk = anthropic.AsyncAnthropic(api_key="k", base_url=server.base_url)
    async with AnthropicChatClient(MODEL, client=sdk) as given:
        assert given.client is sdk
    await given.aclose()
    assert not sdk.is_closed()
    await sdk.close()


def test_a_client_and_its_settings_together_are_refused() -> None:
    with pytest.raises(ValueError, match="either client= or base_url="):
        AnthropicChatClient(
            MODEL, client=anthropic.AsyncAnthropic(api_key="k"), base_url="http://x"
        )


@pytest.mark.parametrize("body", [b"{oops", b"{}", b'{"input_tokens": "many"}'])
async def test_a_malformed_token_count_is_a_malformed_response_error(
    client: AnthropicChatClient, server: WireServer, body: bytes
) -> None:
    server.add("POST", "/v1/messages/count_tokens", Reply(raw_body=body))
    with pytest.raises(MalformedResponseError, match="Anthropic sent a malformed"):
        await client.count_tokens(HI)


# -- a 200 answer that holds no answer (issue 27, items 10 and 11) ------------------------------


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("content", ["absent", None], ids=["no content", "content null"])
async def test_a_message_without_content_is_a_malformed_response_error(
    client: AnthropicChatClient, server: WireServer, content: Any, stream: bool
) -> None:
    body = {k: v for k, v in TEXT.items() if k != "content"}
    if content != "absent":
        body["content"] = content
    server.add("POST", MESSAGES, json_reply(body))
    with pytest.raises(MalformedResponseError, match="no 'content'") as caught:
        await (_streamed(client) if stream else client.get_response(HI))
    assert not caught.value.retryable
    assert caught.value.provider == "anthropic"
    assert "message body" in caught.value.message


async def test_a_complete_stream_without_event_lines_is_a_malformed_response_error(
    client: AnthropicChatClient, server: WireServer
) -> None:
    unnamed = [(None, data) for _, data in sse_events(TEXT)]
    server.add("POST", MESSAGES, Reply(sse=unnamed))
    with pytest.raises(MalformedResponseError, match="without an 'event:' line") as caught:
        await _streamed(client)
    assert not caught.value.retryable
    assert "message_start" in caught.value.message
    assert "message_stop" in caught.value.message
