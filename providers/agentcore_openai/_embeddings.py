"""``OpenAIEmbeddingClient``: the Embeddings API (``POST /v1/embeddings``)."""

from __future__ import annotations

import array
import base64
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

import openai
from openai.types import CreateEmbeddingResponse
from typing_extensions import Self

from agentcore import Embedding, EmbeddingGenerationOptions, GeneratedEmbeddings, Usage
from agentcore_openai._errors import map_error, rate_limit_info
from agentcore_openai._sdk import open_client, request_options
from agentcore_openai._sse import READ_ERRORS, json_object, malformed, read_model

if TYPE_CHECKING:
    from openai._legacy_response import LegacyAPIResponse

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
    retry on its own; ``read_timeout`` is as for :class:`OpenAIChatClient`.
    ``additional_properties`` is free for the caller's use.
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
        read_timeout: float | None = None,
    ) -> None:
        if not model:
            raise ValueError(
                "OpenAIEmbeddingClient needs a model name, e.g. 'text-embedding-3-small'"
            )
        self.model = model
        self.dimensions = dimensions
        self.additional_properties: dict[str, Any] = dict(additional_properties or {})
        self._owned = open_client(
            "OpenAIEmbeddingClient",
            client,
            api_key=api_key,
            base_url=base_url,
            read_timeout=read_timeout,
        )
        self._request_options = request_options(read_timeout)
        self.client: openai.AsyncOpenAI = self._owned.client

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
            ] = await self.client.embeddings.with_raw_response.create(
                **params, **self._request_options
            )
        except openai.APIError as exc:
            raise map_error(exc) from exc
        rate_limit = rate_limit_info(raw.headers)
        # Read here rather than by raw.parse(), which lets JSON and attribute errors
        # escape; a base64 vector arrives as a string, which _decode reads.
        body = json_object(raw.http_response.content, "embeddings body")
        try:
            response = read_model(CreateEmbeddingResponse, body)
            data = sorted(response.data, key=lambda item: item.index)
            model = getattr(response, "model", None)
            embeddings = [Embedding(_decode(item.embedding), model=model) for item in data]
            usage = getattr(response, "usage", None)
            input_tokens = getattr(usage, "prompt_tokens", None)
            total_tokens = getattr(usage, "total_tokens", None)
        except READ_ERRORS as exc:
            raise malformed("embeddings body", repr(exc)) from exc
        return GeneratedEmbeddings(
            embeddings,
            options=options,
            usage=Usage(input_tokens=input_tokens, total_tokens=total_tokens),
            additional_properties={"rate_limit": rate_limit} if rate_limit else None,
        )

    async def aclose(self) -> None:
        """Close the SDK client if this adapter created it (a given one stays open)."""
        await self._owned.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()
