"""Embedding values and the list type embedding clients return."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sized
from typing import Any, Generic

import attrs
from typing_extensions import TypedDict, TypeVar

from agentcore._equality import fields_eq, fields_hash
from agentcore._repr import fields_repr
from agentcore._types.usage import Usage

__all__ = ["Embedding", "EmbeddingGenerationOptions", "GeneratedEmbeddings"]

EmbeddingT = TypeVar("EmbeddingT", default="list[float]")
EmbeddingOptionsT = TypeVar("EmbeddingOptionsT", default="EmbeddingGenerationOptions")


class EmbeddingGenerationOptions(TypedDict, total=False):
    """Common embedding request settings; adapters extend this ``TypedDict``."""

    model: str | None
    dimensions: int | None


def _dimensions(instance: Embedding[Any]) -> int | None:
    vector = instance.vector
    return len(vector) if isinstance(vector, Sized) else None


@attrs.frozen
class Embedding(Generic[EmbeddingT]):
    """One embedding vector. ``dimensions`` defaults to ``len(vector)``."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    vector: EmbeddingT
    model: str | None = None
    dimensions: int | None = attrs.field(
        default=attrs.Factory(_dimensions, takes_self=True)  # pyright: ignore[reportArgumentType]  # attrs Factory(takes_self) typing
    )
    created_at: str | None = None
    additional_properties: Mapping[str, Any] | None = attrs.field(default=None, eq=False)


class GeneratedEmbeddings(list[Embedding[EmbeddingT]], Generic[EmbeddingT, EmbeddingOptionsT]):
    """The embeddings of one request, in input order, with the request's options and usage."""

    def __init__(
        self,
        embeddings: Iterable[Embedding[EmbeddingT]] = (),
        *,
        options: EmbeddingOptionsT | None = None,
        usage: Usage | None = None,
        additional_properties: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(embeddings)
        self.options = options
        self.usage = usage
        self.additional_properties = additional_properties

    def __repr__(self) -> str:
        return f"GeneratedEmbeddings({super().__repr__()}, usage={self.usage!r})"
