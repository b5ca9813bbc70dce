"""Streamed responses: pieces as they arrive, and a fold equal to the non-streamed answer."""

from __future__ import annotations

import gc
from typing import Any

import anyio
import pytest
from agentcore_anthropic import AnthropicChatClient, AnthropicChatOptions

from agentcore import (
    ChatResponse,
    ChatResponseUpdate,
    ErrorContent,
    FunctionCallContent,
    Message,
    ReasoningContent,
    TextContent,
    UsageContent,
)
from agentcore.errors import MalformedResponseError, TransientError
from tests.providers.anthropic.fixtures import (
    BETA_ONLY,
    CATALOGUE,
    PARALLEL_TOOL_CALLS,
    TEXT,
    THINKING_TOOL_CALL,
    TOOL_CALL,
    WEB_SEARCH,
    error_body,
    message,
    sse_events,
    text,
)
from tests.providers.anthropic.replies import MESSAGES, json_reply, sse_reply
from tests.providers.wire_server import Reply, WireServer

pytestmark = pytest.mark.anyio

HI = [Message("user", "Hi")]

# A stream left with a plain ``break`` and dropped without ``aclose()`` leaves the
# adapter's source generator for the garbage collector, which trio warns about when it
# finalizes it; the connection is closed all the same, which is what these tests check.
ABANDONED_GENERATOR_WARNING = pytest.mark.filterwarnings(
    "ignore:Async generator .* was garbage collected:ResourceWarning"
)


async def _collect(
    client: AnthropicChatClient, options: AnthropicChatOptions[Any] | None = None
) -> tuple[list[ChatResponseUpdate], ChatResponse[Any]]:
    stream = client.get_response(HI, stream=True, options=options)
    updates = [update async for update in stream]
    return updates, await stream.get_final_response()


@pytest.mark.parametrize("chunk_size", [None, 1, 7, 13])
@pytest.mark.parametrize("name", sorted(CATALOGUE))
async def test_streamed_fold_equals_the_non_streamed_response(
    client: AnthropicChatClient, server: WireServer, name: str, chunk_size: int | None
) -> None:
    fixture = CATALOGUE[name]
    server.add("POST", MESSAGES, json_reply(fixture), sse_reply(fixture, chunk_size=chunk_size))
    whole = await client.get_response(HI)
    _updates, folded = await _collect(client)
    assert folded == whole
    assert folded.messages == whole.messages
    assert folded.usage == whole.usage
    assert (folded.finish_reason, folded.response_id, folded.model) == (
        whole.finish_reason,
        whole.response_id,
        whole.model,
    )
    assert name in BETA_ONLY or whole.messages


async def test_text_arrives_in_pieces(client: AnthropicChatClient, server: WireServer) -> None:
    server.add("POST", MESSAGES, sse_reply(TEXT, piece=4))
    updates, final = await _collect(client)
    pieces = [c.text for u in updates for c in u.contents if isinstance(c, TextContent)]
    assert len(pieces) > 1
    assert "".join(pieces) == TEXT["content"][0]["text"] == final.text


async def test_streamed_call_pieces_share_the_call_id_and_the_first_carries_the_name(
    client: AnthropicChatClient, server: WireServer
) -> None:
    server.add("POST", MESSAGES, sse_reply(TOOL_CALL, piece=3))
    updates, _final = await _collect(client)
    pieces = [c for u in updates for c in u.contents if isinstance(c, FunctionCallContent)]
    block = TOOL_CALL["content"][1]
    assert {p.call_id for p in pieces} == {block["id"]}
    assert pieces[0].name == block["name"]
    assert all(p.name == "" for p in pieces[1:])
    assert len(pieces) > 2


async def test_parallel_calls_each_get_their_own_index(
    client: AnthropicChatClient, server: WireServer
) -> None:
    server.add("POST", MESSAGES, sse_reply(PARALLEL_TOOL_CALLS))
    updates, _final = await _collect(client)
    index_of = {
        c.call_id: c.index
        for u in updates
        for c in u.contents
        if isinstance(c, FunctionCallContent)
    }
    assert index_of == {b["id"]: i for i, b in enumerate(PARALLEL_TOOL_CALLS["content"])}


async def test_thinking_streams_as_reasoning_pieces_with_the_signature_last(
    client: AnthropicChatClient, server: WireServer
) -> None:
    server.add("POST", MESSAGES, sse_reply(THINKING_TOOL_CALL, piece=6))
    updates, _final = await _collect(client)
    pieces = [
        c
        for u in updates
        for c in u.contents
        if isinstance(c, ReasoningContent) and c.id == "thinking_0"
    ]
    block = THINKING_TOOL_CALL["content"][0]
    assert "".join(p.text for p in pieces) == block["thinking"]
    assert [p.protected_data for p in pieces if p.protected_data] == [block["signature"]]
    assert pieces[-1].protected_data == block["signature"]


async def test_usage_comes_once_with_input_from_start_and_output_from_delta(
    client: AnthropicChatClient, server: WireServer
) -> None:
    server.add("POST", MESSAGES, sse_reply(WEB_SEARCH))
    updates, final = await _collect(client)
    usages = [c.usage for u in updates for c in u.contents if isinstance(c, UsageContent)]
    assert len(usages) == 1
    assert usages[0] == final.usage
    assert (usages[0].input_tokens, usages[0].output_tokens) == (6039, 931)
    assert usages[0].server_tool_calls == 1
    assert usages[0].total_tokens == 6039 + 931


async def test_cumulative_usage_in_message_delta_overrides_message_start(
    client: AnthropicChatClient, server: WireServer
) -> None:
    events = sse_events(TEXT)
    _name, delta_event = events[-2]
    delta_event["usage"] = {"input_tokens": 30, "cache_read_input_tokens": 5, "output_tokens": 12}
    server.add("POST", MESSAGES, Reply(sse=events))
    _updates, final = await _collect(client)
    assert final.usage is not None
    assert (final.usage.input_tokens, final.usage.cache_read_tokens) == (30, 5)
    assert final.usage.total_tokens == 30 + 5 + 12


async def test_events_without_an_event_line_are_ignored_like_the_sdk_does(
    client: AnthropicChatClient, server: WireServer
) -> None:
    events = sse_events(TEXT)
    stray = {
        "type": "content_block_delta",
        "index": 0,
        "delta": {"type": "text_delta", "text": "STRAY"},
    }
    events.insert(3, (None, stray))
    server.add("POST", MESSAGES, Reply(sse=events))
    _updates, final = await _collect(client)
    assert "STRAY" not in final.text
    assert final.text == TEXT["content"][0]["text"]


async def test_mid_stream_error_event_becomes_an_error_update_and_ends_the_stream(
    client: AnthropicChatClient, server: WireServer
) -> None:
    events = sse_events(TEXT)[:4]
    events.append(("error", error_body("overloaded_error", "Overloaded")))
    events.extend(sse_events(TEXT)[4:])
    server.add("POST", MESSAGES, Reply(sse=events))
    updates, final = await _collect(client)
    last = updates[-1]
    assert last.contents == (ErrorContent(message="Overloaded", code="overloaded_error"),)
    assert last.finish_reason == "error"
    assert final.finish_reason == "error"
    assert final.usage is None


async def test_stream_rate_limit_headers_reach_the_final_response(
    client: AnthropicChatClient, server: WireServer
) -> None:
    headers = {"anthropic-ratelimit-tokens-remaining": "1234"}
    server.add("POST", MESSAGES, sse_reply(TEXT, headers=headers))
    _updates, final = await _collect(client)
    assert final.additional_properties is not None
    assert final.additional_properties["rate_limit"] == {"remaining_tokens": "1234"}


async def test_stream_without_message_stop_is_a_retryable_error_not_an_answer(
    client: AnthropicChatClient, server: WireServer
) -> None:
    server.add("POST", MESSAGES, Reply(sse=sse_events(TEXT)[:-1]))
    with pytest.raises(TransientError, match="without message_stop") as caught:
        await _collect(client)
    assert caught.value.retryable


async def test_http_error_before_the_stream_raises_the_mapped_error(
    client: AnthropicChatClient, server: WireServer
) -> None:
    server.add("POST", MESSAGES, json_reply(error_body("overloaded_error", "Overloaded"), 529))
    stream = client.get_response(HI, stream=True)
    with pytest.raises(TransientError) as caught:
        async for _ in stream:
            pass
    assert caught.value.status_code == 529


async def _disconnected(server: WireServer) -> bool:
    # Wait in a worker thread: blocking the event loop would stop the close itself.
    return await anyio.to_thread.run_sync(server.disconnected.wait, 10.0)


def _long_text_reply() -> Reply:
    long = message(text("word " * 4000))
    return Reply(sse=sse_events(long, piece=20), chunk_size=64, delay=0.002)


@ABANDONED_GENERATOR_WARNING
async def test_breaking_out_of_the_loop_closes_the_connection(
    client: AnthropicChatClient, server: WireServer
) -> None:
    server.add("POST", MESSAGES, _long_text_reply())
    seen = 0
    # The usual shape: the stream is a temporary, dropped when the loop is left,
    # and the event loop's async-generator finalizer closes the connection.
    async for update in client.get_response(HI, stream=True):
        seen += len(update.contents)
        if seen >= 3:
            break
    gc.collect()
    assert await _disconnected(server)


@ABANDONED_GENERATOR_WARNING
async def test_aclose_closes_the_connection(
    client: AnthropicChatClient, server: WireServer
) -> None:
    server.add("POST", MESSAGES, _long_text_reply())
    stream = client.get_response(HI, stream=True)
    iterator = aiter(stream)
    await anext(iterator)
    await anext(iterator)
    await stream.aclose()
    assert await _disconnected(server)


async def test_a_stream_never_iterated_sends_nothing(
    client: AnthropicChatClient, server: WireServer
) -> None:
    stream = client.get_response(HI, stream=True)
    await stream.aclose()
    assert server.requests == []


async def test_streamed_structured_output_sends_the_schema(
    client: AnthropicChatClient, server: WireServer
) -> None:
    schema = {"type": "object", "properties": {"city": {"type": "string"}}}
    server.add("POST", MESSAGES, sse_reply(CATALOGUE["structured"]))
    _updates, final = await _collect(client, {"response_format": schema})
    body = server.requests[-1].json
    assert body["output_config"]["format"]["schema"]["properties"] == schema["properties"]
    assert final.text == CATALOGUE["structured"]["content"][0]["text"]


async def test_text_with_citations_arrives_whole_with_its_annotations(
    client: AnthropicChatClient, server: WireServer
) -> None:
    server.add("POST", MESSAGES, sse_reply(WEB_SEARCH, piece=4))
    updates, _final = await _collect(client)
    cited = [c for u in updates for c in u.contents if isinstance(c, TextContent) and c.annotations]
    block = WEB_SEARCH["content"][3]
    assert [c.text for c in cited] == [block["text"]]
    annotation = cited[0].annotations[0]
    citation = block["citations"][0]
    assert (annotation.url, annotation.title, annotation.quote) == (
        citation["url"],
        citation["title"],
        citation["cited_text"],
    )


@ABANDONED_GENERATOR_WARNING
async def test_an_event_that_is_not_json_is_a_malformed_response_error(
    client: AnthropicChatClient, server: WireServer
) -> None:
    events: list[tuple[str | None, Any]] = [*sse_events(TEXT)[:2], ("content_block_delta", "{oops")]
    server.add("POST", MESSAGES, Reply(sse=events))
    with pytest.raises(
        MalformedResponseError, match=r"content_block_delta event.*not JSON"
    ) as caught:
        await client.get_response(HI, stream=True).get_final_response()
    assert not caught.value.retryable
    assert caught.value.provider == "anthropic"
