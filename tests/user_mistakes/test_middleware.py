"""Mistakes in writing middleware (M14-M19)."""

from __future__ import annotations

import gc
import warnings
from typing import Any

import pytest

from agentcore import (
    Agent,
    AgentContext,
    ChatContext,
    FunctionInvocationContext,
    MiddlewareTermination,
    tool,
)
from agentcore.middleware import CallNext
from agentcore.testing import ScriptedChatClient
from tests.middleware.harness import one_call, run_agent, text

pytestmark = pytest.mark.anyio


def _agent(middleware: list[Any], *script: Any) -> Agent:
    @tool
    def lookup(city: str) -> str:
        """The weather in a city."""
        return f"sunny in {city}"

    client = ScriptedChatClient(list(script) or [text("two")])
    return Agent(client, tools=[lookup], middleware=middleware)


def test_m14_a_sync_function_as_middleware_is_refused_at_construction() -> None:
    def sync(context: AgentContext, call_next: CallNext) -> None:
        pass

    # Through Any: both checkers reject this line (tests/typing/test_static_mistakes.py).
    mistake: Any = sync
    with pytest.raises(TypeError, match=r"is not a middleware: give .*async def"):
        Agent(ScriptedChatClient([]), middleware=[mistake])


def test_m15_a_middleware_without_call_next_is_refused_at_construction() -> None:
    async def no_next(context: AgentContext) -> None:
        pass

    # Through Any: both checkers reject this line (tests/typing/test_static_mistakes.py).
    mistake: Any = no_next
    with pytest.raises(
        TypeError, match=r"no_next.* needs a call_next parameter.*take \(context, call_next\)"
    ):
        Agent(ScriptedChatClient([]), middleware=[mistake])


def test_m16_a_middleware_class_instead_of_an_instance_is_refused() -> None:
    class Logging:
        async def process(self, context: AgentContext, call_next: CallNext) -> None:
            await call_next()

    # Through Any: both checkers reject this line (tests/typing/test_static_mistakes.py).
    mistake: Any = Logging
    with pytest.raises(
        TypeError, match=r"Logging is a class; pass an instance .*\(.*Logging\(\)\)"
    ):
        Agent(ScriptedChatClient([]), middleware=[mistake])


# M17: a middleware that calls call_next() without awaiting it. Statically, CallNext
# returning a coroutine makes both checkers flag the bare call
# (tests/typing/test_static_mistakes.py, mistakes/m17_call_next_not_awaited.py); at run
# time the run fails naming the middleware, in every scope.


async def _agent_forgets(context: AgentContext, call_next: CallNext) -> None:
    forgot: Any = call_next  # through Any: the checkers would flag the bare call
    forgot()  # the mistake under test: no await


async def _chat_forgets(context: ChatContext, call_next: CallNext) -> None:
    forgot: Any = call_next  # through Any: the checkers would flag the bare call
    forgot()  # the mistake under test: no await


async def _function_forgets(context: FunctionInvocationContext, call_next: CallNext) -> None:
    forgot: Any = call_next  # through Any: the checkers would flag the bare call
    forgot()  # the mistake under test: no await


@pytest.mark.parametrize(
    "middleware", [_agent_forgets, _chat_forgets, _function_forgets], ids=lambda m: m.__name__
)
async def test_m17_call_next_without_await_fails_the_run_naming_the_middleware(
    stream: bool, middleware: object
) -> None:
    agent = _agent([middleware], one_call("lookup", '{"city": "Oslo"}'), text("done"))

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "coroutine was never awaited" left behind
        with pytest.raises(
            TypeError,
            match=rf"middleware .*{middleware.__name__} called call_next\(\) without awaiting "  # type: ignore[attr-defined]  # the fixture yields functions
            r"it.*write `await call_next\(\)`",
        ):
            await run_agent(agent, "weather?", stream=stream)
        gc.collect()


async def test_m17_a_class_middleware_is_named_by_its_class(stream: bool) -> None:
    class Audit:
        async def process(self, context: ChatContext, call_next: CallNext) -> None:
            forgot: Any = call_next  # through Any: the checkers would flag the bare call
            forgot()  # the mistake under test: no await

    with pytest.raises(TypeError, match=r"middleware .*Audit called call_next\(\) without"):
        await run_agent(_agent([Audit()]), stream=stream)


async def test_m17_returning_without_call_next_or_a_result_warns_naming_it(stream: bool) -> None:
    async def gate(context: ChatContext, call_next: CallNext) -> None:
        if context.messages[-1].text == "never true":
            await call_next()

    agent = _agent([gate])

    with pytest.warns(
        UserWarning,
        match=r"middleware .*gate returned without calling call_next\(\) and without setting "
        r"context.result.*write `await call_next\(\)`.*set context.result.*MiddlewareTermination",
    ):
        response, _ = await run_agent(agent, stream=stream)

    assert response.text == ""


async def test_m17_a_short_circuit_with_a_result_or_a_termination_stays_quiet(
    stream: bool,
) -> None:
    async def cached(context: AgentContext, call_next: CallNext) -> None:
        raise MiddlewareTermination(result="from the cache")

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        response, _ = await run_agent(_agent([cached]), stream=stream)

    assert response.text == "from the cache"


async def test_m18_call_next_twice_calls_the_model_twice_by_design(stream: bool) -> None:
    # Documented in docs/middleware.md ("Calling call_next twice"): retry needs it.
    async def twice(context: ChatContext, call_next: CallNext) -> None:
        await call_next()
        await call_next()

    client = ScriptedChatClient([text("one"), text("two")])
    agent = Agent(client, middleware=[twice])

    response, _ = await run_agent(agent, stream=stream)

    assert len(client.requests) == 2
    if not stream:
        assert response.text == "two"  # the second call's result is the one kept


def test_m19_untyped_middleware_without_a_decorator_is_refused() -> None:
    async def untyped(context, call_next):  # type: ignore[no-untyped-def]  # the mistake
        await call_next()

    with pytest.raises(
        TypeError,
        match=r"cannot tell the scope of middleware .*annotate its context parameter as "
        r"AgentContext, ChatContext or FunctionInvocationContext, or decorate it",
    ):
        Agent(ScriptedChatClient([]), middleware=[untyped])
