"""What stays off unless asked for: sampling and server instructions (stdio fixture
server on both protocol eras, both backends)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from agentcore_mcp import MCPToolset
from agentcore_mcp._sampling import sampling_callback
from mcp import types
from mcp.client.session import ClientRequestContext

from agentcore import Agent, ChatResponse, FunctionResultContent, Message
from agentcore.testing import ScriptedChatClient
from tests.agent._runs import answer_turn, call_turn, run_agent

pytestmark = pytest.mark.anyio

SAMPLER = str(Path(__file__).parent / "sampling_server.py")
LONG = "a long text " * 10


@pytest.fixture(params=["auto", "legacy"], ids=["2026-07-28", "handshake"])
def mode(request: pytest.FixtureRequest) -> str:
    """How the client connects: 2026-07-28 (negotiated), or the initialize handshake."""
    return str(request.param)


@pytest.fixture(params=[False, True], ids=["call", "stream"])
def stream(request: pytest.FixtureRequest) -> bool:
    return bool(request.param)


def sampler(mode: str, **options: Any) -> MCPToolset:
    client_options = {"mode": mode, **options.pop("client_options", {})}
    return MCPToolset.stdio(
        sys.executable, [SAMPLER], name="sampler", client_options=client_options, **options
    )


def results(response: Any) -> list[FunctionResultContent]:
    return [
        c for m in response.messages for c in m.contents if isinstance(c, FunctionResultContent)
    ]


def summarize_script() -> ScriptedChatClient:
    return ScriptedChatClient(
        [call_turn("summarize", f'{{"text": "{LONG}"}}'), answer_turn("done")]
    )


# --- sampling ------------------------------------------------------------------------------


async def test_without_opt_in_a_sampling_request_is_an_error_the_model_sees(mode: str) -> None:
    model = summarize_script()
    agent = Agent(model, tools=[sampler(mode)])

    async with agent:
        response = await agent.run("summarize it")

    (result,) = results(response)
    assert result.error == "tool error"
    assert "did not declare the sampling capability" in str(result.result)
    # and it is what the model got back in the next request
    assert model.requests[1].messages[-1].contents == (result,)


async def test_a_handshake_era_request_without_opt_in_is_declined(mode: str) -> None:
    async with sampler(mode) as toolset:
        result = await toolset.call_tool("legacy_summarize", {"text": "t"})

    assert result.is_error
    expected = "Sampling not supported" if mode == "legacy" else "no back-channel"
    assert expected in str(result.value)


async def test_sampling_opted_in_asks_the_given_chat_client(mode: str, stream: bool) -> None:
    model = summarize_script()
    helper = ScriptedChatClient([ChatResponse(Message("assistant", "short"), model="small-1")])
    agent = Agent(model, "Be brief.", tools=[sampler(mode, sampling=helper)])

    async with agent:
        outcome = await run_agent(agent, "summarize it", stream=stream)

    (result,) = results(outcome.response)
    assert result.error is None
    assert result.result == f"summary of {len(LONG)} chars: short (small-1)"
    (request,) = helper.requests
    assert request.messages == (Message("user", f"Summarize: {LONG}"),)
    assert request.options == {
        "max_tokens": 40,
        "instructions": "Answer in one line.",
        "temperature": 0.25,
        "stop": ["END"],
    }  # nothing of the agent's: no tools, no instructions, no history


async def test_the_sdk_callback_passes_through_client_options() -> None:
    # The handshake-era server-to-client request, answered by the SDK's own callback.
    seen: list[types.CreateMessageRequestParams] = []

    async def callback(
        context: ClientRequestContext, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult:
        seen.append(params)
        text = types.TextContent(type="text", text="from the callback")
        return types.CreateMessageResult(role="assistant", content=text, model="cb")

    toolset = sampler("legacy", client_options={"sampling_callback": callback})
    async with toolset:
        result = await toolset.call_tool("legacy_summarize", {"text": "t"})

    assert not result.is_error
    assert result.value == "summary: from the callback"
    assert [p.max_tokens for p in seen] == [40]


async def test_a_failing_sampling_client_is_an_error_without_its_details() -> None:
    helper = ScriptedChatClient([RuntimeError("secret detail")])
    async with sampler("auto", sampling=helper) as toolset:
        result = await toolset.call_tool("summarize", {"text": "t"})

    assert result.is_error
    assert "RuntimeError" in str(result.value)
    assert "secret detail" not in str(result.value)


async def test_tool_using_sampling_is_declined_without_asking_the_model() -> None:
    helper = ScriptedChatClient([])
    callback = sampling_callback(helper, server="s")
    message = types.SamplingMessage(role="user", content=types.TextContent(type="text", text="x"))
    params = types.CreateMessageRequestParams(
        messages=[message], max_tokens=5, tools=[types.Tool(name="t", input_schema={})]
    )
    context: Any = None  # the callback never reads it

    answer = await callback(context, params)

    assert isinstance(answer, types.ErrorData)
    assert "sampling with tools is not offered" in answer.message
    assert helper.requests == []


def test_sampling_options_are_checked_where_they_are_given() -> None:
    async def callback(*_: object) -> None: ...

    with pytest.raises(ValueError, match="not both"):
        sampler(
            "auto", sampling=ScriptedChatClient([]), client_options={"sampling_callback": callback}
        )
    with pytest.raises(TypeError, match="sampling= takes a chat client"):
        sampler("auto", sampling="gpt-5")  # the mistake under test


# --- server instructions ---------------------------------------------------------------------


async def test_server_instructions_stay_out_of_the_prompt_by_default(mode: str) -> None:
    model = ScriptedChatClient([answer_turn("hi")])
    toolset = sampler(mode)
    agent = Agent(model, "Be brief.", tools=[toolset])

    async with agent:
        await agent.run("hi")
        assert toolset.instructions == "Prefer summarize for long texts."

    assert model.requests[0].options["instructions"] == "Be brief."


async def test_server_instructions_opted_in_follow_the_agents(mode: str, stream: bool) -> None:
    model = ScriptedChatClient([answer_turn("hi")])
    toolset = sampler(mode)
    agent = Agent(
        model, "Be brief.", tools=[toolset], context_providers=[toolset.instructions_provider()]
    )

    async with agent:
        await run_agent(agent, "hi", stream=stream)

    assert model.requests[0].options["instructions"] == (
        "Be brief.\n\nInstructions from the MCP server 'sampler':\nPrefer summarize for long texts."
    )
