"""A conformance suite for chat-client adapters.

A provider author points it at an adapter by writing a *harness*: an object that
builds the adapter and, for each scenario the kit asks for, makes the next request
receive the scenario's answer in the provider's wire format (usually from a local
HTTP server the harness starts). Then::

    from agentcore.testing.conformance import ChatClientConformance

    class TestMyAdapter(ChatClientConformance):
        @pytest.fixture
        def harness(self) -> Iterator[MyHarness]:
            with MyHarness() as harness:
                yield harness

pytest collects the inherited tests: protocol conformance; a text answer; one and
several tool calls; streamed arguments; stream fold equals the non-streamed
response; usage present and equal in both modes; finish reasons, response ids
and models; error mapping to the taxonomy; cancellation closes the stream; the
history an agent sends stays valid; and what the adapter *sends*: instructions,
tools and their schemas, ``tool_choice``, ``response_format``, tool results and
reasoning handed back, read from the recorded request through the harness's
:meth:`~ConformanceHarness.sent_request`. Tests run streaming and non-streaming, on
asyncio and trio. ``docs/provider-guide.md`` walks through a harness.

The checks of what an adapter sends are also plain functions (``check_sends_*``),
so an author can run one on its own.

This module imports pytest; import it only from tests.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Literal, Protocol, runtime_checkable

import anyio
import attrs
import pytest

from agentcore._types.contents import (
    FunctionCallContent,
    FunctionResultContent,
    ReasoningContent,
    TextContent,
)
from agentcore._types.messages import Message
from agentcore._types.responses import ChatResponse, ChatResponseUpdate
from agentcore._types.usage import Usage
from agentcore.errors import (
    AuthenticationError,
    ChatClientError,
    ContextLengthExceededError,
    InvalidRequestError,
    ModelNotFoundError,
    RateLimitedError,
    TransientError,
)
from agentcore.protocols import SupportsGetResponse

__all__ = [
    "ChatClientConformance",
    "ConformanceHarness",
    "ErrorKind",
    "Scenario",
    "SentRequest",
    "check_sends_reasoning_back",
    "check_sends_request_options",
    "check_sends_response_format",
    "check_sends_tool_results",
    "scenario_names",
    "standard_scenarios",
]

ErrorKind = Literal[
    "authentication",
    "rate_limited",
    "context_length",
    "invalid_request",
    "model_not_found",
    "transient",
]

ERROR_CLASSES: dict[ErrorKind, type[ChatClientError]] = {
    "authentication": AuthenticationError,
    "rate_limited": RateLimitedError,
    "context_length": ContextLengthExceededError,
    "invalid_request": InvalidRequestError,
    "model_not_found": ModelNotFoundError,
    "transient": TransientError,
}


@attrs.frozen
class Scenario:
    """One scripted exchange.

    ``response`` is what the adapter must produce (the harness encodes it in the
    wire format: text, function calls with their ids and JSON-string arguments,
    usage, finish reason, response id and model). ``error`` asks the harness to
    fail the request the way the provider does for that kind, with a
    ``retry-after`` of ``retry_after`` seconds for rate limits. ``chunks`` asks for
    a long stream (used by the cancellation test): send it in small pieces with a
    pause between them, so the client leaves while the server is still writing.
    """

    name: str
    response: ChatResponse[Any] | None = None
    error: ErrorKind | None = None
    retry_after: float | None = None
    chunks: int = 0


@attrs.frozen
class SentRequest:
    """What an adapter put in one request, read back from the recorded wire body by the
    harness and written in the kit's terms.

    ``instructions``: the system prompt or instructions text as sent (parts joined),
    ``None`` when there was none. ``tools``: each function tool's name and the JSON
    schema of its parameters. ``tool_choice``: ``"auto"``, ``"none"``, ``"required"``,
    or the name of the one function the request forces; ``None`` when not sent.
    ``response_format``: the JSON schema of the structured output asked for.
    ``function_results``: each function result sent, by call id, as the text the wire
    carried. ``reasoning``: the opaque reasoning payloads sent back (a signature,
    encrypted content), or ``None`` when the API takes no reasoning back at all.
    """

    instructions: str | None = None
    tools: Mapping[str, Mapping[str, Any]] = attrs.field(factory=dict[str, Mapping[str, Any]])
    tool_choice: str | None = None
    response_format: Mapping[str, Any] | None = None
    function_results: Mapping[str, str] = attrs.field(factory=dict[str, str])
    reasoning: tuple[str, ...] | None = ()


@runtime_checkable
class ConformanceHarness(Protocol):
    """What a provider author implements to run the kit against an adapter.

    A harness usually starts a local HTTP server, points the adapter at it, and
    queues one reply per :meth:`serve` call; requests take the queued replies in
    order. Build a fresh harness (and server) for every test.
    """

    def client(self) -> SupportsGetResponse[Any]:
        """The adapter under test, pointed at the harness's server (the same one each call)."""
        ...

    def serve(self, scenario: Scenario, *, stream: bool) -> None:
        """Queue ``scenario`` as the answer to the next request not yet answered.

        ``stream`` says which wire form to use (a whole body, or the provider's
        streamed events). The kit may queue two scenarios before the requests
        arrive (an agent's tool round): answer them in order.
        """
        ...

    def connection_closed(self, timeout: float) -> bool:
        """Whether the server saw the client hang up, waiting up to ``timeout`` seconds.

        A server notices only when a write fails, so this needs the slow, long
        stream :attr:`Scenario.chunks` asks for. Called from a worker thread.
        """
        ...

    def sent_call_ids(self, request_index: int) -> tuple[set[str], set[str]]:
        """The call ids of the function calls and of the function results that the
        adapter sent in request number ``request_index`` (from 0) of this test."""
        ...

    def sent_request(self, request_index: int) -> SentRequest:
        """What the adapter sent in request number ``request_index`` (from 0) of this
        test, read from the body the server recorded (see :class:`SentRequest`)."""
        ...


def _assistant(*contents: Any) -> Message:
    return Message("assistant", contents)


def standard_scenarios() -> dict[str, Scenario]:
    """The scenarios the kit runs, by name."""
    usage = Usage(input_tokens=12, output_tokens=7, total_tokens=19)
    long_args = json.dumps({"query": "x" * 300, "limit": 5, "filters": ["a", "b", "c"]})
    return {
        "text": Scenario(
            "text",
            ChatResponse(
                messages=(_assistant(TextContent("Hello from the conformance kit.")),),
                response_id="resp_text",
                model="conformance-model",
                finish_reason="stop",
                usage=usage,
            ),
        ),
        "length": Scenario(
            "length",
            ChatResponse(
                messages=(_assistant(TextContent("Cut short")),),
                response_id="resp_length",
                model="conformance-model",
                finish_reason="length",
                usage=usage,
            ),
        ),
        "one_call": Scenario(
            "one_call",
            ChatResponse(
                messages=(
                    _assistant(FunctionCallContent("call_a", "get_weather", '{"city": "Paris"}')),
                ),
                response_id="resp_call",
                model="conformance-model",
                finish_reason="tool_calls",
                usage=usage,
            ),
        ),
        "parallel_calls": Scenario(
            "parallel_calls",
            ChatResponse(
                messages=(
                    _assistant(
                        FunctionCallContent("call_a", "get_weather", '{"city": "Paris"}'),
                        FunctionCallContent("call_b", "get_weather", '{"city": "Oslo"}'),
                        FunctionCallContent("call_c", "get_time", '{"zone": "UTC"}'),
                    ),
                ),
                response_id="resp_parallel",
                model="conformance-model",
                finish_reason="tool_calls",
                usage=usage,
            ),
        ),
        "long_arguments": Scenario(
            "long_arguments",
            ChatResponse(
                messages=(_assistant(FunctionCallContent("call_long", "search", long_args)),),
                response_id="resp_long",
                model="conformance-model",
                finish_reason="tool_calls",
                usage=usage,
            ),
        ),
        "after_tool": Scenario(
            "after_tool",
            ChatResponse(
                messages=(_assistant(TextContent("It is sunny in Paris.")),),
                response_id="resp_after",
                model="conformance-model",
                finish_reason="stop",
                usage=usage,
            ),
        ),
        "reasoning": Scenario(
            "reasoning",
            ChatResponse(
                messages=(
                    _assistant(
                        ReasoningContent("Paris first.", protected_data=REASONING_PAYLOAD),
                        TextContent("Done thinking."),
                    ),
                ),
                response_id="resp_reasoning",
                model="conformance-model",
                finish_reason="stop",
                usage=usage,
            ),
        ),
        "long_stream": Scenario(
            "long_stream",
            ChatResponse(
                messages=(_assistant(TextContent("word " * 400)),),
                response_id="resp_stream",
                model="conformance-model",
                finish_reason="stop",
                usage=usage,
            ),
            chunks=400,
        ),
    }


REASONING_PAYLOAD = "opaque-reasoning-payload-1"
"""The ``protected_data`` of the ``reasoning`` scenario's reasoning: it must come back."""

INSTRUCTIONS = "Answer in French, in one sentence."
CITY_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "celsius": {"type": "number"}},
    "required": ["city", "celsius"],
    "additionalProperties": False,
}


async def _ask(
    client: SupportsGetResponse[Any], stream: bool
) -> tuple[ChatResponse[Any], list[ChatResponseUpdate]]:
    messages = [Message("user", "conformance check")]
    if not stream:
        return await client.get_response(messages), []
    response_stream = client.get_response(messages, stream=True)
    updates = [update async for update in response_stream]
    return await response_stream.get_final_response(), updates


def _calls(response: ChatResponse[Any]) -> list[FunctionCallContent]:
    return [c for m in response.messages for c in m.contents if isinstance(c, FunctionCallContent)]


def _same_call(actual: FunctionCallContent, expected: FunctionCallContent) -> None:
    assert actual.call_id == expected.call_id, f"call id {actual.call_id!r} != {expected.call_id!r}"
    assert actual.name == expected.name, f"call name {actual.name!r} != {expected.name!r}"
    assert actual.parse_arguments() == expected.parse_arguments(), (
        f"arguments of {expected.name} differ: {actual.arguments!r}"
    )


def _matches(actual: ChatResponse[Any], expected: ChatResponse[Any]) -> None:
    assert actual.text == expected.text, f"text {actual.text!r} != {expected.text!r}"
    actual_calls, expected_calls = _calls(actual), _calls(expected)
    assert len(actual_calls) == len(expected_calls), (
        f"{len(actual_calls)} function calls, expected {len(expected_calls)}"
    )
    for got, want in zip(actual_calls, expected_calls, strict=True):
        _same_call(got, want)
    assert actual.finish_reason == expected.finish_reason, (
        f"finish_reason {actual.finish_reason!r} != {expected.finish_reason!r}"
    )
    assert actual.response_id == expected.response_id, (
        f"response_id {actual.response_id!r} != {expected.response_id!r}"
    )
    assert actual.model == expected.model, f"model {actual.model!r} != {expected.model!r}"
    assert actual.usage is not None, "the adapter reported no usage"
    if expected.usage is not None:
        assert actual.usage.input_tokens == expected.usage.input_tokens, "input tokens differ"
        assert actual.usage.output_tokens == expected.usage.output_tokens, "output tokens differ"


STREAM_MODES = [pytest.param(False, id="non-streaming"), pytest.param(True, id="streaming")]


class ChatClientConformance:
    """Inherit in a test class and provide a ``harness`` fixture (see the module doc)."""

    scenarios: dict[str, Scenario] = standard_scenarios()

    @pytest.fixture(params=["asyncio", "trio"])
    def anyio_backend(self, request: pytest.FixtureRequest) -> str:
        return str(request.param)

    def test_satisfies_the_chat_client_protocol(self, harness: ConformanceHarness) -> None:
        assert isinstance(harness.client(), SupportsGetResponse)

    def _serve(self, harness: ConformanceHarness, name: str, stream: bool) -> Scenario:
        scenario = self.scenarios[name]
        harness.serve(scenario, stream=stream)
        return scenario

    @pytest.mark.anyio
    @pytest.mark.parametrize("stream", STREAM_MODES)
    @pytest.mark.parametrize(
        "name", ["text", "length", "one_call", "parallel_calls", "long_arguments"]
    )
    async def test_response_matches_the_scenario(
        self, harness: ConformanceHarness, name: str, stream: bool
    ) -> None:
        scenario = self._serve(harness, name, stream)
        assert scenario.response is not None
        response, _ = await _ask(harness.client(), stream)
        _matches(response, scenario.response)

    @pytest.mark.anyio
    @pytest.mark.parametrize("name", ["text", "one_call", "parallel_calls", "long_arguments"])
    async def test_stream_fold_equals_the_non_streamed_response(
        self, harness: ConformanceHarness, name: str
    ) -> None:
        client = harness.client()
        self._serve(harness, name, False)
        plain, _ = await _ask(client, False)
        self._serve(harness, name, True)
        streamed, updates = await _ask(client, True)
        assert ChatResponse.from_updates(updates) == streamed, "final response != fold of updates"
        assert streamed.messages == plain.messages
        assert streamed.usage == plain.usage, f"usage differs: {streamed.usage} vs {plain.usage}"
        assert streamed.finish_reason == plain.finish_reason
        assert streamed.response_id == plain.response_id, "response_id differs between modes"
        assert streamed.model == plain.model, "model differs between modes"

    @pytest.mark.anyio
    async def test_streamed_arguments_arrive_in_pieces_that_join(
        self, harness: ConformanceHarness
    ) -> None:
        self._serve(harness, "long_arguments", True)
        _, updates = await _ask(harness.client(), True)
        pieces = [c for u in updates for c in u.contents if isinstance(c, FunctionCallContent)]
        assert len(pieces) > 1, "long arguments should stream in more than one piece"
        assert len({p.call_id for p in pieces}) == 1, "all pieces of one call share its call_id"
        assert pieces[0].name == "search", "the first piece carries the function name"

    @pytest.mark.anyio
    @pytest.mark.parametrize("stream", STREAM_MODES)
    @pytest.mark.parametrize("kind", list(ERROR_CLASSES))
    async def test_errors_map_to_the_taxonomy(
        self, harness: ConformanceHarness, kind: ErrorKind, stream: bool
    ) -> None:
        retry_after = 7.0 if kind == "rate_limited" else None
        harness.serve(Scenario(f"error_{kind}", error=kind, retry_after=retry_after), stream=stream)
        expected = ERROR_CLASSES[kind]
        with pytest.raises(expected) as caught:
            await _ask(harness.client(), stream)
        error = caught.value
        assert error.__cause__ is not None, "the provider's exception must be chained"
        assert error.retryable == expected.retryable
        if retry_after is not None:
            assert error.retry_after == pytest.approx(retry_after)

    @pytest.mark.anyio
    async def test_leaving_a_stream_early_closes_the_connection(
        self, harness: ConformanceHarness
    ) -> None:
        self._serve(harness, "long_stream", True)
        stream = harness.client().get_response([Message("user", "go")], stream=True)
        updates = aiter(stream)
        await anext(updates)  # one update, then leave: aclose() must close the source
        await stream.aclose()
        # Close the kit's own iterator too, rather than leave it to the garbage
        # collector (which trio reports as a ResourceWarning against the adapter).
        await updates.aclose()
        closed = await anyio.to_thread.run_sync(harness.connection_closed, 5.0)
        assert closed, "the server did not see the connection close after aclose()"

    @pytest.mark.anyio
    @pytest.mark.parametrize("stream", STREAM_MODES)
    async def test_sends_instructions_tools_and_tool_choice(
        self, harness: ConformanceHarness, stream: bool
    ) -> None:
        await check_sends_request_options(harness, stream=stream)

    @pytest.mark.anyio
    @pytest.mark.parametrize("stream", STREAM_MODES)
    async def test_sends_the_response_format(
        self, harness: ConformanceHarness, stream: bool
    ) -> None:
        await check_sends_response_format(harness, stream=stream)

    @pytest.mark.anyio
    @pytest.mark.parametrize("stream", STREAM_MODES)
    async def test_sends_tool_results(self, harness: ConformanceHarness, stream: bool) -> None:
        await check_sends_tool_results(harness, stream=stream)

    @pytest.mark.anyio
    @pytest.mark.parametrize("stream", STREAM_MODES)
    async def test_sends_reasoning_back(self, harness: ConformanceHarness, stream: bool) -> None:
        await check_sends_reasoning_back(harness, stream=stream)

    @pytest.mark.anyio
    @pytest.mark.parametrize("stream", STREAM_MODES)
    async def test_an_agent_sends_a_valid_history_after_a_tool_round(
        self, harness: ConformanceHarness, stream: bool
    ) -> None:
        from agentcore._agent.agent import Agent
        from agentcore.tools import tool

        @tool
        def get_weather(city: str) -> str:
            """Weather for a city."""
            return f"sunny in {city}"

        self._serve(harness, "one_call", stream)
        self._serve(harness, "after_tool", stream)
        agent = Agent(harness.client(), "Answer briefly.", tools=[get_weather])
        if stream:
            response = await agent.run("weather?", stream=True).get_final_response()
        else:
            response = await agent.run("weather?")
        assert response.text == "It is sunny in Paris."
        results = [
            c for m in response.messages for c in m.contents if isinstance(c, FunctionResultContent)
        ]
        assert [r.result for r in results] == ["sunny in Paris"]
        calls, answered = harness.sent_call_ids(1)
        assert calls == {"call_a"}, f"the second request should repeat the call, sent {calls}"
        assert answered == calls, f"every call needs its result; sent results for {answered}"


async def _send(
    harness: ConformanceHarness,
    stream: bool,
    messages: Sequence[Message],
    options: Mapping[str, Any],
) -> ChatResponse[Any]:
    client = harness.client()
    if not stream:
        return await client.get_response(messages, options=options)
    response_stream = client.get_response(messages, options=options, stream=True)
    return await response_stream.get_final_response()


def _weather_tool() -> Any:
    from agentcore.tools import tool

    @tool
    def get_weather(city: str, days: int = 1) -> str:
        """Weather for a city."""
        return f"sunny in {city}"

    return get_weather


async def check_sends_request_options(harness: ConformanceHarness, *, stream: bool) -> None:
    """Instructions, a function tool with its schema and a forced ``tool_choice`` reach
    the request the server records."""
    harness.serve(standard_scenarios()["text"], stream=stream)
    options = {
        "instructions": INSTRUCTIONS,
        "tools": [_weather_tool()],
        "tool_choice": {"mode": "required", "required_function_name": "get_weather"},
    }
    await _send(harness, stream, [Message("user", "weather?")], options)
    sent = harness.sent_request(0)
    assert sent.instructions is not None, "the adapter sent no instructions"
    assert INSTRUCTIONS in sent.instructions, f"instructions sent: {sent.instructions!r}"
    assert set(sent.tools) == {"get_weather"}, f"tools sent: {sorted(sent.tools)}"
    properties = sent.tools["get_weather"].get("properties")
    assert isinstance(properties, Mapping), "the tool's schema has no properties"
    assert set(properties) == {"city", "days"}, f"the tool's schema lost fields: {properties}"  # pyright: ignore[reportUnknownArgumentType]  # a JSON schema
    assert sent.tool_choice == "get_weather", f"tool_choice sent: {sent.tool_choice!r}"


async def check_sends_response_format(harness: ConformanceHarness, *, stream: bool) -> None:
    """``response_format`` reaches the request as the JSON schema asked for."""
    harness.serve(standard_scenarios()["text"], stream=stream)
    await _send(harness, stream, [Message("user", "weather?")], {"response_format": CITY_SCHEMA})
    schema = harness.sent_request(0).response_format
    assert schema is not None, "the adapter sent no response format"
    properties = schema.get("properties")
    assert isinstance(properties, Mapping), f"the schema sent has no properties: {schema}"
    assert set(properties) == {"city", "celsius"}, f"schema sent: {schema}"  # pyright: ignore[reportUnknownArgumentType]  # a JSON schema


async def check_sends_tool_results(harness: ConformanceHarness, *, stream: bool) -> None:
    """After an agent's tool round, the next request carries the call and its result."""
    from agentcore._agent.agent import Agent

    scenarios = standard_scenarios()
    harness.serve(scenarios["one_call"], stream=stream)
    harness.serve(scenarios["after_tool"], stream=stream)
    agent = Agent(harness.client(), "Answer briefly.", tools=[_weather_tool()])
    if stream:
        await agent.run("weather?", stream=True).get_final_response()
    else:
        await agent.run("weather?")
    results = harness.sent_request(1).function_results
    assert dict(results) == {"call_a": "sunny in Paris"}, f"results sent: {dict(results)}"


async def check_sends_reasoning_back(harness: ConformanceHarness, *, stream: bool) -> None:
    """Reasoning the service returned goes back with the history on the next turn (the
    check passes when the harness reports an API that takes no reasoning back)."""
    scenarios = standard_scenarios()
    harness.serve(scenarios["reasoning"], stream=stream)
    harness.serve(scenarios["text"], stream=stream)
    first = await _send(harness, stream, [Message("user", "think")], {})
    history = [Message("user", "think"), *first.messages, Message("user", "and now?")]
    await _send(harness, stream, history, {})
    reasoning = harness.sent_request(1).reasoning
    if reasoning is None:
        return
    assert REASONING_PAYLOAD in reasoning, f"reasoning sent back: {reasoning}"


def scenario_names(scenarios: Sequence[Scenario]) -> list[str]:
    """Names of scenarios (for parametrizing an author's own extra tests)."""
    return [s.name for s in scenarios]
