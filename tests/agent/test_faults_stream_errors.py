"""A provider error reported inside a stream is an error, never a successful turn.

Adapters report an error event of the service's stream as an update holding an
:class:`~agentcore.ErrorContent` with ``finish_reason="error"``. The run raises the
typed error (retryable where it is), commits nothing, and the retry middleware
retries it when no update has reached the caller.
"""

from __future__ import annotations

from typing import Any

import pytest
from agentcore_contrib.retry import Retry

from agentcore import (
    Agent,
    ChatResponseUpdate,
    ErrorContent,
    InMemoryHistoryStore,
    TextContent,
)
from agentcore.errors import (
    ChatClientError,
    ContextLengthExceededError,
    RateLimitedError,
    TransientError,
    stream_error,
)
from agentcore.testing import ScriptedChatClient

from ..loop.harness import run_agent

pytestmark = pytest.mark.anyio


def _error_event(message: str, code: str | None) -> list[ChatResponseUpdate]:
    return [
        ChatResponseUpdate(
            contents=(ErrorContent(message, code=code),), role="assistant", finish_reason="error"
        )
    ]


def _text_then_error() -> list[ChatResponseUpdate]:
    return [
        ChatResponseUpdate(contents=(TextContent("Half an ans"),), role="assistant"),
        *_error_event("the server had an error", "server_error"),
    ]


async def _no_sleep(_seconds: float) -> None:
    return None


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(
    ("code", "message", "error_type", "retryable"),
    [
        ("server_error", "the server had an error", TransientError, True),
        ("overloaded_error", "Overloaded", TransientError, True),
        ("rate_limit_exceeded", "slow down", RateLimitedError, True),
        ("context_length_exceeded", "too long", ContextLengthExceededError, False),
        (None, "something odd", ChatClientError, False),
    ],
)
async def test_an_error_event_fails_the_run_with_its_typed_error_and_commits_nothing(
    stream: bool, code: str | None, message: str, error_type: type[Exception], retryable: bool
) -> None:
    store = InMemoryHistoryStore()
    agent = Agent(ScriptedChatClient([_error_event(message, code)]), history=store)
    session = agent.create_session()

    with pytest.raises(error_type, match=message) as caught:
        await run_agent(agent, "hi", stream=stream, session=session)

    assert type(caught.value) is error_type
    assert isinstance(caught.value, ChatClientError)
    assert caught.value.retryable is retryable
    assert await store.load(session.session_id) == []
    assert session.state == {}


@pytest.mark.parametrize("stream", [False, True])
async def test_an_error_after_some_text_fails_the_run_too(stream: bool) -> None:
    store = InMemoryHistoryStore()
    agent = Agent(ScriptedChatClient([_text_then_error()]), history=store)
    session = agent.create_session()

    with pytest.raises(TransientError):
        await run_agent(agent, "hi", stream=stream, session=session)

    assert await store.load(session.session_id) == []


@pytest.mark.parametrize("stream", [False, True])
async def test_retry_retries_an_error_event_before_any_update_reached_the_caller(
    stream: bool,
) -> None:
    client = ScriptedChatClient([_error_event("the server had an error", "server_error"), "fine"])
    agent = Agent(client, middleware=[Retry(sleep=_no_sleep)])

    response, _ = await run_agent(agent, "hi", stream=stream)

    assert response.text == "fine"
    assert len(client.requests) == 2


async def test_retry_does_not_replay_after_updates_reached_the_caller() -> None:
    client = ScriptedChatClient([_text_then_error(), "unused"])
    agent = Agent(client, middleware=[Retry(sleep=_no_sleep)])
    seen: list[Any] = []

    async def read() -> None:
        async for update in agent.run("hi", stream=True):
            seen.append(update)

    with pytest.raises(TransientError):
        await read()

    assert len(client.requests) == 1
    assert "Half an ans" in "".join(u.text for u in seen)


def test_stream_error_maps_codes_and_keeps_the_provider() -> None:
    error = stream_error("Overloaded", code="overloaded_error", provider="anthropic")

    assert isinstance(error, TransientError)
    assert error.provider == "anthropic"
    assert "Overloaded" in str(error)
