"""Token usage figures that add up across calls."""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from agentcore._equality import fields_eq, fields_hash
from agentcore._repr import fields_repr

__all__ = ["Usage"]


def _add(a: int | None, b: int | None) -> int | None:
    if a is None:
        return b
    if b is None:
        return a
    return a + b


@attrs.frozen
class Usage:
    """Token counts of one or more model calls.

    Every figure is optional (``None`` means the provider did not report it).
    ``a + b`` adds figure by figure; ``None + n`` is ``n``. Adapters report the
    same figures whether a call streamed or not.
    """

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None
    reasoning_tokens: int | None = None
    server_tool_calls: int | None = None

    def __add__(self, other: Usage) -> Usage:
        if not isinstance(other, Usage):
            return NotImplemented
        return Usage(
            input_tokens=_add(self.input_tokens, other.input_tokens),
            output_tokens=_add(self.output_tokens, other.output_tokens),
            total_tokens=_add(self.total_tokens, other.total_tokens),
            cache_read_tokens=_add(self.cache_read_tokens, other.cache_read_tokens),
            cache_write_tokens=_add(self.cache_write_tokens, other.cache_write_tokens),
            reasoning_tokens=_add(self.reasoning_tokens, other.reasoning_tokens),
            server_tool_calls=_add(self.server_tool_calls, other.server_tool_calls),
        )

    @classmethod
    def sum(cls, usages: Iterable[Usage | None]) -> Usage | None:
        """Add up usages, skipping ``None``; ``None`` when there is nothing to add."""
        total: Usage | None = None
        for usage in usages:
            if usage is not None:
                total = usage if total is None else total + usage
        return total
