"""An agent with a Python tool, through each OpenAI chat client, over the wire."""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from agentcore_openai import OpenAIChatClient, OpenAIResponsesClient

from agentcore import Agent, tool
from tests.providers.openai import chat_fixtures as chat_fx
from tests.providers.openai import responses_fixtures as resp_fx
from tests.providers.wire_server import Reply, WireServer

pytestmark = pytest.mark.anyio

CHAT = "/v1/chat/completions"
RESPONSES = "/v1/responses"


@tool
def get_weather(city: str, unit: str) -> str:
    """Current weather for a city."""
    return f"sunny in {city}, 21 {unit}"


@attrs.frozen
class Weather:
    city: str
    temperature: int


def _last(server: WireServer, path: str) -> dict[str, Any]:
    body: dict[str, Any] = list(server.iter_requests(path))[-1].json
    return body


@pytest.mark.parametrize("stream", [False, True])
async def test_chat_agent_runs_the_tool_and_sends_its_result_back(
    chat: OpenAIChatClient, server: WireServer, stream: bool
) -> None:
    if stream:
        server.add(
            "POST",
            CHAT,
            Reply(sse=chat_fx.chat_stream(chat_fx.CHAT_TOOL_CALL_CHUNKS), chunk_size=11),
            Reply(sse=chat_fx.chat_stream(chat_fx.CHAT_TEXT_CHUNKS), chunk_size=11),
        )
    else:
        server.add(
            "POST",
            CHAT,
            Reply(json_body=chat_fx.CHAT_TOOL_CALL),
            Reply(json_body=chat_fx.CHAT_TEXT),
        )
    agent = Agent(chat, "You are a weather bot.", tools=[get_weather])
    if stream:
        response = await agent.run("Weather in Paris?", stream=True).get_final_response()
    else:
        response = await agent.run("Weather in Paris?")
    assert response.text == "Hello there, friend!"
    second = _last(server, CHAT)
    assert second["messages"][0] == {"role": "system", "content": "You are a weather bot."}
    assert second["messages"][-1] == {
        "role": "tool",
        "tool_call_id": "call_weather",
        "content": "sunny in Paris, 21 celsius",
    }
    assert [t["function"]["name"] for t in second["tools"]] == ["get_weather"]
    assert second["tools"][0]["function"]["strict"] is True


@pytest.mark.parametrize("stream", [False, True])
async def test_responses_agent_runs_the_tool_and_sends_its_result_back(
    responses: OpenAIResponsesClient, server: WireServer, stream: bool
) -> None:
    if stream:
        server.add(
            "POST",
            RESPONSES,
            Reply(sse=resp_fx.RESP_TOOL_CALL_EVENTS, chunk_size=13),
            Reply(sse=resp_fx.RESP_TEXT_EVENTS, chunk_size=13),
        )
    else:
        server.add(
            "POST",
            RESPONSES,
            Reply(json_body=resp_fx.RESP_TOOL_CALL),
            Reply(json_body=resp_fx.RESP_TEXT),
        )
    agent = Agent(responses, "You are a weather bot.", tools=[get_weather])
    if stream:
        response = await agent.run("Weather in Paris?", stream=True).get_final_response()
    else:
        response = await agent.run("Weather in Paris?")
    assert response.text == "Hello there, friend!"
    second = _last(server, RESPONSES)
    assert second["instructions"] == "You are a weather bot."
    assert [item.get("type") for item in second["input"]] == [
        None,
        "reasoning",
        "function_call",
        "function_call_output",
    ]
    assert second["input"][-1] == {
        "type": "function_call_output",
        "call_id": "call_weather",
        "output": "sunny in Paris, 21 celsius",
    }


async def test_chat_agent_structured_output_with_a_type_gives_a_typed_value(
    chat: OpenAIChatClient, server: WireServer
) -> None:
    body = chat_fx.chat_completion(
        {"role": "assistant", "content": '{"city": "Paris", "temperature": 21}'}, "stop"
    )
    server.add("POST", CHAT, Reply(json_body=body))
    response = await Agent(chat).run("Paris weather as JSON", options={"response_format": Weather})
    assert response.value == Weather(city="Paris", temperature=21)
    fmt = _last(server, CHAT)["response_format"]
    assert (fmt["type"], fmt["json_schema"]["name"], fmt["json_schema"]["strict"]) == (
        "json_schema",
        "Weather",
        True,
    )


async def test_responses_agent_structured_output_with_a_type_gives_a_typed_value(
    responses: OpenAIResponsesClient, server: WireServer
) -> None:
    message = resp_fx.output_message(
        "msg_s", [resp_fx.output_text('{"city": "Paris", "temperature": 21}')]
    )
    server.add("POST", RESPONSES, Reply(json_body=resp_fx.response("resp_s", [message])))
    response = await Agent(responses).run(
        "Paris weather as JSON", options={"response_format": Weather}
    )
    assert response.value == Weather(city="Paris", temperature=21)
    fmt = _last(server, RESPONSES)["text"]["format"]
    assert (fmt["name"], fmt["strict"], sorted(fmt["schema"]["properties"])) == (
        "Weather",
        True,
        ["city", "temperature"],
    )
