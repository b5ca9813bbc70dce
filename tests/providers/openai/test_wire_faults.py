"""The OpenAI adapters against answers real servers give that the happy-path fixtures do
not: streams cut short, streamed requests answered whole, fields left out, shapes the
SDK allows, malformed bodies and events, a server that stalls. Real SDK, real HTTP.
"""

from __future__ import annotations

import copy
from typing import Any

import openai
import pytest
from agentcore_openai import OpenAIChatClient, OpenAIEmbeddingClient, OpenAIResponsesClient
from openai.types.chat import ChatCompletion, ChatCompletionChunk

from agentcore import FunctionCallContent
from agentcore.errors import (
    ContextLengthExceededError,
    MalformedResponseError,
    TransientError,
)
from tests.providers.openai import chat_fixtures as chat_fx
from tests.providers.openai import responses_fixtures as resp_fx
from tests.providers.openai.exchange import USER, WEATHER_TOOL, both_modes, stream_updates
from tests.providers.wire_server import Reply, WireServer

pytestmark = pytest.mark.anyio

CHAT = "/v1/chat/completions"
RESPONSES = "/v1/responses"
JSON = dict[str, Any]


async def _ask(client: Any, stream: bool) -> Any:
    """The response to ``USER``, whole or as the fold of a stream."""
    if stream:
        return (await stream_updates(client))[1]
    return await client.get_response(USER)


def _calls(response: Any) -> list[FunctionCallContent]:
    return [c for m in response.messages for c in m.contents if isinstance(c, FunctionCallContent)]


# -- 1. a stream without its terminal event; a streamed request answered whole -------------


async def test_chat_stream_without_done_or_finish_reason_is_a_retryable_error(
    chat: OpenAIChatClient, server: WireServer
) -> None:
    cut = [(None, chunk) for chunk in chat_fx.CHAT_TEXT_CHUNKS[:3]]  # no finish, no [DONE]
    server.add("POST", CHAT, Reply(sse=cut))
    with pytest.raises(TransientError, match="without \\[DONE\\]") as caught:
        await stream_updates(chat)
    assert caught.value.retryable
    assert caught.value.provider == "openai"


async def test_chat_stream_with_a_finish_reason_but_no_done_is_complete(
    chat: OpenAIChatClient, server: WireServer
) -> None:
    events = [(None, chunk) for chunk in chat_fx.CHAT_TEXT_CHUNKS]  # [DONE] left out
    server.add("POST", CHAT, Reply(sse=events))
    _, final = await stream_updates(chat)
    assert (final.text, final.finish_reason) == ("Hello there, friend!", "stop")


async def test_responses_stream_without_a_terminal_event_is_a_retryable_error(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    server.add("POST", RESPONSES, Reply(sse=resp_fx.RESP_TEXT_EVENTS[:-1]))
    with pytest.raises(TransientError, match=r"without response\.completed") as caught:
        await stream_updates(responses)
    assert caught.value.retryable


async def test_chat_streamed_request_answered_with_json_is_read_as_that_answer(
    chat: OpenAIChatClient, server: WireServer
) -> None:
    server.add("POST", CHAT, Reply(json_body=chat_fx.CHAT_TEXT), Reply(json_body=chat_fx.CHAT_TEXT))
    whole = await chat.get_response(USER)
    updates, streamed = await stream_updates(chat)
    assert streamed.text == whole.text == "Hello there, friend!"
    assert streamed.usage == whole.usage
    assert (streamed.finish_reason, streamed.response_id, streamed.model) == (
        whole.finish_reason,
        whole.response_id,
        whole.model,
    )
    assert len(updates) == 1


async def test_responses_streamed_request_answered_with_json_is_read_as_that_answer(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    server.add("POST", RESPONSES, Reply(json_body=resp_fx.RESP_TOOL_CALL))
    _, streamed = await stream_updates(responses)
    assert [c.call_id for c in _calls(streamed)] == ["call_weather"]
    assert streamed.finish_reason == "tool_calls"
    assert streamed.usage is not None
    assert streamed.usage.input_tokens == 120


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
async def test_an_error_body_with_status_200_is_a_typed_error(
    chat: OpenAIChatClient, server: WireServer, stream: bool
) -> None:
    error = {"error": {"message": "maximum context length is 8192 tokens", "code": None}}
    server.add("POST", CHAT, Reply(json_body=error))
    with pytest.raises(ContextLengthExceededError):
        await _ask(chat, stream)


# -- 2. fields real servers leave out or send as null ------------------------------------


def _without(body: JSON, *keys: str) -> JSON:
    return {k: v for k, v in body.items() if k not in keys}


async def test_chat_without_created_model_or_usage_details_leaves_them_unset(
    chat: OpenAIChatClient, server: WireServer
) -> None:
    usage: JSON = {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}
    usage |= {"prompt_tokens_details": None, "completion_tokens_details": None}
    body = {**_without(chat_fx.CHAT_TEXT, "created", "model"), "usage": usage}
    chunks = [_without(c, "created", "model") for c in chat_fx.CHAT_TEXT_CHUNKS]
    chunks[-1] = {**chunks[-1], "usage": usage}
    whole, folded = await both_modes(chat, server, CHAT, body, chat_fx.chat_stream(chunks))
    for response in (whole, folded):
        assert response.text == "Hello there, friend!"
        assert (response.created_at, response.model) == (None, None)
        assert response.usage is not None
        assert (response.usage.input_tokens, response.usage.cache_read_tokens) == (5, None)
        assert response.usage.reasoning_tokens is None


async def test_responses_without_created_at_model_or_usage_details_leaves_them_unset(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    usage = {**resp_fx.RESPONSES_USAGE, "input_tokens_details": None}
    del usage["output_tokens_details"]
    body: JSON = {**_without(resp_fx.RESP_TEXT, "created_at", "model"), "usage": usage}
    events = [e for e in resp_fx.created(body["id"]) if e["type"] == "response.created"]
    events = [{**e, "response": _without(e["response"], "created_at", "model")} for e in events]
    events += resp_fx.text_item_events(0, resp_fx.RESP_TEXT_MESSAGE, ["Hello there,", " friend!"])
    whole, folded = await both_modes(
        responses, server, RESPONSES, body, resp_fx.sse([*events, resp_fx.completed(body)])
    )
    for response in (whole, folded):
        assert response.text == "Hello there, friend!"
        assert (response.created_at, response.model) == (None, None)
        assert response.usage is not None
        assert response.usage.input_tokens == 120
        assert (response.usage.cache_read_tokens, response.usage.reasoning_tokens) == (None, None)


# -- 3. shapes the SDK allows ----------------------------------------------------------------


def _call_chunk(index: int, call_id: str | None, name: str | None, arguments: str) -> JSON:
    call: JSON = {"index": index, "function": {"arguments": arguments}}
    if call_id is not None:
        call |= {"id": call_id, "type": "function"}
        call["function"]["name"] = name
    return chat_fx.chat_chunk({"tool_calls": [call]})


SHARED_INDEX_CHUNKS = [
    chat_fx.chat_chunk({"role": "assistant", "content": None}),
    _call_chunk(0, "call_a", "get_weather", '{"city": '),
    _call_chunk(0, None, None, '"Paris"}'),
    _call_chunk(0, "call_b", "get_time", '{"zone": '),
    _call_chunk(0, None, None, '"UTC"}'),
    chat_fx.chat_chunk({}, "tool_calls"),
    chat_fx.chat_usage_chunk(),
]


def test_the_shared_index_chunks_are_valid_for_the_sdk() -> None:
    for chunk in SHARED_INDEX_CHUNKS:
        ChatCompletionChunk.model_validate(chunk)


async def test_two_streamed_calls_sharing_an_index_stay_two_calls(
    chat: OpenAIChatClient, server: WireServer
) -> None:
    server.add("POST", CHAT, Reply(sse=chat_fx.chat_stream(SHARED_INDEX_CHUNKS)))
    _, final = await stream_updates(chat)
    calls = _calls(final)
    assert [(c.call_id, c.name, c.arguments) for c in calls] == [
        ("call_a", "get_weather", '{"city": "Paris"}'),
        ("call_b", "get_time", '{"zone": "UTC"}'),
    ]


def _two_choices() -> tuple[JSON, list[JSON]]:
    body = copy.deepcopy(chat_fx.CHAT_TEXT)
    other = {"index": 1, "message": {"role": "assistant", "content": "Other"}}
    body["choices"].append({**other, "finish_reason": "stop"})
    chunks: list[JSON] = []
    for chunk in chat_fx.CHAT_TEXT_CHUNKS[:-1]:
        chunks.append(chunk)
        second = copy.deepcopy(chunk)
        second["choices"][0]["index"] = 1
        if second["choices"][0]["delta"].get("content"):
            second["choices"][0]["delta"]["content"] = "X"
        chunks.append(second)
    chunks.append(chat_fx.CHAT_TEXT_CHUNKS[-1])
    return body, chunks


async def test_a_second_choice_is_not_mixed_into_the_first(
    chat: OpenAIChatClient, server: WireServer
) -> None:
    body, chunks = _two_choices()
    ChatCompletion.model_validate(body)
    for chunk in chunks:
        ChatCompletionChunk.model_validate(chunk)
    whole, folded = await both_modes(chat, server, CHAT, body, chat_fx.chat_stream(chunks))
    assert whole.text == folded.text == "Hello there, friend!"


async def test_asking_for_several_choices_is_refused_before_sending(
    chat: OpenAIChatClient, server: WireServer
) -> None:
    with pytest.raises(ValueError, match=r"extra_body\['n'\] must be 1"):
        await chat.get_response(USER, options={"extra_body": {"n": 2}})
    assert server.requests == []


async def test_a_responses_output_item_of_an_unknown_type_is_skipped(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    novel = {"type": "compaction_summary", "id": "cs_1", "summary": "earlier turns", "x": [1]}
    body = resp_fx.response("resp_new", [novel, resp_fx.RESP_TEXT_MESSAGE])
    events = resp_fx.created("resp_new")
    events += resp_fx.whole_item_events(0, novel)
    events += resp_fx.text_item_events(1, resp_fx.RESP_TEXT_MESSAGE, ["Hello there, friend!"])
    whole, folded = await both_modes(
        responses, server, RESPONSES, body, resp_fx.sse([*events, resp_fx.completed(body)])
    )
    assert whole.text == folded.text == "Hello there, friend!"
    assert whole.finish_reason == folded.finish_reason == "stop"


# -- 4. nothing untyped escapes ----------------------------------------------------------------


CHAT_BAD_EVENTS: dict[str, Any] = {
    "invalid JSON": "{not json",
    "a JSON list": [1, 2],
    "choices of the wrong type": {**chat_fx.CHAT_TEXT_CHUNKS[1], "choices": "oops"},
    "a delta of the wrong type": {
        **chat_fx.CHAT_TEXT_CHUNKS[1],
        "choices": [{"index": 0, "delta": 5, "finish_reason": None}],
    },
    "tool calls of the wrong type": chat_fx.chat_chunk({"tool_calls": 5}),
    "content that is a number": chat_fx.chat_chunk({"content": 5}),
}


@pytest.mark.parametrize("event", list(CHAT_BAD_EVENTS.values()), ids=list(CHAT_BAD_EVENTS))
async def test_a_malformed_chat_chunk_is_a_malformed_response_error(
    chat: OpenAIChatClient, server: WireServer, event: Any
) -> None:
    events = [(None, chat_fx.CHAT_TEXT_CHUNKS[0]), (None, event), (None, "[DONE]")]
    server.add("POST", CHAT, Reply(sse=events))
    with pytest.raises(MalformedResponseError, match="OpenAI sent a malformed stream chunk") as e:
        await stream_updates(chat)
    assert not e.value.retryable
    assert e.value.provider == "openai"


CHAT_BAD_BODIES: dict[str, bytes] = {
    "invalid JSON": b'{"id": "x", "choices": [',
    "a JSON list": b"[]",
    "choices of the wrong type": b'{"id": "x", "choices": 7}',
    "a message of the wrong type": b'{"id": "x", "choices": [{"index": 0, "message": "hi"}]}',
    "content that is a list": (
        b'{"id": "x", "choices": [{"index": 0, "message": {"role": "assistant", "content": [1]}}]}'
    ),
}


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("body", list(CHAT_BAD_BODIES.values()), ids=list(CHAT_BAD_BODIES))
async def test_a_malformed_chat_body_is_a_malformed_response_error(
    chat: OpenAIChatClient, server: WireServer, body: bytes, stream: bool
) -> None:
    server.add("POST", CHAT, Reply(raw_body=body))
    with pytest.raises(MalformedResponseError, match="OpenAI sent a malformed chat completion"):
        await _ask(chat, stream)


RESPONSES_BAD_EVENTS: dict[str, JSON | str] = {
    "invalid JSON": "{oops",
    "a completed event without its response": {"type": "response.completed"},
    "a text delta of the wrong type": {
        "type": "response.output_text.delta",
        "item_id": "msg_1",
        "delta": 5,
    },
    "an item that is a string": {"type": "response.output_item.done", "item": "x"},
}


@pytest.mark.parametrize(
    "event", list(RESPONSES_BAD_EVENTS.values()), ids=list(RESPONSES_BAD_EVENTS)
)
async def test_a_malformed_responses_event_is_a_malformed_response_error(
    responses: OpenAIResponsesClient, server: WireServer, event: JSON | str
) -> None:
    events = [*resp_fx.RESP_TEXT_EVENTS[:1], ("event", event)]
    server.add("POST", RESPONSES, Reply(sse=events))
    with pytest.raises(MalformedResponseError, match="OpenAI sent a malformed") as caught:
        await stream_updates(responses)
    assert "event" in caught.value.message


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("body", [b"not json at all", b'{"id": "r", "output": 5}'])
async def test_a_malformed_responses_body_is_a_malformed_response_error(
    responses: OpenAIResponsesClient, server: WireServer, body: bytes, stream: bool
) -> None:
    server.add("POST", RESPONSES, Reply(raw_body=body))
    with pytest.raises(MalformedResponseError, match="malformed response body"):
        await _ask(responses, stream)


async def test_an_enormous_event_is_a_malformed_response_error(
    server: WireServer, anyio_backend: str
) -> None:
    async with OpenAIChatClient(
        "gpt-test", api_key="sk-test", base_url=f"{server.base_url}/v1", max_event_size=4096
    ) as chat:
        huge = chat_fx.chat_chunk({"content": "x" * 20_000})
        events = [(None, chat_fx.CHAT_TEXT_CHUNKS[0]), (None, huge), (None, "[DONE]")]
        server.add("POST", CHAT, Reply(sse=events, chunk_size=1000))
        with pytest.raises(MalformedResponseError, match="grew past 4096 bytes") as caught:
            await stream_updates(chat)
    assert caught.value.provider == "openai"


EMBEDDINGS_BAD_BODIES = {
    "invalid JSON": b"{oops",
    "a JSON list": b"[1]",
    "data of the wrong type": b'{"data": 5}',
    "a vector that is null": b'{"data": [{"index": 0, "embedding": null}]}',
}


@pytest.mark.parametrize(
    "body", list(EMBEDDINGS_BAD_BODIES.values()), ids=list(EMBEDDINGS_BAD_BODIES)
)
async def test_a_malformed_embeddings_body_is_a_malformed_response_error(
    embedder: OpenAIEmbeddingClient, server: WireServer, body: bytes
) -> None:
    server.add("POST", "/v1/embeddings", Reply(raw_body=body))
    with pytest.raises(MalformedResponseError, match="malformed embeddings body"):
        await embedder.get_embeddings(["hello"])


# -- 5. never hang -----------------------------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("api", ["chat", "responses"])
async def test_a_stalled_answer_ends_in_a_timeout_error(
    server: WireServer, anyio_backend: str, api: str, stream: bool
) -> None:
    base_url = f"{server.base_url}/v1"
    client: OpenAIChatClient | OpenAIResponsesClient
    if api == "chat":
        client = OpenAIChatClient("gpt-test", api_key="k", base_url=base_url, read_timeout=0.2)
        path, body, events = CHAT, chat_fx.CHAT_TEXT, chat_fx.chat_stream(chat_fx.CHAT_TEXT_CHUNKS)
    else:
        client = OpenAIResponsesClient("gpt-test", api_key="k", base_url=base_url, read_timeout=0.2)
        path, body, events = RESPONSES, resp_fx.RESP_TEXT, resp_fx.RESP_TEXT_EVENTS
    reply = Reply(sse=events, stall_after=200) if stream else Reply(json_body=body, stall_after=20)
    server.add("POST", path, reply)
    async with client:
        with pytest.raises(TransientError, match="timed out") as caught:
            await _ask(client, stream)
    assert caught.value.retryable


async def test_read_timeout_applies_to_a_given_client_too(
    server: WireServer, anyio_backend: str
) -> None:
    sdk = openai.AsyncOpenAI(api_key="k", base_url=f"{server.base_url}/v1", max_retries=0)
    chat = OpenAIChatClient("gpt-test", client=sdk, read_timeout=0.2)
    server.add(
        "POST", CHAT, Reply(sse=chat_fx.chat_stream(chat_fx.CHAT_TEXT_CHUNKS), stall_after=50)
    )
    with pytest.raises(TransientError, match="timed out"):
        await stream_updates(chat)
    await sdk.close()


def test_read_timeout_must_be_positive() -> None:
    with pytest.raises(ValueError, match="read_timeout must be a positive"):
        OpenAIChatClient("gpt-test", api_key="k", read_timeout=0)


# -- 6. interoperability -------------------------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
async def test_tool_choice_is_sent_whenever_tools_are(
    chat: OpenAIChatClient, responses: OpenAIResponsesClient, server: WireServer, stream: bool
) -> None:
    chat_reply = (
        Reply(sse=chat_fx.chat_stream(chat_fx.CHAT_TEXT_CHUNKS))
        if stream
        else Reply(json_body=chat_fx.CHAT_TEXT)
    )
    resp_reply = (
        Reply(sse=resp_fx.RESP_TEXT_EVENTS) if stream else Reply(json_body=resp_fx.RESP_TEXT)
    )
    server.add("POST", CHAT, chat_reply)
    server.add("POST", RESPONSES, resp_reply)
    options = {"tools": [WEATHER_TOOL]}
    for client in (chat, responses):
        if stream:
            await stream_updates(client, options=options)
        else:
            await client.get_response(USER, options=options)
    assert [r.json["tool_choice"] for r in server.requests] == ["auto", "auto"]


def _text_of(item: JSON) -> str:
    content = item.get("content")
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content or ())


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
async def test_stateless_responses_send_the_whole_history_and_store_nothing(
    server: WireServer, anyio_backend: str, stream: bool
) -> None:
    from agentcore import Agent, tool

    @tool
    def get_weather(city: str, unit: str) -> str:
        """Weather for a city."""
        return f"sunny in {city}"

    replies = (
        [Reply(sse=resp_fx.RESP_TOOL_CALL_EVENTS), Reply(sse=resp_fx.RESP_TEXT_EVENTS)]
        if stream
        else [Reply(json_body=resp_fx.RESP_TOOL_CALL), Reply(json_body=resp_fx.RESP_TEXT)]
    )
    server.add("POST", RESPONSES, *replies)
    async with OpenAIResponsesClient(
        "gpt-test", api_key="k", base_url=f"{server.base_url}/v1", stateless=True
    ) as client:
        agent = Agent(client, "Be brief.", tools=[get_weather])
        if stream:
            response = await agent.run("Weather in Paris?", stream=True).get_final_response()
        else:
            response = await agent.run("Weather in Paris?")
    assert response.text == "Hello there, friend!"
    first, second = (r.json for r in server.requests)
    for body in (first, second):
        assert body["store"] is False
        assert "previous_response_id" not in body
        assert "reasoning.encrypted_content" in body["include"]
    kinds = [item.get("type", "message") for item in second["input"]]
    assert kinds == ["message", "reasoning", "function_call", "function_call_output"]
    assert _text_of(second["input"][0]) == "Weather in Paris?"
    assert second["input"][1]["encrypted_content"] == resp_fx.ENCRYPTED
    assert second["input"][3]["output"] == "sunny in Paris"


async def test_stateless_responses_refuse_a_conversation_id(server: WireServer) -> None:
    client = OpenAIResponsesClient("gpt-test", api_key="k", stateless=True)
    with pytest.raises(ValueError, match="stateless=True"):
        client.get_response(USER, options={"conversation_id": "resp_1"})
    with pytest.raises(ValueError, match="store=True"):
        client.get_response(USER, options={"store": True})
    assert server.requests == []


# -- 7. lifecycle ----------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["chat", "responses", "embeddings"])
async def test_async_with_closes_a_built_client_and_leaves_a_given_one_open(
    server: WireServer, anyio_backend: str, kind: str
) -> None:
    classes = {
        "chat": OpenAIChatClient,
        "responses": OpenAIResponsesClient,
        "embeddings": OpenAIEmbeddingClient,
    }
    adapter_class: Any = classes[kind]
    async with adapter_class("m", api_key="k", base_url=f"{server.base_url}/v1") as built:
        assert not built.client.is_closed()
    assert built.client.is_closed()
    await built.aclose()  # a second close does nothing

    sdk = openai.AsyncOpenAI(api_key="k", base_url=f"{server.base_url}/v1")
    async with adapter_class("m", client=sdk) as given:
        assert given.client is sdk
    await given.aclose()
    assert not sdk.is_closed()
    await sdk.close()


def test_a_client_and_its_settings_together_are_refused() -> None:
    sdk = openai.AsyncOpenAI(api_key="k")
    with pytest.raises(ValueError, match="either client= or api_key="):
        OpenAIChatClient("m", client=sdk, api_key="k")


@pytest.mark.parametrize("body", [b"{oops", b"{}", b'{"input_tokens": "many"}'])
async def test_a_malformed_token_count_is_a_malformed_response_error(
    responses: OpenAIResponsesClient, server: WireServer, body: bytes
) -> None:
    server.add("POST", "/v1/responses/input_tokens", Reply(raw_body=body))
    with pytest.raises(MalformedResponseError, match="malformed input token count"):
        await responses.count_tokens(USER)


# -- 8. a 200 answer that holds no answer (issue 27, items 10 and 11) ------------------------


def _chat_body(choices: Any) -> JSON:
    body = _without(chat_fx.CHAT_TEXT, "choices")
    if choices != "absent":
        body["choices"] = choices
    return body


def _only_choice_one() -> list[JSON]:
    choice = copy.deepcopy(chat_fx.CHAT_TEXT["choices"][0])
    return [{**choice, "index": 1}]


CHAT_WITHOUT_AN_ANSWER: dict[str, tuple[JSON, str]] = {
    "no choices": (_chat_body("absent"), "no 'choices'"),
    "choices null": (_chat_body(None), "no 'choices'"),
    "choices empty": (_chat_body([]), "'choices' is empty"),
    "only a choice with index 1": (_chat_body(_only_choice_one()), "no choice with index 0"),
}


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize(
    ("body", "problem"), list(CHAT_WITHOUT_AN_ANSWER.values()), ids=list(CHAT_WITHOUT_AN_ANSWER)
)
async def test_a_chat_completion_without_choice_0_is_a_malformed_response_error(
    chat: OpenAIChatClient, server: WireServer, body: JSON, problem: str, stream: bool
) -> None:
    server.add("POST", CHAT, Reply(json_body=body))
    with pytest.raises(MalformedResponseError, match=problem) as caught:
        await _ask(chat, stream)
    assert not caught.value.retryable
    assert caught.value.provider == "openai"
    assert "chat completion" in caught.value.message


def test_a_completion_whose_only_choice_has_index_1_is_valid_for_the_sdk() -> None:
    ChatCompletion.model_validate(_chat_body(_only_choice_one()))


def _index_one(chunk: JSON) -> JSON:
    moved = copy.deepcopy(chunk)
    for choice in moved["choices"]:
        choice["index"] = 1
    return moved


CHAT_STREAMS_WITHOUT_AN_ANSWER: dict[str, tuple[list[tuple[str | None, Any]], str]] = {
    "only choice 1, with [DONE]": (
        chat_fx.chat_stream([_index_one(c) for c in chat_fx.CHAT_TEXT_CHUNKS]),
        "no chunk had a choice with index 0, only index 1",
    ),
    "only choice 1, finished, no [DONE]": (
        [(None, _index_one(c)) for c in chat_fx.CHAT_TEXT_CHUNKS],
        "no chunk had a choice with index 0, only index 1",
    ),
    "usage and [DONE] only": (
        chat_fx.chat_stream([chat_fx.chat_usage_chunk()]),
        "no chunk had a choice",
    ),
    "[DONE] only": (chat_fx.chat_stream([]), "no chunk had a choice"),
}


@pytest.mark.parametrize(
    ("events", "problem"),
    list(CHAT_STREAMS_WITHOUT_AN_ANSWER.values()),
    ids=list(CHAT_STREAMS_WITHOUT_AN_ANSWER),
)
async def test_a_chat_stream_without_choice_0_is_a_malformed_response_error(
    chat: OpenAIChatClient,
    server: WireServer,
    events: list[tuple[str | None, Any]],
    problem: str,
) -> None:
    for _, chunk in events:
        if isinstance(chunk, dict):
            ChatCompletionChunk.model_validate(chunk)
    server.add("POST", CHAT, Reply(sse=events))
    with pytest.raises(MalformedResponseError, match=problem) as caught:
        await stream_updates(chat)
    assert not caught.value.retryable
    assert "OpenAI sent a malformed stream" in caught.value.message


async def test_a_chat_stream_cut_before_its_first_choice_stays_a_retryable_error(
    chat: OpenAIChatClient, server: WireServer
) -> None:
    server.add("POST", CHAT, Reply(sse=[(None, chat_fx.chat_usage_chunk())]))
    with pytest.raises(TransientError, match="without \\[DONE\\]"):
        await stream_updates(chat)


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("output", ["absent", None], ids=["no output", "output null"])
async def test_a_responses_body_without_output_is_a_malformed_response_error(
    responses: OpenAIResponsesClient, server: WireServer, output: Any, stream: bool
) -> None:
    body = _without(resp_fx.RESP_TEXT, "output")
    if output != "absent":
        body["output"] = output
    server.add("POST", RESPONSES, Reply(json_body=body))
    with pytest.raises(MalformedResponseError, match="no 'output'") as caught:
        await _ask(responses, stream)
    assert not caught.value.retryable
    assert "response body" in caught.value.message


def _unannounced_call_events(*, with_done: bool) -> list[JSON]:
    """A function call streamed without its ``response.output_item.added``."""
    item = resp_fx.RESP_CALL_ITEM
    events = resp_fx.call_item_events(0, item, ['{"city": ', '"Paris", "unit": "celsius"}'])
    events = [e for e in events if e["type"] != "response.output_item.added"]
    if not with_done:
        events = [e for e in events if e["type"] != "response.output_item.done"]
    body = resp_fx.response("resp_call", [item])
    return [*resp_fx.created("resp_call"), *events, resp_fx.completed(body)]


@pytest.mark.parametrize("with_done", [True, False], ids=["item done sent", "no item done"])
async def test_arguments_for_an_unannounced_item_never_make_a_nameless_call(
    responses: OpenAIResponsesClient,
    server: WireServer,
    caplog: pytest.LogCaptureFixture,
    with_done: bool,
) -> None:
    server.add(
        "POST", RESPONSES, Reply(sse=resp_fx.sse(_unannounced_call_events(with_done=with_done)))
    )
    with caplog.at_level("WARNING", logger="agentcore_openai"):
        _, final = await stream_updates(responses)
    calls = [(c.call_id, c.name, c.arguments) for c in _calls(final)]
    if with_done:  # the item's done event brings the call whole
        assert calls == [("call_weather", "get_weather", resp_fx.RESP_CALL_ITEM["arguments"])]
    else:
        assert calls == []
    warnings = [r for r in caplog.records if r.name == "agentcore_openai"]
    assert len(warnings) == 1  # once an item, not once a delta
    assert "'fc_1'" in warnings[0].getMessage()
    assert "output_item.added" in warnings[0].getMessage()
