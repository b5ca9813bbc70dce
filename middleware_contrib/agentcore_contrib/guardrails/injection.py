"""Prompt-injection detection: structural rules over normalised text, a learned model
beside them, plus an optional classifier.

The text is matched in every spelling :func:`~agentcore_contrib.guardrails.normalize.spellings`
gives (decoded, de-obfuscated), against rules that describe the structure of an attack
(:mod:`~agentcore_contrib.guardrails.injection_rules`), and scored by the shipped
:class:`~agentcore_contrib.guardrails.injection_model.InjectionModel` (n-gram weights
learned from the red-team corpus). Either one flagging blocks: the rules catch
obfuscated and encoded attacks the model cannot read, the model catches wordings no
rule describes. Neither reads intent: add a classifier (or
:class:`~agentcore_contrib.guardrails.judge.LLMJudge`) where that matters.

Large texts (a 2 MB tool result) are scanned in bounded slices with a checkpoint between
them, so other tasks on the event loop keep running; the cost is linear in the text.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Awaitable, Callable, Iterable, Iterator
from typing import Literal, TypeAlias

import anyio.lowlevel

from agentcore_contrib.guardrails._base import GuardResult
from agentcore_contrib.guardrails.injection_model import InjectionModel
from agentcore_contrib.guardrails.injection_rules import (
    DEFAULT_INJECTION_PATTERNS,
    DEFAULT_INJECTION_RULES,
)
from agentcore_contrib.guardrails.normalize import spellings

__all__ = [
    "DEFAULT_INJECTION_PATTERNS",
    "DEFAULT_INJECTION_RULES",
    "Classifier",
    "InjectionModel",
    "PromptInjectionGuard",
    "spellings",
]

Classifier: TypeAlias = Callable[[str], "float | bool | Awaitable[float | bool]"]
"""Scores text: a probability of injection in [0, 1], or a bool (sync or async)."""

SLICE_CHARS = 16_384
"""Texts longer than this are scanned slice by slice, yielding to the event loop between."""
OVERLAP_CHARS = 1_024
"""Each slice repeats this much of the previous one, so a match across a cut is seen whole."""


def slices(text: str, size: int = SLICE_CHARS, overlap: int = OVERLAP_CHARS) -> Iterator[str]:
    """``text`` in pieces of ``size`` characters, each overlapping the previous by ``overlap``
    (cut at white space near the boundary where there is some)."""
    if len(text) <= size:
        yield text
        return
    start = 0
    while start < len(text):
        end = min(start + size, len(text))
        if end < len(text):
            space = text.rfind(" ", end - overlap // 2, end)
            end = space if space > start else end
        yield text[start:end]
        if end >= len(text):
            return
        start = max(end - overlap, start + 1)


def _leading_keys(source: str) -> tuple[str, ...] | None:
    """For a pattern ``\\b(?:word...|word...)...``: the letters each alternative starts
    with, one of which any match contains (``None`` when the pattern has another shape).
    Checking them with ``in`` is far cheaper than running the pattern."""
    if not source.startswith("\\b(?:"):
        return None
    depth, start = 0, len("\\b(?:")
    alternatives: list[str] = []
    index = start
    while index < len(source):
        char = source[index]
        if char == "\\":
            index += 2
            continue
        if char == "(":
            depth += 1
        elif char == ")":
            if depth == 0:
                alternatives.append(source[start:index])
                break
            depth -= 1
        elif char == "|" and depth == 0:
            alternatives.append(source[start:index])
            start = index + 1
        index += 1
    else:
        return None
    keys: list[str] = []
    for alternative in alternatives:
        lead = re.match(r"[a-z]+", alternative)
        if lead is None:
            return None
        key = lead.group()
        if alternative[len(key) :].startswith(("?", "*", "{")):
            key = key[:-1]
        if not key:
            return None
        keys.append(key)
    return tuple(dict.fromkeys(keys))


def _unanchored(pattern: re.Pattern[str]) -> re.Pattern[str] | None:
    """``pattern`` without its leading ``\\b`` (``None`` if it has none)."""
    if not pattern.pattern.startswith("\\b"):
        return None
    return re.compile(pattern.pattern[2:], pattern.flags)


def _found(pattern: re.Pattern[str], unanchored: re.Pattern[str] | None, text: str) -> bool:
    if unanchored is None:
        return pattern.search(text) is not None
    for match in unanchored.finditer(text):
        start = match.start()
        if start == 0 or (not text[start - 1].isalnum() and text[start - 1] != "_"):
            return True
        # A match inside a word: the anchored pattern decides from here on.
        return pattern.search(text, start) is not None
    return False


class PromptInjectionGuard:
    """Blocks text that tries to override the model's instructions.

    ``patterns`` (regular expressions, matched case-insensitively against every
    spelling of the text, see :func:`spellings`) default to the rules of
    :data:`DEFAULT_INJECTION_RULES`. ``model`` scores the text with learned weights and
    blocks at or over its own threshold: ``"shipped"`` for the weights shipped with
    agentcore_contrib (:meth:`InjectionModel.shipped`), an :class:`InjectionModel` of
    your own, or ``None`` (the default) for none. ``classifier`` (sync or async, any
    callable taking
    the text) scores the text; a score at or over ``threshold`` (or ``True``) blocks. A
    classifier that raises makes the guard fail closed with a ``GuardrailError``. Use it
    on input, including tool results (indirect injection).
    """

    def __init__(
        self,
        *,
        patterns: Iterable[str] | None = None,
        model: InjectionModel | Literal["shipped"] | None = None,
        classifier: Classifier | None = None,
        threshold: float = 0.5,
        name: str = "prompt_injection",
    ) -> None:
        chosen = (
            DEFAULT_INJECTION_RULES
            if patterns is None
            else tuple(("custom", pattern) for pattern in patterns)
        )
        compiled: list[tuple[str, re.Pattern[str]]] = []
        for family, pattern in chosen:
            if not isinstance(pattern, str):
                raise TypeError(f"injection patterns must be strings, got {pattern!r}")
            try:
                # The default rules are written lower-case for folded (lower-case) text;
                # matching without IGNORECASE makes them several times faster.
                flags = 0 if patterns is None else re.IGNORECASE
                compiled.append((family, re.compile(pattern, flags)))
            except re.error as exc:
                raise ValueError(f"bad injection pattern {pattern!r}: {exc}") from exc
        if classifier is not None and not callable(classifier):
            raise TypeError("classifier must be a callable taking text and returning a score")
        if not 0.0 <= threshold <= 1.0:
            raise ValueError(f"threshold must be within [0, 1], got {threshold}")
        if model == "shipped":
            model = InjectionModel.shipped()
        elif model is not None and not isinstance(model, InjectionModel):
            raise TypeError(f"model must be an InjectionModel, 'shipped' or None, got {model!r}")
        if not compiled and classifier is None and model is None:
            raise ValueError(
                "PromptInjectionGuard needs patterns, a classifier, or both (or a model)"
            )
        self.model: InjectionModel | None = model
        self.rules: tuple[tuple[str, re.Pattern[str]], ...] = tuple(compiled)
        self.patterns: tuple[re.Pattern[str], ...] = tuple(pattern for _, pattern in compiled)
        # A leading \b keeps the regex engine from skipping ahead to the first letters a
        # match can start with; searching without it and checking the boundary after is
        # several times faster on long texts.
        self._searches = tuple(
            (family, pattern, _unanchored(pattern), _leading_keys(pattern.pattern))
            for family, pattern in compiled
        )
        self.classifier = classifier
        self.threshold = threshold
        self.name = name
        # A classifier judges whole texts, so streaming output is held back in full.
        self.incremental: bool = classifier is None

    def _match(self, piece: str) -> tuple[str, str] | None:
        for variant in spellings(piece):
            for family, pattern, unanchored, keys in self._searches:
                if keys is not None and not any(key in variant for key in keys):
                    continue  # none of the words a match starts with is in the text
                if _found(pattern, unanchored, variant):
                    return family, pattern.pattern
        return None

    def matching_rule(self, text: str) -> tuple[str, str] | None:
        """The family and pattern of the first rule that matches ``text``, or ``None``.
        Synchronous: a long text is scanned in one go (``check`` yields between slices)."""
        for piece in slices(text):
            found = self._match(piece)
            if found is not None:
                return found
        return None

    def model_score(self, text: str) -> float | None:
        """The learned model's score of ``text`` (its highest window), or ``None`` without
        a model. Synchronous, like :meth:`matching_rule`."""
        if self.model is None:
            return None
        return max(self.model(piece) for piece in slices(text))

    def flags(self, text: str) -> bool:
        """Whether a rule matches ``text`` or the model scores it at or over its
        threshold (the classifier, if any, is not asked). Synchronous."""
        if self.rules and self.matching_rule(text) is not None:
            return True
        if self.model is None:
            return False
        return max(self.model(piece) for piece in slices(text)) >= self.model.threshold

    def matching_pattern(self, text: str) -> str | None:
        """The first pattern that matches any spelling of ``text``, or ``None``."""
        found = self.matching_rule(text)
        return None if found is None else found[1]

    async def check(self, text: str) -> GuardResult:
        """Block on a rule match, a model score at or over the model's threshold, or a
        classifier score at or over ``threshold``."""
        if self.rules or self.model is not None:
            model = self.model
            for index, piece in enumerate(slices(text)):
                if index:
                    await anyio.lowlevel.checkpoint()
                found = self._match(piece) if self.rules else None
                if found is not None:
                    return GuardResult.block(f"the text looks like a prompt injection ({found[0]})")
                if model is not None:
                    window_score = model(piece)
                    if window_score >= model.threshold:
                        return GuardResult.block(
                            "the text looks like a prompt injection (learned model score "
                            f"{window_score:.2f}, threshold {model.threshold})"
                        )
        if self.classifier is not None:
            score = self.classifier(text)
            if inspect.isawaitable(score):
                score = await score
            if isinstance(score, bool):
                flagged = score
            elif isinstance(score, (int, float)):
                flagged = float(score) >= self.threshold
            else:
                raise TypeError(f"the classifier returned {score!r}, not a float or a bool")
            if flagged:
                return GuardResult.block(f"the classifier flagged the text (score {score})")
        return GuardResult.allow()
