"""Content filtering: block text with listed words, matching patterns, or failing a check."""

from __future__ import annotations

import inspect
import re
from collections.abc import Awaitable, Callable, Iterable
from typing import TypeAlias

from agentcore_contrib.guardrails._base import GuardResult

__all__ = ["ContentFilter", "ContentPredicate"]

ContentPredicate: TypeAlias = Callable[[str], "bool | str | Awaitable[bool | str | None] | None"]
"""Judges text: ``False`` or a reason string blocks; ``True`` or ``None`` allows."""


class ContentFilter:
    """Blocks text holding a ``blocklist`` word or phrase (whole words, any case), a
    match of one of ``patterns`` (regular expressions), or rejected by ``predicate``.

    The predicate may be sync or async; if it raises, the guard fails closed with a
    ``GuardrailError``. Without a predicate the filter is incremental (usable on a
    stream with a hold-back window).
    """

    def __init__(
        self,
        *,
        blocklist: Iterable[str] = (),
        patterns: Iterable[str] = (),
        predicate: ContentPredicate | None = None,
        name: str = "content_filter",
    ) -> None:
        words = [w for w in blocklist if w.strip()]
        if any(not isinstance(w, str) for w in words):
            raise TypeError("blocklist entries must be strings")
        compiled: list[re.Pattern[str]] = []
        for pattern in patterns:
            try:
                compiled.append(re.compile(pattern, re.IGNORECASE))
            except re.error as exc:
                raise ValueError(f"bad content pattern {pattern!r}: {exc}") from exc
        if predicate is not None and not callable(predicate):
            raise TypeError("predicate must be a callable taking text")
        if not (words or compiled or predicate):
            raise ValueError("ContentFilter needs a blocklist, patterns or a predicate")
        self._words = [
            (
                word,
                re.compile(
                    r"(?<!\w)" + r"\s+".join(map(re.escape, word.split())) + r"(?!\w)", re.I
                ),
            )
            for word in words
        ]
        self.patterns: tuple[re.Pattern[str], ...] = tuple(compiled)
        self.predicate = predicate
        self.name = name
        self.incremental: bool = predicate is None

    async def check(self, text: str) -> GuardResult:
        """Block on the first blocklist word, pattern or predicate verdict that objects."""
        for word, pattern in self._words:
            if pattern.search(text):
                return GuardResult.block(f"the text contains the blocked term {word!r}")
        for compiled in self.patterns:
            if compiled.search(text):
                return GuardResult.block(
                    f"the text matches the blocked pattern {compiled.pattern!r}"
                )
        if self.predicate is not None:
            verdict = self.predicate(text)
            if inspect.isawaitable(verdict):
                verdict = await verdict
            if verdict is False:
                return GuardResult.block("the content check rejected the text")
            if isinstance(verdict, str):
                return GuardResult.block(verdict)
            if verdict is not True and verdict is not None:
                raise TypeError(
                    f"the predicate returned {verdict!r}; return a bool, a reason or None"
                )
        return GuardResult.allow()
