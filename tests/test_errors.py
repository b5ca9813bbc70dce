"""The error taxonomy: one hierarchy, retryable flags, and the details adapters fill in."""

from __future__ import annotations

import pytest

from agentcore.errors import (
    AgentcoreError,
    AuthenticationError,
    ChatClientError,
    ContentFilteredError,
    ContextLengthExceededError,
    InvalidRequestError,
    ModelNotFoundError,
    RateLimitedError,
    RunStateError,
    StructuredOutputError,
    ToolError,
    TransientError,
    UnknownToolError,
)

CLIENT_ERRORS: list[tuple[type[ChatClientError], bool]] = [
    (AuthenticationError, False),
    (RateLimitedError, True),
    (ContextLengthExceededError, False),
    (ContentFilteredError, False),
    (InvalidRequestError, False),
    (ModelNotFoundError, False),
    (TransientError, True),
]


@pytest.mark.parametrize(("cls", "_retryable"), CLIENT_ERRORS)
def test_client_errors_are_chat_client_errors(cls: type[ChatClientError], _retryable: bool) -> None:
    assert issubclass(cls, ChatClientError)
    assert issubclass(cls, AgentcoreError)


@pytest.mark.parametrize(("cls", "retryable"), CLIENT_ERRORS)
def test_retryable_says_whether_the_same_request_may_work_later(
    cls: type[ChatClientError], retryable: bool
) -> None:
    assert cls("x").retryable is retryable


def test_base_client_error_is_not_retryable() -> None:
    assert ChatClientError("x").retryable is False


@pytest.mark.parametrize("cls", [ToolError, StructuredOutputError, RunStateError])
def test_other_errors_are_agentcore_errors(cls: type[Exception]) -> None:
    assert issubclass(cls, AgentcoreError)
    assert not issubclass(cls, ChatClientError)


def test_unknown_tool_error_is_a_tool_error() -> None:
    assert issubclass(UnknownToolError, ToolError)


def test_client_error_keeps_its_details() -> None:
    error = RateLimitedError("slow down", status_code=429, provider="openai", retry_after=1.5)

    assert str(error) == "slow down"
    assert (error.message, error.status_code) == ("slow down", 429)
    assert (error.provider, error.retry_after) == ("openai", 1.5)


def test_client_error_details_default_to_none() -> None:
    error = TransientError("timeout")

    assert (error.status_code, error.provider, error.retry_after) == (None, None, None)


def test_unknown_tool_error_lists_the_available_tools() -> None:
    error = UnknownToolError("fly", ["search", "add"])

    assert str(error) == "the model called an unknown tool 'fly'; available tools: add, search"
    assert error.name == "fly"


def test_unknown_tool_error_without_tools_says_none() -> None:
    assert str(UnknownToolError("fly", [])).endswith("available tools: none")


def test_structured_output_error_keeps_the_raw_text() -> None:
    error = StructuredOutputError("not a Weather", raw_text='{"temp": "hot"}')

    assert str(error) == "not a Weather"
    assert error.raw_text == '{"temp": "hot"}'
