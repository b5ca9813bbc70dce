"""Hosted tools of the Responses API: what is sent, and the calls and results parsed back."""

from __future__ import annotations

from typing import Any

import pytest
from agentcore_openai import OpenAIResponsesClient

from agentcore import (
    CodeInterpreterTool,
    FileSearchTool,
    FunctionApprovalResponseContent,
    FunctionCallContent,
    HostedToolCallContent,
    HostedToolResultContent,
    Message,
    ShellTool,
    TextContent,
)
from tests.providers.openai import responses_fixtures as resp_fx
from tests.providers.openai.exchange import USER, both_modes
from tests.providers.wire_server import Reply, WireServer

pytestmark = pytest.mark.anyio

PATH = "/v1/responses"
Client = OpenAIResponsesClient


async def _tools_sent(client: OpenAIResponsesClient, server: WireServer, tools: list[Any]) -> Any:
    server.add("POST", PATH, Reply(json_body=resp_fx.RESP_TEXT))
    await client.get_response(USER, options={"tools": tools})
    return list(server.iter_requests(PATH))[-1].json["tools"]


# -- what is sent ------------------------------------------------------------------


async def test_web_search_tool_is_sent_with_its_options(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    tool = Client.get_web_search_tool(search_context_size="low")
    assert await _tools_sent(responses, server, [tool]) == [
        {"type": "web_search", "search_context_size": "low"}
    ]


async def test_file_search_tool_is_sent_with_its_vector_stores(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    tool = Client.get_file_search_tool(vector_store_ids=["vs_1", "vs_2"], max_num_results=5)
    assert await _tools_sent(responses, server, [tool]) == [
        {"type": "file_search", "vector_store_ids": ["vs_1", "vs_2"], "max_num_results": 5}
    ]


def test_file_search_tool_without_vector_stores_is_refused() -> None:
    with pytest.raises(ValueError, match="vector_store_ids"):
        Client.get_file_search_tool()


async def test_a_file_search_value_without_vector_stores_is_refused_before_any_request(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    with pytest.raises(ValueError, match="vector_store_ids"):
        responses.get_response(USER, options={"tools": [FileSearchTool()]})
    assert server.requests == []


@pytest.mark.parametrize(
    ("kwargs", "wire"),
    [
        ({}, {"type": "code_interpreter", "container": {"type": "auto"}}),
        (
            {"file_ids": ["file-1"]},
            {"type": "code_interpreter", "container": {"type": "auto", "file_ids": ["file-1"]}},
        ),
        ({"container": "cntr_9"}, {"type": "code_interpreter", "container": "cntr_9"}),
    ],
)
async def test_code_interpreter_tool_is_sent_with_a_container(
    responses: OpenAIResponsesClient, server: WireServer, kwargs: dict[str, Any], wire: Any
) -> None:
    tool = Client.get_code_interpreter_tool(**kwargs)
    assert await _tools_sent(responses, server, [tool]) == [wire]


async def test_image_generation_tool_is_sent_with_its_options(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    tool = Client.get_image_generation_tool(size="1024x1024", quality="low")
    assert await _tools_sent(responses, server, [tool]) == [
        {"type": "image_generation", "size": "1024x1024", "quality": "low"}
    ]


async def test_mcp_tool_is_sent_as_a_server_label_and_url(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    tool = Client.get_mcp_tool(
        name="docs",
        url="https://mcp.example/sse",
        allowed_tools=["search_docs"],
        headers={"Authorization": "Bearer t"},
        approval_mode="never_require",
    )
    assert await _tools_sent(responses, server, [tool]) == [
        {
            "type": "mcp",
            "server_label": "docs",
            "server_url": "https://mcp.example/sse",
            "allowed_tools": ["search_docs"],
            "require_approval": "never",
            "headers": {"Authorization": "Bearer t"},
        }
    ]


@pytest.mark.parametrize("kwargs", [{"name": "docs"}, {"url": "https://mcp.example"}, {}])
def test_mcp_tool_needs_a_name_and_a_url(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=r"name= .* url="):
        Client.get_mcp_tool(**kwargs)


async def test_shell_tool_runs_in_a_hosted_container_by_default(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    tool = Client.get_shell_tool()
    assert await _tools_sent(responses, server, [tool]) == [
        {"type": "shell", "environment": {"type": "container_auto"}}
    ]


def test_a_local_shell_environment_is_refused() -> None:
    with pytest.raises(ValueError, match="local"):
        Client.get_shell_tool(environment={"type": "local"})


async def test_a_local_shell_value_is_refused_before_any_request(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    tool = ShellTool(options={"environment": {"type": "local"}})
    with pytest.raises(ValueError, match="local"):
        responses.get_response(USER, options={"tools": [tool]})
    assert server.requests == []


async def test_hosted_and_function_tools_mix(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    raw = {"type": "function", "name": "ping", "parameters": {"type": "object"}, "strict": False}
    tools = await _tools_sent(responses, server, [CodeInterpreterTool(), raw])
    assert [t["type"] for t in tools] == ["code_interpreter", "function"]
    assert tools[1] == raw


# -- what comes back ---------------------------------------------------------------


def _contents(response_messages: tuple[Message, ...]) -> list[Any]:
    return [c for m in response_messages for c in m.contents]


async def test_hosted_calls_and_results_are_parsed_with_their_items(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    server.add("POST", PATH, Reply(json_body=resp_fx.RESP_HOSTED))
    response = await responses.get_response(USER)
    summary = [
        (type(c).__name__, c.call_id, c.tool_type)
        for c in _contents(response.messages)
        if isinstance(c, (HostedToolCallContent, HostedToolResultContent))
    ]
    assert summary == [
        ("HostedToolCallContent", "ws_1", "web_search"),
        ("HostedToolResultContent", "ws_1", "web_search"),
        ("HostedToolCallContent", "fs_1", "file_search"),
        ("HostedToolResultContent", "fs_1", "file_search"),
        ("HostedToolCallContent", "ci_1", "code_interpreter"),
        ("HostedToolResultContent", "ci_1", "code_interpreter"),
        ("HostedToolCallContent", "ig_1", "image_generation"),
        ("HostedToolResultContent", "ig_1", "image_generation"),
        ("HostedToolCallContent", "mcpl_1", "mcp"),
        ("HostedToolResultContent", "mcpl_1", "mcp"),
        ("HostedToolCallContent", "mcp_1", "mcp"),
        ("HostedToolResultContent", "mcp_1", "mcp"),
        ("HostedToolCallContent", "call_shell", "shell"),
        ("HostedToolResultContent", "call_shell", "shell"),
    ]


async def test_hosted_contents_keep_the_item_as_raw(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    server.add("POST", PATH, Reply(json_body=resp_fx.RESP_HOSTED))
    response = await responses.get_response(USER)
    raws = [
        c.raw
        for c in _contents(response.messages)
        if isinstance(c, (HostedToolCallContent, HostedToolResultContent))
    ]
    assert all(c.provider == "openai" for c in _contents(response.messages)[:-1])
    assert raws[0] == resp_fx.WEB_SEARCH_ITEM
    assert raws[-1] == resp_fx.SHELL_OUTPUT_ITEM


@pytest.mark.parametrize(
    ("call_id", "arguments", "result"),
    [
        (
            "ws_1",
            resp_fx.WEB_SEARCH_ITEM["action"],
            {"status": "completed", "sources": resp_fx.WEB_SEARCH_ITEM["action"]["sources"]},
        ),
        ("fs_1", {"queries": ["travel policy"]}, resp_fx.FILE_SEARCH_ITEM["results"]),
        ("ci_1", {"code": "print(6 * 7)", "container_id": "cntr_1"}, resp_fx.CODE_ITEM["outputs"]),
        ("ig_1", {"revised_prompt": "A sunny Paris street"}, resp_fx.IMAGE_B64),
        (
            "mcpl_1",
            {"server_label": "docs", "action": "list_tools"},
            resp_fx.MCP_LIST_ITEM["tools"],
        ),
        (
            "mcp_1",
            {"server_label": "docs", "name": "search_docs", "arguments": '{"q": "trains"}'},
            "Trains are preferred.",
        ),
    ],
)
async def test_hosted_call_arguments_and_results(
    responses: OpenAIResponsesClient,
    server: WireServer,
    call_id: str,
    arguments: Any,
    result: Any,
) -> None:
    server.add("POST", PATH, Reply(json_body=resp_fx.RESP_HOSTED))
    contents = _contents((await responses.get_response(USER)).messages)
    (call,) = [c for c in contents if isinstance(c, HostedToolCallContent) and c.call_id == call_id]
    (done,) = [
        c for c in contents if isinstance(c, HostedToolResultContent) and c.call_id == call_id
    ]
    assert (call.arguments, done.result) == (arguments, result)


async def test_hosted_tool_calls_are_counted_in_usage(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    server.add("POST", PATH, Reply(json_body=resp_fx.RESP_HOSTED))
    response = await responses.get_response(USER)
    assert response.usage is not None
    # web search, file search, code, image, MCP call, shell call (listing MCP tools is no call)
    assert response.usage.server_tool_calls == 6


async def test_a_citation_becomes_an_annotation(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    server.add("POST", PATH, Reply(json_body=resp_fx.RESP_HOSTED))
    response = await responses.get_response(USER)
    text = _contents(response.messages)[-1]
    assert isinstance(text, TextContent)
    assert text.text == "Paris is sunny today."
    assert [(a.kind, a.url, a.title, a.start, a.end) for a in text.annotations] == [
        ("citation", "https://weather.example/paris", "Paris weather", 0, 21)
    ]


@pytest.mark.parametrize("chunk_size", [None, 7])
async def test_streamed_hosted_tools_fold_like_the_whole_response(
    responses: OpenAIResponsesClient, server: WireServer, chunk_size: int | None
) -> None:
    whole, folded = await both_modes(
        responses,
        server,
        PATH,
        resp_fx.RESP_HOSTED,
        resp_fx.RESP_HOSTED_EVENTS,
        chunk_size=chunk_size,
    )
    hosted = (HostedToolCallContent, HostedToolResultContent)
    assert [c for c in _contents(folded.messages) if isinstance(c, hosted)] == [
        c for c in _contents(whole.messages) if isinstance(c, hosted)
    ]
    assert (folded.text, folded.usage, folded.finish_reason) == (
        whole.text,
        whole.usage,
        whole.finish_reason,
    )


async def test_streamed_annotations_follow_the_text_they_belong_to(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    # The fold cannot attach annotations to text that already streamed, so they
    # arrive in an empty TextContent right after it.
    whole, folded = await both_modes(
        responses, server, PATH, resp_fx.RESP_HOSTED, resp_fx.RESP_HOSTED_EVENTS
    )

    def annotations(contents: list[Any]) -> list[Any]:
        return [a for c in contents if isinstance(c, TextContent) for a in c.annotations]

    assert annotations(_contents(folded.messages)) == annotations(_contents(whole.messages))
    assert annotations(_contents(folded.messages))


async def test_hosted_items_are_sent_back_once(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    server.add("POST", PATH, Reply(json_body=resp_fx.RESP_HOSTED))
    first = await responses.get_response(USER)
    server.add("POST", PATH, Reply(json_body=resp_fx.RESP_TEXT))
    await responses.get_response([*USER, *first.messages])
    sent = list(server.iter_requests(PATH))[-1].json["input"]
    assert sent[1:-1] == resp_fx.HOSTED_ITEMS
    assert sent[-1] == {
        "role": "assistant",
        "content": [{"type": "output_text", "text": "Paris is sunny today."}],
    }


async def test_hosted_contents_from_another_provider_are_not_sent(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    server.add("POST", PATH, Reply(json_body=resp_fx.RESP_TEXT))
    foreign = HostedToolCallContent(
        "srvtoolu_1", "web_search", provider="anthropic", raw={"type": "server_tool_use"}
    )
    await responses.get_response([*USER, Message("assistant", [foreign, "Sunny."])])
    sent = list(server.iter_requests(PATH))[-1].json["input"]
    assert sent[1:] == [
        {"role": "assistant", "content": [{"type": "output_text", "text": "Sunny."}]}
    ]


async def test_an_mcp_approval_request_is_a_hosted_call(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    server.add("POST", PATH, Reply(json_body=resp_fx.RESP_MCP_APPROVAL))
    response = await responses.get_response(USER)
    (request,) = _contents(response.messages)
    assert isinstance(request, HostedToolCallContent)
    assert (request.call_id, request.tool_type, request.arguments) == (
        "mcpr_1",
        "mcp",
        {
            "server_label": "docs",
            "name": "delete_doc",
            "arguments": '{"id": 7}',
            "approval_required": True,
        },
    )


async def test_an_approval_answer_is_sent_as_an_mcp_approval_response(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    server.add("POST", PATH, Reply(json_body=resp_fx.RESP_MCP_APPROVAL))
    first = await responses.get_response(USER)
    answer = FunctionApprovalResponseContent(
        id="mcpr_1",
        function_call=FunctionCallContent("mcpr_1", "delete_doc"),
        approved=False,
        reason="not today",
    )
    server.add("POST", PATH, Reply(json_body=resp_fx.RESP_TEXT))
    await responses.get_response([*USER, *first.messages, Message("user", [answer])])
    sent = list(server.iter_requests(PATH))[-1].json["input"]
    assert sent[1:] == [
        resp_fx.MCP_APPROVAL_ITEM,
        {
            "type": "mcp_approval_response",
            "approval_request_id": "mcpr_1",
            "approve": False,
            "reason": "not today",
        },
    ]


async def test_an_approval_answer_without_its_request_is_not_sent(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    answer = FunctionApprovalResponseContent(
        id="apr_1", function_call=FunctionCallContent("call_1", "delete"), approved=True
    )
    server.add("POST", PATH, Reply(json_body=resp_fx.RESP_TEXT))
    await responses.get_response([*USER, Message("user", [answer])])
    assert list(server.iter_requests(PATH))[-1].json["input"] == [
        {
            "role": "user",
            "content": [{"type": "input_text", "text": "What is the weather in Paris?"}],
        }
    ]
