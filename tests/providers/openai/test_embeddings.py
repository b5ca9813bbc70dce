"""OpenAIEmbeddingClient against a local Embeddings server, through the real SDK."""

from __future__ import annotations

import pytest
from agentcore_openai import OpenAIEmbeddingClient, OpenAIEmbeddingOptions

from agentcore import Embedding, Usage
from tests.providers.openai import wire_fixtures as fx
from tests.providers.wire_server import Reply, WireServer

pytestmark = pytest.mark.anyio

PATH = "/v1/embeddings"
TEXTS = ["first text", "second text"]


def _sent(server: WireServer) -> dict[str, object]:
    body: dict[str, object] = list(server.iter_requests(PATH))[-1].json
    return body


async def test_base64_vectors_are_asked_for_and_decoded(
    embedder: OpenAIEmbeddingClient, server: WireServer
) -> None:
    server.add("POST", PATH, Reply(json_body=fx.EMBEDDINGS_BASE64))
    result = await embedder.get_embeddings(TEXTS)
    assert _sent(server) == {
        "model": "text-embedding-test",
        "input": TEXTS,
        "encoding_format": "base64",
    }
    assert [e.vector for e in result] == fx.VECTORS


async def test_float_vectors_are_asked_for_when_the_option_says_so(
    embedder: OpenAIEmbeddingClient, server: WireServer
) -> None:
    server.add("POST", PATH, Reply(json_body=fx.EMBEDDINGS_FLOAT))
    result = await embedder.get_embeddings(TEXTS, options={"encoding_format": "float"})
    assert _sent(server)["encoding_format"] == "float"
    assert [e.vector for e in result] == fx.VECTORS


async def test_embeddings_carry_model_dimensions_usage_and_options(
    embedder: OpenAIEmbeddingClient, server: WireServer
) -> None:
    server.add("POST", PATH, Reply(json_body=fx.EMBEDDINGS_BASE64))
    options: OpenAIEmbeddingOptions = {
        "dimensions": 3,
        "user": "user-7",
        "model": "text-embedding-other",
    }
    result = await embedder.get_embeddings(TEXTS, options=options)
    sent = _sent(server)
    assert (sent["dimensions"], sent["user"], sent["model"]) == (
        3,
        "user-7",
        "text-embedding-other",
    )
    assert list(result) == [
        Embedding(fx.VECTORS[0], model="text-embedding-test"),
        Embedding(fx.VECTORS[1], model="text-embedding-test"),
    ]
    assert result[0].dimensions == 3
    assert result.usage == Usage(input_tokens=11, total_tokens=11)
    assert result.options == options


async def test_embeddings_follow_the_input_order(
    embedder: OpenAIEmbeddingClient, server: WireServer
) -> None:
    body = {**fx.EMBEDDINGS_FLOAT, "data": list(reversed(fx.EMBEDDINGS_FLOAT["data"]))}
    server.add("POST", PATH, Reply(json_body=body))
    result = await embedder.get_embeddings(TEXTS, options={"encoding_format": "float"})
    assert [e.vector for e in result] == fx.VECTORS


async def test_the_constructor_dimensions_are_sent(server: WireServer, anyio_backend: str) -> None:
    client = OpenAIEmbeddingClient(
        "text-embedding-test",
        api_key="sk-test",
        base_url=f"{server.base_url}/v1",
        dimensions=256,
    )
    server.add("POST", PATH, Reply(json_body=fx.EMBEDDINGS_BASE64))
    await client.get_embeddings(TEXTS)
    await client.aclose()
    assert _sent(server)["dimensions"] == 256


async def test_no_values_send_no_request(
    embedder: OpenAIEmbeddingClient, server: WireServer
) -> None:
    result = await embedder.get_embeddings([])
    assert (list(result), server.requests) == ([], [])


async def test_a_bare_string_is_refused(embedder: OpenAIEmbeddingClient) -> None:
    with pytest.raises(TypeError, match="sequence of strings"):
        await embedder.get_embeddings("one text")


async def test_rate_limit_headers_land_in_additional_properties(
    embedder: OpenAIEmbeddingClient, server: WireServer
) -> None:
    server.add("POST", PATH, Reply(json_body=fx.EMBEDDINGS_BASE64, headers=fx.RATE_LIMIT_HEADERS))
    result = await embedder.get_embeddings(TEXTS)
    assert result.additional_properties is not None
    assert result.additional_properties["rate_limit"]["remaining_requests"] == 4999


def test_additional_properties_is_a_dict_of_its_own() -> None:
    client = OpenAIEmbeddingClient(
        "text-embedding-test", api_key="sk-test", additional_properties={"team": "search"}
    )
    assert client.additional_properties == {"team": "search"}
