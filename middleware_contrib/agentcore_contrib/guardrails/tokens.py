"""A cap on the size of a request, checked before the model sees it."""

from __future__ import annotations

import inspect
import math
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, TypeAlias

from agentcore import Message, TextContent
from agentcore_contrib.guardrails._base import GuardResult

__all__ = ["MaxInputTokens", "TokenCounter", "estimate_tokens"]

TokenCounter: TypeAlias = Callable[[Sequence[Message]], "int | Awaitable[int]"]


def estimate_tokens(messages: Sequence[Message], instructions: str | None = None) -> int:
    """A rough count: four characters a token plus four tokens a message.

    Good enough for a safety cap; give a real counter for exact limits.
    """
    characters = len(instructions or "")
    for message in messages:
        for content in message.contents:
            if isinstance(content, TextContent):
                characters += len(content.text)
            else:
                characters += len(repr(content))
    return math.ceil(characters / 4) + 4 * len(messages)


class MaxInputTokens:
    """Blocks a request over ``limit`` tokens before it is sent.

    Counts with, in order: the chat client's own ``count_tokens`` (a
    :class:`~agentcore.SupportsCountTokens` client), else ``counter``, else
    :func:`estimate_tokens`. A counter that raises fails closed (``GuardrailError``).
    """

    def __init__(
        self, limit: int, *, counter: TokenCounter | None = None, name: str = "max_input_tokens"
    ) -> None:
        if type(limit) is not int or limit < 1:
            raise ValueError(f"limit must be a positive number of tokens, got {limit!r}")
        if counter is not None and not callable(counter):
            raise TypeError("counter must be a callable taking the messages")
        self.limit = limit
        self.counter = counter
        self.name = name

    async def count(
        self, messages: Sequence[Message], *, client: object | None, options: Mapping[str, Any]
    ) -> int:
        """The token count of a request, by the first counter available."""
        count_tokens = getattr(client, "count_tokens", None)
        if callable(count_tokens):
            counted: Any = count_tokens(messages, options=options)
        elif self.counter is not None:
            counted = self.counter(messages)
        else:
            instructions = options.get("instructions")
            return estimate_tokens(
                messages, instructions if isinstance(instructions, str) else None
            )
        if inspect.isawaitable(counted):
            counted = await counted
        if isinstance(counted, bool) or not isinstance(counted, int):
            raise TypeError(f"the token counter returned {counted!r}, not an int")
        return counted

    async def check_request(
        self, messages: Sequence[Message], *, client: object | None, options: Mapping[str, Any]
    ) -> GuardResult:
        """Block when the request counts more than ``limit`` tokens."""
        tokens = await self.count(messages, client=client, options=options)
        if tokens > self.limit:
            return GuardResult.block(
                f"the request has {tokens} tokens, over the limit of {self.limit}"
            )
        return GuardResult.allow()
