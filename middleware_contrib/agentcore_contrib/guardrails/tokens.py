"""A cap on the size of a request, checked before the model sees it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, TypeAlias

from agentcore import Message
from agentcore.tokens import count_tokens, estimate_tokens
from agentcore_contrib.guardrails._base import GuardResult

__all__ = ["MaxInputTokens", "TokenCounter", "estimate_tokens"]

TokenCounter: TypeAlias = Callable[[Sequence[Message]], "int | Awaitable[int]"]


class MaxInputTokens:
    """Blocks a request over ``limit`` tokens before it is sent.

    Counts with :func:`agentcore.tokens.count_tokens`, in order: the chat client's
    own ``count_tokens`` (a :class:`~agentcore.SupportsCountTokens` client), else
    ``counter`` (over the messages, then the instructions), else the kernel's
    :func:`~agentcore.tokens.estimate_tokens` (an image counts a fixed
    ``IMAGE_TOKENS``, not its bytes). A counter that raises fails closed
    (``GuardrailError``).
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
        return await count_tokens(messages, client=client, options=options, counter=self.counter)

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
