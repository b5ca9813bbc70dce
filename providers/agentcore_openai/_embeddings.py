"""``OpenAIEmbeddingClient``: the Embeddings API (``POST /v1/embeddings``)."""

from __future__ import annotations

import array
import base64
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

import openai

from agentcore import Embedding, EmbeddingGenerationOptions, GeneratedEmbeddings, Usage
from agentcore_openai._errors import map_error, rate_limit_info
from agentcore_openai._sdk import build_client

if TYPE_CHECKING:
    from openai._legacy_response import LegacyAPIResponse
    from openai.types import CreateEmbeddingResponse

__all__ = ["OpenAIEmbeddingClient", "OpenAIEmbeddingOptions"]


class OpenAIEmbeddingOptions(EmbeddingGenerationOptions, total=False):
    """Embedding options: ``model`` and ``dimensions`` plus the OpenAI keys below."""

    user: str | None
    encoding_format: Literal["float", "base64"] | None
    """How vectors travel. Default ``base64`` (smaller; decoded here); ``float``
    asks for plain JSON numbers (some compatible servers only speak that)."""


def _decode(vector: Sequence[float] | str) -> list[float]:
    """A vector as floats; a base64 string holds little-endian float32 values."""
    if isinstance(vector, str):
        values = array.array("f", base64.b64decode(vector))
        if sys.byteorder != "little":
            values.byteswap()
        return values.tolist()
    return list(vector)


class OpenAIEmbeddingClient:
    """An embedding client for OpenAI's Embeddings API (and compatible servers).

    Pass an ``openai.AsyncOpenAI`` as ``client``, or ``api_key`` / ``base_url``
    (the key falls back to ``OPENAI_API_KEY``); a client built here does not
    retry on its own. ``additional_properties`` is free for the caller's use.
    """

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        client: openai.AsyncOpenAI | None = None,
        dimensions: int | None = None,
        additional_properties: Mapping[str, Any] | None = None,
    ) -> None:
        if not model:
            raise ValueError(
                "OpenAIEmbeddingClient needs a model name, e.g. 'text-embedding-3-small'"
            )
        self.model = model
        self.dimensions = dimensions
        self.additional_properties: dict[str, Any] = dict(additional_properties or {})
        self._owns_client = client is None
        self.client = build_client(client, api_key, base_url)

    async def get_embeddings(
        self, values: Sequence[str], *, options: OpenAIEmbeddingOptions | None = None
    ) -> GeneratedEmbeddings[list[float], OpenAIEmbeddingOptions]:
        """One embedding per value, in order; an empty ``values`` sends nothing."""
        if isinstance(values, str):
            raise TypeError("get_embeddings takes a sequence of strings; wrap one text in a list")
        if not values:
            return GeneratedEmbeddings([], options=options)
        opts = {key: value for key, value in (options or {}).items() if value is not None}
        params: dict[str, Any] = {"model": opts.get("model") or self.model, "input": list(values)}
        dimensions = opts.get("dimensions", self.dimensions)
        if dimensions is not None:
            params["dimensions"] = dimensions
        if "user" in opts:
            params["user"] = opts["user"]
        if opts.get("encoding_format") == "float":
            # Only "float" is passed on: left unset, the SDK asks for base64 and decodes it.
            params["encoding_format"] = "float"
        try:
            raw: LegacyAPIResponse[
                CreateEmbeddingResponse
            ] = await self.client.embeddings.with_raw_response.create(**params)
            response = raw.parse()
        except openai.APIError as exc:
            raise map_error(exc) from exc
        rate_limit = rate_limit_info(raw.headers)
        data = sorted(response.data, key=lambda item: item.index)
        return GeneratedEmbeddings(
            [Embedding(_decode(item.embedding), model=response.model) for item in data],
            options=options,
            usage=Usage(
                input_tokens=response.usage.prompt_tokens, total_tokens=response.usage.total_tokens
            ),
            additional_properties={"rate_limit": rate_limit} if rate_limit else None,
        )

    async def aclose(self) -> None:
        """Close the SDK client if this adapter created it."""
        if self._owns_client:
            await self.client.close()

    async def __aenter__(self) -> OpenAIEmbeddingClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()
