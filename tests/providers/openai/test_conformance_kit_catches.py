"""The conformance kit checks what an adapter sends: an adapter that drops instructions,
tools, their schemas, ``tool_choice``, ``response_format``, tool results or reasoning
fails it.

The broken adapters wrap the real ``OpenAIResponsesClient`` (whose harness reads every
one of those back from the recorded request) and each drop one thing on the way in.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from typing import Any

import pytest

from agentcore import FunctionResultContent, Message, ReasoningContent, SupportsGetResponse
from agentcore.testing.conformance import (
    ConformanceHarness,
    check_sends_reasoning_back,
    check_sends_request_options,
    check_sends_response_format,
    check_sends_tool_results,
)
from tests.providers.openai.test_conformance_kit import ResponsesHarness

pytestmark = pytest.mark.anyio

Check = Callable[..., Awaitable[None]]


class DroppingAdapter:
    """Forwards to a real adapter, dropping one part of every request on the way."""

    def __init__(self, inner: SupportsGetResponse[Any], drop: str) -> None:
        self._inner = inner
        self._drop = drop

    def get_response(
        self,
        messages: Sequence[Message],
        *,
        options: Mapping[str, Any] | None = None,
        stream: bool = False,
    ) -> Any:
        kept = {k: v for k, v in (options or {}).items() if k != self._drop}
        if self._drop == "tool schemas":  # the tools go, but with empty argument schemas
            kept["tools"] = [SchemaLess(t.name, t.description) for t in kept.get("tools", ())]
        dropped_type = {"tool results": FunctionResultContent, "reasoning": ReasoningContent}
        unwanted = dropped_type.get(self._drop)
        if unwanted is not None:
            messages = [
                Message(m.role, [c for c in m.contents if not isinstance(c, unwanted)])
                for m in messages
            ]
        if stream:
            return self._inner.get_response(messages, options=kept, stream=True)
        return self._inner.get_response(messages, options=kept)


@dataclasses.dataclass(frozen=True)
class SchemaLess:
    """A function tool's declaration that lost its argument schema."""

    name: str
    description: str | None
    parameters: Mapping[str, Any] = dataclasses.field(
        default_factory=lambda: {"type": "object", "properties": {}}
    )


class BrokenHarness(ResponsesHarness):
    """The Responses harness, with the adapter under test wrapped in a dropping one."""

    def __init__(self, drop: str) -> None:
        super().__init__()
        self.broken = DroppingAdapter(self.client_, drop)

    def client(self) -> SupportsGetResponse[Any]:
        return self.broken


CASES: dict[str, Check] = {
    "instructions": check_sends_request_options,
    "tools": check_sends_request_options,
    "tool schemas": check_sends_request_options,
    "tool_choice": check_sends_request_options,
    "response_format": check_sends_response_format,
    "tool results": check_sends_tool_results,
    "reasoning": check_sends_reasoning_back,
}


@pytest.fixture
async def harness(request: pytest.FixtureRequest, anyio_backend: str) -> AsyncIterator[Any]:
    made = BrokenHarness(str(request.param)) if request.param else ResponsesHarness()
    yield made
    await made.close()


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize(
    ("harness", "check"), list(CASES.items()), indirect=["harness"], ids=list(CASES)
)
async def test_an_adapter_that_drops_it_fails_the_kit(
    harness: ConformanceHarness, check: Check, stream: bool
) -> None:
    with pytest.raises(AssertionError):
        await check(harness, stream=stream)


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("check", list(dict.fromkeys(CASES.values())))
@pytest.mark.parametrize("harness", [None], indirect=True)
async def test_the_same_checks_pass_for_the_real_adapter(
    harness: ConformanceHarness, check: Check, stream: bool
) -> None:
    await check(harness, stream=stream)
