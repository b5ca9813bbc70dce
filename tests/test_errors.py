"""The error taxonomy: one hierarchy, retryable flags, and the details adapters fill in."""

from __future__ import annotations

import email.utils
import math
import time
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from hypothesis import given
from hypothesis import strategies as st

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
    error_class_from_text,
    error_for_status,
    retry_after_seconds,
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


# -- error_for_status --------------------------------------------------------------------

STATUS_TABLE: list[tuple[int, type[ChatClientError]]] = [
    (401, AuthenticationError),
    (403, AuthenticationError),
    (404, ModelNotFoundError),
    (429, RateLimitedError),
    (408, TransientError),
    (409, TransientError),
    (500, TransientError),
    (502, TransientError),
    (503, TransientError),
    (529, TransientError),
    (599, TransientError),
    (400, InvalidRequestError),
    (405, InvalidRequestError),
    (413, InvalidRequestError),
    (422, InvalidRequestError),
    (451, InvalidRequestError),
    (100, ChatClientError),
    (200, ChatClientError),
    (302, ChatClientError),
]


@pytest.mark.parametrize(("status", "expected"), STATUS_TABLE)
def test_each_status_maps_to_its_error_class(status: int, expected: type[ChatClientError]) -> None:
    error = error_for_status(status, "it failed", provider="svc")
    assert type(error) is expected
    assert error.retryable is expected.retryable


def test_the_mapped_error_carries_the_message_status_and_provider() -> None:
    error = error_for_status(503, "overloaded", provider="svc", headers={"retry-after": "2"})
    assert (error.message, str(error)) == ("overloaded", "overloaded")
    assert (error.status_code, error.provider, error.retry_after) == (503, "svc", 2.0)


@pytest.mark.parametrize(
    "message",
    [
        # OpenAI and vLLM
        "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.",
        '{"error": {"code": "context_length_exceeded", "message": "too many tokens"}}',
        # llama.cpp's llama-server
        "the request exceeds the available context size, try increasing it",
        "Context length exceeded",
        # Anthropic
        "prompt is too long: 208310 tokens > 200000 maximum",
        "Input exceeds the model's context window",
    ],
)
@pytest.mark.parametrize("status", [400, 413, 422])
def test_a_message_about_the_context_length_maps_to_context_length_exceeded(
    status: int, message: str
) -> None:
    error = error_for_status(status, message, provider="svc")
    assert type(error) is ContextLengthExceededError


@pytest.mark.parametrize(
    "code", ["context_length_exceeded", "string_above_max_length", "exceed_context_size_error"]
)
def test_a_context_length_code_maps_to_context_length_exceeded(code: str) -> None:
    error = error_for_status(400, "request rejected", provider="svc", code=code)
    assert type(error) is ContextLengthExceededError


def test_codes_match_in_any_case() -> None:
    error = error_for_status(400, "rejected", provider="svc", code="Context_Length_Exceeded")
    assert type(error) is ContextLengthExceededError


@pytest.mark.parametrize("status", [401, 404, 429, 500])
def test_context_length_is_only_read_from_request_errors(status: int) -> None:
    error = error_for_status(status, "maximum context length is 4096", provider="svc")
    assert type(error) is not ContextLengthExceededError


@pytest.mark.parametrize(
    "code", ["content_filter", "content_policy_violation", "image_content_policy_violation"]
)
@pytest.mark.parametrize("status", [400, 422])
def test_a_content_filter_code_maps_to_content_filtered(status: int, code: str) -> None:
    error = error_for_status(status, "refused", provider="svc", code=code)
    assert type(error) is ContentFilteredError
    assert not error.retryable


@pytest.mark.parametrize(
    ("message", "code", "expected"),
    [
        ("This model's maximum context length is 4096 tokens", None, ContextLengthExceededError),
        ("rejected", "Context_Length_Exceeded", ContextLengthExceededError),
        ("refused", "content_filter", ContentFilteredError),
        ("the server had an error", "server_error", None),
        ("", None, None),
    ],
)
def test_error_class_from_text_names_what_a_status_less_error_says(
    message: str, code: str | None, expected: type[ChatClientError] | None
) -> None:
    assert error_class_from_text(message, code=code) is expected


def test_another_code_on_a_400_is_an_invalid_request() -> None:
    error = error_for_status(400, "'messages' is empty", provider="svc", code="invalid_value")
    assert type(error) is InvalidRequestError


@pytest.mark.parametrize("status", [99, 600, 0, -1, 1000])
def test_a_status_outside_the_http_range_is_refused(status: int) -> None:
    with pytest.raises(ValueError, match=f"from 100 to 599, got {status}"):
        error_for_status(status, "x", provider="svc")


@pytest.mark.parametrize("status", [True, "429", 429.0])
def test_a_status_that_is_not_an_int_is_refused(status: Any) -> None:
    with pytest.raises(TypeError, match="status must be an int"):
        error_for_status(status, "x", provider="svc")


def test_the_error_is_returned_for_the_caller_to_raise_from_its_own() -> None:
    cause = OSError("the service said no")
    with pytest.raises(RateLimitedError) as caught:
        raise error_for_status(429, "slow down", provider="svc") from cause
    assert caught.value.__cause__ is cause


# -- retry_after_seconds -----------------------------------------------------------------

NOW = 1_767_225_600.0  # 2026-01-01T00:00:00Z


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"retry-after-ms": "1500"}, 1.5),
        ({"retry-after": "7"}, 7.0),
        ({"retry-after": "0.5"}, 0.5),
        ({"retry-after": " 12 "}, 12.0),
        ({"retry-after": "0"}, 0.0),
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
        ({"Retry-After": "3"}, 3.0),
        ({"RETRY-AFTER-MS": "2000"}, 2.0),
        ({"x-other": "1"}, None),
        ({}, None),
        (None, None),
    ],
)
def test_retry_after_in_milliseconds_or_seconds(
    headers: dict[str, str] | None, seconds: float | None
) -> None:
    assert retry_after_seconds(headers, now=NOW) == seconds


@pytest.mark.parametrize(
    "value", ["soon", "", "-5", "nan", "inf", "-inf", "1e999", "Thu, 99 Foo 2026 99:99:99 GMT"]
)
def test_an_unreadable_or_negative_retry_after_counts_as_absent(value: str) -> None:
    assert retry_after_seconds({"retry-after": value}, now=NOW) is None


def test_an_unreadable_retry_after_ms_falls_back_to_retry_after() -> None:
    headers = {"retry-after-ms": "-100", "retry-after": "4"}
    assert retry_after_seconds(headers, now=NOW) == 4.0


def test_retry_after_may_be_an_http_date() -> None:
    when = email.utils.formatdate(NOW + 30, usegmt=True)
    assert retry_after_seconds({"retry-after": when}, now=NOW) == 30.0


@pytest.fixture
def local_time_not_utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The process's local time zone is five hours behind UTC for the test."""
    monkeypatch.setenv("TZ", "EST+05")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.usefixtures("local_time_not_utc")
def test_an_http_date_without_a_zone_is_read_as_utc() -> None:
    when = email.utils.formatdate(NOW + 90).replace("-0000", "").strip()
    assert when.endswith(":30"), when  # no zone at all
    assert retry_after_seconds({"retry-after": when}, now=NOW) == 90.0


def test_an_http_date_in_the_past_is_zero_seconds() -> None:
    when = email.utils.formatdate(NOW - 30, usegmt=True)
    assert retry_after_seconds({"retry-after": when}, now=NOW) == 0.0


def test_an_http_date_is_measured_from_the_clock_by_default() -> None:
    when = email.utils.formatdate(time.time() + 120, usegmt=True)
    seconds = retry_after_seconds({"retry-after": when})
    assert seconds is not None
    assert 100 < seconds <= 121


def test_header_names_match_in_any_case_in_a_case_insensitive_mapping_too() -> None:
    headers = httpx2.Headers({"Retry-After": "5"})
    assert retry_after_seconds(headers, now=NOW) == 5.0


@given(st.text())
def test_any_header_value_gives_none_or_a_non_negative_number(value: str) -> None:
    for name in ("retry-after", "retry-after-ms"):
        seconds = retry_after_seconds({name: value}, now=NOW)
        assert seconds is None or (math.isfinite(seconds) and seconds >= 0)


def test_error_for_status_reads_retry_after_from_the_headers() -> None:
    error = error_for_status(429, "slow down", provider="svc", headers={"Retry-After-Ms": "750"})
    assert isinstance(error, RateLimitedError)
    assert error.retry_after == 0.75


def test_error_for_status_without_headers_has_no_retry_after() -> None:
    assert error_for_status(429, "slow down", provider="svc").retry_after is None
