"""An agent with a Python tool, through the adapter, over the wire."""

from __future__ import annotations

import attrs
import pytest
from agentcore_anthropic import AnthropicChatClient

from agentcore import Agent
from tests.providers.anthropic.fixtures import STRUCTURED, TEXT, get_weather, message, tool_use
from tests.providers.anthropic.replies import MESSAGES, json_reply, sent, sse_reply
from tests.providers.wire_server import WireServer

pytestmark = pytest.mark.anyio

CALL = message(
    tool_use("toolu_01Weather", "get_weather", {"city": "Paris"}), stop_reason="tool_use"
)


async def test_agent_runs_the_tool_and_sends_its_result_back(
    client: AnthropicChatClient, server: WireServer
) -> None:
    server.add("POST", MESSAGES, json_reply(CALL), json_reply(TEXT))
    agent = Agent(client, "You are a weather bot.", tools=[get_weather])
    response = await agent.run("Weather in Paris?")
    assert response.text == TEXT["content"][0]["text"]
    second = sent(server)
    assert second["system"] == "You are a weather bot."
    assert second["messages"][-1] == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01Weather", "content": "sunny in Paris"}
        ],
    }
    assert [t["name"] for t in second["tools"]] == ["get_weather"]


async def test_streaming_agent_runs_the_tool_and_sends_its_result_back(
    client: AnthropicChatClient, server: WireServer
) -> None:
    server.add("POST", MESSAGES, sse_reply(CALL, chunk_size=9), sse_reply(TEXT, chunk_size=9))
    agent = Agent(client, "You are a weather bot.", tools=[get_weather])
    stream = agent.run("Weather in Paris?", stream=True)
    updates = [update async for update in stream]
    response = await stream.get_final_response()
    assert updates
    assert response.text == TEXT["content"][0]["text"]
    tool_result = sent(server)["messages"][-1]["content"][0]
    assert (tool_result["tool_use_id"], tool_result["content"]) == (
        "toolu_01Weather",
        "sunny in Paris",
    )


@attrs.frozen
class Weather:
    city: str
    temperature: int


async def test_agent_structured_output_with_a_type_gives_a_typed_value(
    client: AnthropicChatClient, server: WireServer
) -> None:
    server.add("POST", MESSAGES, json_reply(STRUCTURED))
    agent = Agent(client)
    response = await agent.run("Weather in Paris as JSON", options={"response_format": Weather})
    assert response.value == Weather(city="Paris", temperature=21)
    schema = sent(server)["output_config"]["format"]["schema"]
    assert schema["properties"] == {"city": {"type": "string"}, "temperature": {"type": "integer"}}
    assert schema["additionalProperties"] is False
