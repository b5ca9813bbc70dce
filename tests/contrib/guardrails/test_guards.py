"""Content filter, input-size cap and LLM judge, each on its own."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from agentcore_contrib.guardrails import (
    ContentFilter,
    GuardrailError,
    GuardrailViolation,
    LLMJudge,
    MaxInputTokens,
    parse_verdict,
)
from agentcore_contrib.guardrails._base import run_check, run_request_check

from agentcore import DataContent, Message, TextContent
from agentcore.testing import ScriptedChatClient
from agentcore.tokens import IMAGE_TOKENS

pytestmark = pytest.mark.anyio


async def test_blocklist_matches_whole_words_in_any_case() -> None:
    guard = ContentFilter(blocklist=["top secret"])
    assert (await guard.check("This is TOP  SECRET.")).action == "block"
    assert (await guard.check("topsecrets are fine")).action == "allow"


async def test_pattern_blocks_a_match() -> None:
    guard = ContentFilter(patterns=[r"\bDROP\s+TABLE\b"])
    result = await guard.check("please drop table users")
    assert result.action == "block"
    assert "DROP" in result.reason


async def test_predicate_reason_becomes_the_block_reason() -> None:
    guard = ContentFilter(predicate=lambda text: "too shouty" if text.isupper() else None)
    assert (await guard.check("HELLO")).reason == "too shouty"
    assert (await guard.check("hello")).action == "allow"


async def test_a_predicate_returning_nonsense_fails_closed() -> None:
    guard = ContentFilter(predicate=lambda text: 42)  # type: ignore[arg-type,return-value]  # the wrong type is the point of the test
    with pytest.raises(GuardrailError, match="content_filter"):
        await run_check(guard, "x")


def test_a_filter_without_rules_is_refused() -> None:
    with pytest.raises(ValueError, match="needs a blocklist, patterns or a predicate"):
        ContentFilter()


class CountingClient:
    """A chat client that can count tokens (SupportsCountTokens)."""

    def __init__(self, tokens: int) -> None:
        self.tokens = tokens

    async def count_tokens(self, messages: Sequence[Message], *, options: Any = None) -> int:
        return self.tokens


async def test_max_input_tokens_uses_the_clients_counter() -> None:
    guard = MaxInputTokens(100)
    with pytest.raises(GuardrailViolation, match="101 tokens, over the limit of 100"):
        await run_request_check(
            guard, [Message("user", "hi")], client=CountingClient(101), options={}, stage="input"
        )


async def test_max_input_tokens_uses_the_given_counter_without_a_client_counter() -> None:
    guard = MaxInputTokens(5, counter=lambda messages: 5)
    await run_request_check(
        guard, [Message("user", "x" * 1000)], client=None, options={}, stage="input"
    )


async def test_max_input_tokens_estimates_without_any_counter() -> None:
    guard = MaxInputTokens(10)
    assert await guard.count([Message("user", "x" * 40)], client=None, options={}) == 10
    assert (
        await guard.count(
            [Message("user", "x" * 40)], client=None, options={"instructions": "y" * 8}
        )
        == 12
    )


async def test_an_image_under_max_input_tokens_counts_as_an_image_not_its_bytes() -> None:
    # user-mistakes M60: a 100 KB image counted one token per byte and was blocked.
    image = DataContent(b"\x89PNG" + bytes(100_000), "image/png")
    messages = [Message("user", [TextContent("what is in this picture?"), image])]
    guard = MaxInputTokens(8000)
    assert await guard.count(messages, client=None, options={}) == IMAGE_TOKENS + 6
    await run_request_check(guard, messages, client=None, options={}, stage="input")


async def test_a_failing_counter_fails_closed() -> None:
    def counter(messages: Sequence[Message]) -> int:
        raise OSError("tokenizer missing")

    with pytest.raises(GuardrailError, match="'max_input_tokens' failed: OSError"):
        await run_request_check(
            MaxInputTokens(5, counter=counter), [], client=None, options={}, stage="input"
        )


def test_max_input_tokens_needs_a_positive_limit() -> None:
    with pytest.raises(ValueError, match="positive number of tokens"):
        MaxInputTokens(0)


@pytest.mark.parametrize(
    ("answer", "passed"),
    [
        ('{"verdict": "pass", "reason": "fine"}', True),
        ('```json\n{"verdict": "FAIL", "reason": "insults"}\n```', False),
        ('Sure. Here is my review:\n{"decision": "unsafe"}', False),
        ("Verdict: PASS\nNothing wrong.", True),
        ("**Fail** - contains a threat", False),
        ("SAFE", True),
    ],
)
def test_parse_verdict_reads_common_answer_shapes(answer: str, passed: bool) -> None:
    assert parse_verdict(answer)[0] is passed


def test_parse_verdict_carries_the_reason_from_json() -> None:
    assert parse_verdict('{"verdict": "fail", "reason": "threat"}') == (False, "threat")


@pytest.mark.parametrize("answer", ["Not safe at all", "I cannot tell", ""])
def test_an_unreadable_verdict_raises(answer: str) -> None:
    with pytest.raises(ValueError, match="could not read a pass/fail verdict"):
        parse_verdict(answer)


async def test_the_judge_sends_the_text_as_data_with_its_prompt() -> None:
    client = ScriptedChatClient(['{"verdict": "pass"}'])
    judge = LLMJudge(client, prompt="Be strict.")
    assert (await judge.check("hello")).action == "allow"
    (request,) = client.requests
    assert request.options["instructions"] == "Be strict."
    assert request.messages[0].text == "<content>\nhello\n</content>"


async def test_the_judge_blocks_on_fail() -> None:
    judge = LLMJudge(ScriptedChatClient(['{"verdict": "fail", "reason": "rude"}']))
    result = await judge.check("you fool")
    assert (result.action, result.reason) == ("block", "the judge model failed the text: rude")


async def test_an_unreadable_judge_answer_fails_closed() -> None:
    judge = LLMJudge(ScriptedChatClient(["maybe?"]))
    with pytest.raises(GuardrailError, match="'llm_judge' failed: ValueError"):
        await run_check(judge, "x")


def test_a_judge_needs_a_chat_client() -> None:
    with pytest.raises(TypeError, match="needs a chat client"):
        LLMJudge(object())  # type: ignore[arg-type]  # the wrong type is the point of the test
