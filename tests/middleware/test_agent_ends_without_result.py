"""An agent middleware that ends the run without a result gives the same empty response
in both modes: no model call, no updates, never a ``TypeError`` in one mode only. One that
simply returns without calling ``call_next`` also gets a warning naming it (it is most
likely a forgotten ``await call_next()``); a termination is on purpose and stays quiet."""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator

import pytest

from agentcore import (
    Agent,
    AgentContext,
    AgentResponse,
    InMemoryHistoryStore,
    MiddlewareTermination,
)
from agentcore.middleware import CallNext, Middleware
from agentcore.testing import ScriptedChatClient

from .harness import run_agent, text

pytestmark = [pytest.mark.anyio, pytest.mark.parametrize("stream", [False, True])]


async def skip(context: AgentContext, call_next: CallNext) -> None:
    """Never calls ``call_next`` and sets no result."""


async def stop(context: AgentContext, call_next: CallNext) -> None:
    raise MiddlewareTermination("nothing to do")


@contextlib.contextmanager
def expected_warning(middleware: object) -> Iterator[None]:
    """The warning a skipping middleware gets; none for a termination."""
    if middleware is skip:
        with pytest.warns(UserWarning, match="skip returned without calling call_next"):
            yield
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            yield


@pytest.mark.parametrize("middleware", [skip, stop], ids=["no call_next", "termination"])
async def test_a_run_ended_without_a_result_is_an_empty_response(
    stream: bool, middleware: Middleware
) -> None:
    client = ScriptedChatClient([text("never")])
    history = InMemoryHistoryStore()
    agent = Agent(client, name="bot", middleware=[middleware], history=history)
    session = agent.create_session()

    with expected_warning(middleware):
        response, updates = await run_agent(agent, "hi", stream=stream, session=session)

    assert response == AgentResponse(agent_name="bot")
    assert all(not update.contents for update in updates)
    assert client.requests == []
    assert await history.load(session.session_id) == []


@pytest.mark.parametrize("middleware", [skip, stop], ids=["no call_next", "termination"])
async def test_the_same_run_per_call_middleware_also_ends_empty(
    stream: bool, middleware: Middleware
) -> None:
    client = ScriptedChatClient([text("never")])
    agent = Agent(client, name="bot")

    with expected_warning(middleware):
        response, _ = await run_agent(agent, "hi", stream=stream, middleware=[middleware])

    assert response == AgentResponse(agent_name="bot")
    assert client.requests == []


async def test_a_result_of_the_wrong_type_is_refused_clearly(stream: bool) -> None:
    async def wrong(context: AgentContext, call_next: CallNext) -> None:
        context.result = "not a response"  # type: ignore[assignment]  # the mistake under test

    agent = Agent(ScriptedChatClient([text("never")]), name="bot", middleware=[wrong])

    with pytest.raises(TypeError, match="not an AgentResponse"):
        await run_agent(agent, "hi", stream=stream)
