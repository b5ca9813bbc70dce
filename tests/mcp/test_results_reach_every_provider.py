"""Whatever an MCP server returns, the run goes on: resource links and blobs a model
API cannot take reach it as text saying what they were.

An agent calls the fixture server's ``links`` and ``blobs`` tools (over streamable
HTTP on 127.0.0.1) through each adapter, whose requests go to a local server speaking
that provider's wire format; the test reads the request that carried the result.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from agentcore_anthropic import AnthropicChatClient
from agentcore_mcp import MCPToolset
from agentcore_openai import OpenAIChatClient, OpenAIResponsesClient

from agentcore import Agent, SupportsGetResponse
from tests.providers.anthropic import fixtures as anthropic_fx
from tests.providers.anthropic.replies import json_reply, sse_reply
from tests.providers.openai import chat_fixtures as chat_fx
from tests.providers.openai import responses_fixtures as resp_fx
from tests.providers.wire_server import Reply, WireServer

from .conftest import SDK_SSE_GENERATOR_WARNING

pytestmark = [pytest.mark.anyio, SDK_SSE_GENERATOR_WARNING]

DEMO = "demo://resource/static/document/architecture.md"
FILE = "file:///srv/data/notes.txt"
LINK_NOTES = [
    f"[Link 'architecture.md' (text/markdown): {DEMO}; not opened, as this model API "
    "cannot take it]",
    f"[Link 'notes': {FILE}; not opened, as this model API cannot take it]",
]
PLAIN_NOTE = "[File 'notes.txt' (text/plain, 12 bytes):]\nPlain notes."
GZIP_NOTE = (
    "[File 'archive.gz' (application/gzip, 30 bytes); not shown, as this model API cannot "
    "take that media type]"
)
PLAIN_DATA = "data:text/plain;base64,UGxhaW4gbm90ZXMu"


@pytest.fixture
def server() -> Iterator[WireServer]:
    with WireServer() as running:
        yield running


@pytest.fixture
async def toolset(fixture_url: str, anyio_backend: str) -> AsyncIterator[MCPToolset]:
    async with MCPToolset.http(fixture_url, name="fx", allowed_tools=["links", "blobs"]) as tools:
        yield tools


def _chat_replies(tool: str, stream: bool) -> list[Reply]:
    call = {"id": "call_1", "type": "function", "function": {"name": tool, "arguments": "{}"}}
    if not stream:
        message = {"role": "assistant", "content": None, "tool_calls": [call]}
        return [
            Reply(json_body=chat_fx.chat_completion(message, "tool_calls")),
            Reply(json_body=chat_fx.CHAT_TEXT),
        ]
    chunks = [
        chat_fx.chat_chunk({"role": "assistant", "tool_calls": [{"index": 0, **call}]}),
        chat_fx.chat_chunk({}, "tool_calls"),
    ]
    return [
        Reply(sse=chat_fx.chat_stream(chunks)),
        Reply(sse=chat_fx.chat_stream(chat_fx.CHAT_TEXT_CHUNKS)),
    ]


def _responses_replies(tool: str, stream: bool) -> list[Reply]:
    item = resp_fx.function_call("fc_1", "call_1", tool, "{}")
    body = resp_fx.response("resp_call", [item])
    if not stream:
        return [Reply(json_body=body), Reply(json_body=resp_fx.RESP_TEXT)]
    events = [*resp_fx.created("resp_call"), *resp_fx.call_item_events(0, item, ["{}"])]
    return [
        Reply(sse=resp_fx.sse([*events, resp_fx.completed(body)])),
        Reply(sse=resp_fx.RESP_TEXT_EVENTS),
    ]


def _anthropic_replies(tool: str, stream: bool) -> list[Reply]:
    call = anthropic_fx.message(anthropic_fx.tool_use("call_1", tool, {}), stop_reason="tool_use")
    if not stream:
        return [json_reply(call), json_reply(anthropic_fx.TEXT)]
    return [sse_reply(call), sse_reply(anthropic_fx.TEXT)]


async def _run(
    client: SupportsGetResponse[Any], toolset: MCPToolset, tool: str, stream: bool
) -> None:
    agent = Agent(client, tools=[toolset])
    if stream:
        response = await agent.run(f"Use {tool}.", stream=True).get_final_response()
    else:
        response = await agent.run(f"Use {tool}.")
    assert response.text  # the run went on past the result to the model's answer


def _carrying(server: WireServer, path: str, run: int) -> dict[str, Any]:
    """The request of run ``run`` (0 or 1) that carried the tool's result."""
    requests = list(server.iter_requests(path))
    assert len(requests) == 2 * run + 2, "the request carrying the result was never sent"
    body: dict[str, Any] = requests[2 * run + 1].json
    return body


@pytest.mark.parametrize("stream", [False, True])
async def test_chat_completions_reads_links_and_blobs_as_text(
    server: WireServer, toolset: MCPToolset, stream: bool
) -> None:
    server.add("POST", "/v1/chat/completions", *_chat_replies("links", stream))
    server.add("POST", "/v1/chat/completions", *_chat_replies("blobs", stream))
    async with OpenAIChatClient(
        "gpt-test", api_key="sk-test", base_url=f"{server.base_url}/v1"
    ) as client:
        await _run(client, toolset, "links", stream)
        links = _carrying(server, "/v1/chat/completions", 0)["messages"]
        await _run(client, toolset, "blobs", stream)
        blobs = _carrying(server, "/v1/chat/completions", 1)["messages"]

    # Nothing Chat Completions can take: all of it is text in the tool message, and no
    # user message of media follows.
    assert links[-1] == {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": "\n".join(["two resources:", *LINK_NOTES]),
    }
    assert blobs[-1] == {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": f"{PLAIN_NOTE}\n{GZIP_NOTE}",
    }


@pytest.mark.parametrize("stream", [False, True])
async def test_responses_reads_links_and_blobs_it_cannot_take_as_text(
    server: WireServer, toolset: MCPToolset, stream: bool
) -> None:
    server.add("POST", "/v1/responses", *_responses_replies("links", stream))
    server.add("POST", "/v1/responses", *_responses_replies("blobs", stream))
    async with OpenAIResponsesClient(
        "gpt-test", api_key="sk-test", base_url=f"{server.base_url}/v1"
    ) as client:
        await _run(client, toolset, "links", stream)
        links = _carrying(server, "/v1/responses", 0)["input"]
        await _run(client, toolset, "blobs", stream)
        blobs = _carrying(server, "/v1/responses", 1)["input"]

    assert links[-1]["output"] == [
        {"type": "input_text", "text": text} for text in ["two resources:", *LINK_NOTES]
    ]
    # A text file is an input file there; the gzip file is text saying what it was.
    assert blobs[-1]["output"] == [
        {"type": "input_file", "file_data": PLAIN_DATA, "filename": "notes.txt"},
        {"type": "input_text", "text": GZIP_NOTE},
    ]


@pytest.mark.parametrize("stream", [False, True])
async def test_anthropic_reads_links_and_blobs_it_cannot_take_as_text(
    server: WireServer, toolset: MCPToolset, stream: bool
) -> None:
    server.add("POST", "/v1/messages", *_anthropic_replies("links", stream))
    server.add("POST", "/v1/messages", *_anthropic_replies("blobs", stream))
    async with AnthropicChatClient(
        anthropic_fx.MODEL, api_key="sk-test", base_url=server.base_url
    ) as client:
        await _run(client, toolset, "links", stream)
        links = _carrying(server, "/v1/messages", 0)["messages"]
        await _run(client, toolset, "blobs", stream)
        blobs = _carrying(server, "/v1/messages", 1)["messages"]

    [link_result] = links[-1]["content"]
    assert link_result["content"] == [
        {"type": "text", "text": text} for text in ["two resources:", *LINK_NOTES]
    ]
    [blob_result] = blobs[-1]["content"]
    assert blob_result["content"] == [
        {
            "type": "document",
            "source": {"type": "text", "media_type": "text/plain", "data": "Plain notes."},
            "title": "notes.txt",
        },
        {"type": "text", "text": GZIP_NOTE},
    ]
