"""Truncation: keep tool results and the history sent to the model within a token budget.

:class:`ContentTruncator` (function middleware) shortens a tool's result before the
model sees it. :class:`HistoryTruncator` (chat middleware) drops the oldest turns of
the history before a model call, never separating a function call from its result.
Tokens are counted by the client when it can (``SupportsCountTokens``), else by a
pluggable counter whose default is the kernel's :func:`agentcore.tokens.estimate_tokens`
(the estimate the guardrails and the rate limiter use too).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, cast

from agentcore import (
    ChatContext,
    FunctionCallContent,
    FunctionInvocationContext,
    FunctionResultContent,
    Message,
    SupportsCountTokens,
)
from agentcore.middleware import CallNext
from agentcore.serialization import unstructure
from agentcore.tokens import TokenCounter, estimate_tokens

__all__ = [
    "ContentTruncator",
    "HistoryTruncator",
    "TokenCounter",
    "estimate_tokens",
]

_CountAsync = Callable[[Sequence[Message]], Awaitable[int]]


def _as_text(value: object) -> str:
    """A value as the model would read it: strings as they are, anything else as JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(unstructure(value), default=str, ensure_ascii=False)


def _check_budget(max_tokens: object) -> int:
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        raise ValueError(f"max_tokens must be an int >= 1, got {max_tokens!r}")
    return max_tokens


def _check_counter(counter: object) -> TokenCounter:
    if counter is None:
        return estimate_tokens
    if not callable(counter):
        raise TypeError(f"counter must be a callable (messages) -> int, got {counter!r}")
    return cast("TokenCounter", counter)


class ContentTruncator:
    """Function middleware that cuts a tool result down to ``max_tokens``.

    A result over the budget is turned into text (JSON for anything that is not a
    string), cut, and ended with ``marker`` (``{omitted}`` and ``{total}`` are the
    character counts), so the model knows it saw part of it. A result within the
    budget is left exactly as it was. Function middleware sees no client, so
    counting uses ``counter`` (default :func:`estimate_tokens`).
    ``context.metadata["truncated"]`` is set when a result was cut.
    """

    def __init__(
        self,
        max_tokens: int,
        *,
        counter: TokenCounter | None = None,
        marker: str = "\n[... truncated: {omitted} of {total} characters omitted]",
    ) -> None:
        self.max_tokens: int = _check_budget(max_tokens)
        self._counter = _check_counter(counter)
        try:
            marker.format(omitted=0, total=0)
        except (KeyError, IndexError, ValueError) as exc:
            raise ValueError(
                f"marker may use only the fields {{omitted}} and {{total}}: {exc!r}"
            ) from None
        self.marker = marker

    async def process(self, context: FunctionInvocationContext, call_next: CallNext) -> None:
        """Run the tool, then shorten its result if it is over the budget."""
        await call_next()
        text = _as_text(context.result)
        if self._tokens(context.call_id, text) <= self.max_tokens:
            return
        context.result = self._shorten(context.call_id, text)
        context.metadata["truncated"] = True

    def _tokens(self, call_id: str, text: str) -> int:
        return self._counter([Message("tool", [FunctionResultContent(call_id, result=text)])])

    def _shorten(self, call_id: str, text: str) -> str:
        def cut(keep: int) -> str:
            marker = self.marker.format(omitted=len(text) - keep, total=len(text))
            return text[:keep] + marker

        # The longest prefix that fits with its marker (binary search: counters
        # grow with the text, and there may be no closed form for a real tokenizer).
        low, high = 0, len(text)
        while low < high:
            middle = (low + high + 1) // 2
            if self._tokens(call_id, cut(middle)) <= self.max_tokens:
                low = middle
            else:
                high = middle - 1
        return cut(low)


class _Groups:
    """Which messages may be dropped, and in which whole groups (oldest first).

    System messages and the latest user message are kept. Before the latest user
    message a group is a whole turn (a user message and what followed it); after
    it, each message is its own group, except the most recent one, which is kept.
    A function call and its result always share a group.
    """

    def __init__(self, messages: Sequence[Message]) -> None:
        count = len(messages)
        self._parent = list(range(count))
        last_user = max((i for i, m in enumerate(messages) if m.role == "user"), default=-1)
        protected = {i for i, m in enumerate(messages) if m.role == "system"}
        protected.add(last_user)
        tail = [i for i in range(last_user + 1, count) if i not in protected]
        if tail:
            protected.add(tail[-1])
        turn_start: int | None = None
        for i in range(max(last_user, 0)):
            if i in protected:
                continue
            if messages[i].role == "user" or turn_start is None:
                turn_start = i
            self._union(i, turn_start)
        holders: dict[str, int] = {}
        for i, message in enumerate(messages):
            for content in message.contents:
                if isinstance(content, (FunctionCallContent, FunctionResultContent)):
                    other = holders.setdefault(content.call_id, i)
                    self._union(i, other)
        blocked = {self._find(i) for i in protected if i >= 0}
        members: dict[int, list[int]] = {}
        for i in range(count):
            root = self._find(i)
            if root not in blocked:
                members.setdefault(root, []).append(i)
        self.order: list[list[int]] = sorted(members.values(), key=lambda group: group[0])

    def _find(self, i: int) -> int:
        parent = self._parent
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def _union(self, a: int, b: int) -> None:
        root_a, root_b = self._find(a), self._find(b)
        if root_a != root_b:
            self._parent[max(root_a, root_b)] = min(root_a, root_b)


class HistoryTruncator:
    """Chat middleware that keeps the messages of a model call within ``max_tokens``.

    Over the budget, it drops the oldest whole turns first, then the oldest steps
    of the current turn; it always keeps system messages, the instructions (they
    live in the options), the latest user message and the latest step, and never
    separates a function call from its result. With ``persistent=False`` (the
    default) only this call sends less; with ``persistent=True`` the run's
    transcript is rewritten, so later calls start from the shorter history.

    Counting uses the client's ``count_tokens`` when the client has one (checked
    once per client class) and ``counter`` otherwise; then the instructions are
    counted with the messages. ``context.metadata["history_dropped"]`` is the
    number of messages dropped.
    """

    def __init__(
        self,
        max_tokens: int,
        *,
        counter: TokenCounter | None = None,
        persistent: bool = False,
        use_client_count: bool = True,
    ) -> None:
        self.max_tokens: int = _check_budget(max_tokens)
        self._counter = _check_counter(counter)
        self.persistent = persistent
        self.use_client_count = use_client_count
        self._client_counts: dict[type[Any], bool] = {}

    async def process(self, context: ChatContext, call_next: CallNext) -> None:
        """Drop old messages if the request is over the budget, then call inward."""
        count = self._count_for(context)
        messages = context.messages
        total = await count(messages)
        if total > self.max_tokens:
            kept = await self._fit(messages, total, count)
            if len(kept) < len(messages):
                context.metadata["history_dropped"] = len(messages) - len(kept)
                if self.persistent:
                    context.rewrite_transcript(kept)
                else:
                    context.messages = kept
        await call_next()

    def _count_for(self, context: ChatContext) -> _CountAsync:
        client = context.client
        if self.use_client_count:
            known = self._client_counts.get(type(client))
            if known is None:
                known = self._client_counts[type(client)] = isinstance(client, SupportsCountTokens)
            if known:
                counting = cast("SupportsCountTokens", client)
                options = context.options

                async def by_client(messages: Sequence[Message]) -> int:
                    return await counting.count_tokens(messages, options=options)

                return by_client
        counter = self._counter
        instructions = context.options.get("instructions")
        extra = counter([Message("system", instructions)]) if isinstance(instructions, str) else 0

        async def by_counter(messages: Sequence[Message]) -> int:
            return counter(messages) + extra

        return by_counter

    async def _fit(self, messages: list[Message], total: int, count: _CountAsync) -> list[Message]:
        groups = _Groups(messages).order
        local = [self._counter([m]) for m in messages]
        dropped: set[int] = set()
        kept = messages
        # Estimate each group's share with the local counter, scaled to the real
        # count; then count what is left and go on if it is still too long.
        while total > self.max_tokens and groups:
            kept_local = sum(n for i, n in enumerate(local) if i not in dropped) or 1
            scale = total / kept_local
            estimate = float(total)
            while estimate > self.max_tokens and groups:
                group = groups.pop(0)
                dropped.update(group)
                estimate -= sum(local[i] for i in group) * scale
            kept = [m for i, m in enumerate(messages) if i not in dropped]
            total = await count(kept)
        return kept
