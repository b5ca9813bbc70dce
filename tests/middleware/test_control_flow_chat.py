"""Control flow in chat middleware: every row of the return / raise / call_next tables.

The stack is always ``[A, B, C]``: A and C record, B exits the way the row says.
The actual operation is the model call (``client.get_response``).
"""

from __future__ import annotations

import pytest

from agentcore import (
    Agent,
    ChatContext,
    ChatResponse,
    Message,
    MiddlewareTermination,
    ResponseStream,
)
from agentcore.middleware import CallNext, Middleware
from agentcore.observers import ModelCallEnded
from agentcore.testing import ScriptedChatClient

from .harness import recorder, run_agent, text

pytestmark = [pytest.mark.anyio, pytest.mark.parametrize("stream", [False, True])]


class Boom(Exception):
    """An ordinary exception raised by a middleware."""


def build(b: Middleware, log: list[str]) -> tuple[Agent, ScriptedChatClient]:
    client = ScriptedChatClient([text("from the model")])
    a, c = recorder("chat", "A", log), recorder("chat", "C", log)
    return Agent(client, middleware=[a, b, c]), client


async def test_return_after_call_next_runs_everything_and_keeps_the_real_result(
    stream: bool,
) -> None:
    log: list[str] = []

    async def b(context: ChatContext, call_next: CallNext) -> None:
        log.append("B before")
        await call_next()
        log.append("B after")

    agent, client = build(b, log)
    response, _ = await run_agent(agent, stream=stream)

    assert log == ["A before", "B before", "C before", "C after", "B after", "A after"]
    assert len(client.requests) == 1
    assert response.text == "from the model"


async def test_return_without_call_next_short_circuits_and_upstream_still_runs(
    stream: bool,
) -> None:
    log: list[str] = []
    seen_by_a: list[object] = []

    async def a(context: ChatContext, call_next: CallNext) -> None:
        await call_next()
        seen_by_a.append(context.result)

    async def b(context: ChatContext, call_next: CallNext) -> None:
        log.append("B before")
        context.result = text("from B")

    client = ScriptedChatClient([])
    agent = Agent(client, middleware=[a, b, recorder("chat", "C", log)])
    response, updates = await run_agent(agent, stream=stream)

    assert log == ["B before"]
    assert seen_by_a == [text("from B")]  # upstream post-processing ran and saw B's answer
    assert client.requests == []
    assert response.text == "from B"
    if stream:
        assert "".join(u.text for u in updates) == "from B"


async def test_termination_without_call_next_skips_upstream_post_processing(
    stream: bool,
) -> None:
    log: list[str] = []

    async def b(context: ChatContext, call_next: CallNext) -> None:
        log.append("B before")
        context.result = text("from B")
        raise MiddlewareTermination("blocked")

    agent, client = build(b, log)
    response, updates = await run_agent(agent, stream=stream)

    assert log == ["A before", "B before"]
    assert client.requests == []
    assert response.text == "from B"
    if stream:
        assert "".join(u.text for u in updates) == "from B"


async def test_termination_after_call_next_keeps_the_real_result_and_skips_upstream(
    stream: bool,
) -> None:
    log: list[str] = []

    async def b(context: ChatContext, call_next: CallNext) -> None:
        log.append("B before")
        await call_next()
        raise MiddlewareTermination("enough")

    agent, client = build(b, log)
    response, _ = await run_agent(agent, stream=stream)

    assert log == ["A before", "B before", "C before", "C after"]
    assert len(client.requests) == 1
    assert response.text == "from the model"


class ModelCalls:
    """An observer keeping the response of every model call."""

    def __init__(self) -> None:
        self.responses: list[object] = []

    def on_model_call_end(self, event: ModelCallEnded) -> None:
        self.responses.append(event.response)


async def test_termination_result_without_call_next_becomes_the_model_response(
    stream: bool,
) -> None:
    log: list[str] = []

    async def b(context: ChatContext, call_next: CallNext) -> None:
        log.append("B before")
        raise MiddlewareTermination("cached", result="from B")

    calls = ModelCalls()
    client = ScriptedChatClient([])
    a, c = recorder("chat", "A", log), recorder("chat", "C", log)
    agent = Agent(client, middleware=[a, b, c], observers=[calls])
    response, updates = await run_agent(agent, stream=stream)

    assert log == ["A before", "B before"]
    assert client.requests == []
    assert calls.responses == [text("from B")]
    assert response.text == "from B"
    if stream:
        assert "".join(u.text for u in updates) == "from B"


async def test_termination_result_after_call_next_replaces_the_model_response(
    stream: bool,
) -> None:
    log: list[str] = []

    async def b(context: ChatContext, call_next: CallNext) -> None:
        log.append("B before")
        await call_next()
        raise MiddlewareTermination(result=Message("assistant", "from B"))

    calls = ModelCalls()
    client = ScriptedChatClient([text("from the model")])
    a, c = recorder("chat", "A", log), recorder("chat", "C", log)
    agent = Agent(client, middleware=[a, b, c], observers=[calls])
    response, _ = await run_agent(agent, stream=stream)

    assert log == ["A before", "B before", "C before", "C after"]
    assert len(client.requests) == 1  # the model was asked; its answer was replaced
    assert calls.responses == [
        ChatResponse(messages=(Message("assistant", "from B"),), finish_reason="stop")
    ]
    assert response.text == "from B"


async def test_another_exception_without_call_next_propagates_to_the_caller(
    stream: bool,
) -> None:
    log: list[str] = []

    async def b(context: ChatContext, call_next: CallNext) -> None:
        log.append("B before")
        raise Boom("refused")

    agent, client = build(b, log)
    with pytest.raises(Boom, match="refused"):
        await run_agent(agent, stream=stream)

    assert log == ["A before", "B before"]
    assert client.requests == []


async def test_another_exception_after_call_next_propagates_to_the_caller(
    stream: bool,
) -> None:
    log: list[str] = []

    async def b(context: ChatContext, call_next: CallNext) -> None:
        log.append("B before")
        await call_next()
        raise Boom("rejected the answer")

    agent, client = build(b, log)
    with pytest.raises(Boom, match="rejected the answer"):
        await run_agent(agent, stream=stream)

    assert log == ["A before", "B before", "C before", "C after"]
    assert len(client.requests) == 1


async def test_a_short_circuit_may_set_a_stream_in_a_streaming_run(stream: bool) -> None:
    seen: list[object] = []

    async def a(context: ChatContext, call_next: CallNext) -> None:
        await call_next()
        seen.append(type(context.result))

    async def b(context: ChatContext, call_next: CallNext) -> None:
        canned = ScriptedChatClient([text("from B")])
        if context.stream:
            context.result = canned.get_response(context.messages, stream=True)
        else:
            context.result = await canned.get_response(context.messages)

    client = ScriptedChatClient([])
    agent = Agent(client, middleware=[a, b])
    response, updates = await run_agent(agent, stream=stream)

    assert seen == [ResponseStream if stream else ChatResponse]
    assert client.requests == []
    assert response.text == "from B"
    if stream:
        assert [u.text for u in updates if u.text] == ["from", " B"]
