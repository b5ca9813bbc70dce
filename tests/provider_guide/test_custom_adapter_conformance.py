"""The guide's example adapter passes agentcore's conformance kit, over real HTTP."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from openai.types.chat import ChatCompletion, ChatCompletionChunk

from agentcore.testing.conformance import ChatClientConformance, Scenario, standard_scenarios
from tests.provider_guide.harness import CompatibleHarness, completion, stream_chunks


class TestCustomAdapter(ChatClientConformance):
    @pytest.fixture
    async def harness(self, anyio_backend: str) -> AsyncIterator[CompatibleHarness]:
        harness = CompatibleHarness()
        yield harness
        await harness.close()


SCENARIOS = [s for s in standard_scenarios().values() if s.response is not None]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_served_completions_validate_against_the_openai_sdk_types(scenario: Scenario) -> None:
    assert scenario.response is not None
    body = completion(scenario.response)
    assert ChatCompletion.model_validate(body, strict=True).model_dump(exclude_unset=True) == body


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_served_stream_chunks_validate_against_the_openai_sdk_types(scenario: Scenario) -> None:
    assert scenario.response is not None
    for chunk in stream_chunks(scenario.response, piece=7):
        parsed = ChatCompletionChunk.model_validate(chunk, strict=True)
        assert parsed.model_dump(exclude_unset=True) == chunk
