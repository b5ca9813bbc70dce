"""Prompt-injection detection: phrase patterns over normalised text, plus an optional
classifier.

The text is checked in several spellings so common obfuscations do not hide a phrase:
Unicode compatibility forms (full-width letters), zero-width characters removed, Cyrillic
and Greek look-alike letters mapped to Latin, leetspeak digits read as letters, letters
spaced or dotted apart joined up, base64 runs decoded, and the text reversed or ROT13'd.
Patterns catch known phrasings, not intent: pair them with a classifier (or
:class:`~agentcore_contrib.guardrails.judge.LLMJudge`) for paraphrases.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import inspect
import re
import unicodedata
from collections.abc import Awaitable, Callable, Iterable, Iterator
from typing import TypeAlias

from agentcore_contrib.guardrails._base import GuardResult

__all__ = ["DEFAULT_INJECTION_PATTERNS", "Classifier", "PromptInjectionGuard", "spellings"]

Classifier: TypeAlias = Callable[[str], "float | bool | Awaitable[float | bool]"]
"""Scores text: a probability of injection in [0, 1], or a bool."""

_GAP = r"[\W_]*"


def _p(*parts: str) -> str:
    """Join ``parts``; spaces in them match any run of non-letters (or none)."""
    return "".join(parts).replace(" ", _GAP)


def _any(*words: str) -> str:
    """A group matching one of ``words`` (longest first, so prefixes do not win)."""
    return "(?:" + "|".join(sorted(words, key=len, reverse=True)) + ")"


_EARLIER = _any(
    "previous",
    "prior",
    "above",
    "earlier",
    "preceding",
    "former",
    "initial",
    "original",
    "old",
    "existing",
    "system",
    "developer",
    "safety",
    "all",
    "any",
    "the",
    "your",
    "these",
    "those",
    "every",
    "user s",
    "users",
    "operator s",
    "their",
    "its",
)
_RULES = _any(
    "instructions?",
    "prompts?",
    "rules",
    "directions",
    "directives",
    "guidelines",
    "guidance",
    "context",
    "constraints",
    "programming",
    "guardrails",
    "restrictions",
    "policies",
    "policy",
    "commands",
    "orders",
    "messages?",
)
_DROP = _any(
    "ignore",
    "disregard",
    "forget",
    "skip",
    "bypass",
    "override",
    "abandon",
    "drop",
    "discard",
    "neglect",
)
_ROGUE = _any(
    "unrestricted",
    "unfiltered",
    "uncensored",
    "jailbroken",
    "evil",
    "rogue",
    "malicious",
    "dan",
    "ai without",
    "model without",
    "assistant without",
    "version of yourself without",
)
_SECRET_ADJ = _any(
    "full",
    "entire",
    "complete",
    "exact",
    "original",
    "hidden",
    "secret",
    "initial",
    "verbatim",
    "first",
)
_REVEAL = _any(
    "reveal",
    "show",
    "print",
    "repeat",
    "output",
    "display",
    "leak",
    "expose",
    "dump",
    "recite",
    "spell out",
    "write out",
    "paste",
    "share",
    "tell me",
    "give me",
    "what is",
    "what are",
    "what were",
)
_LOOT = _any(
    "conversation history",
    "conversation",
    "chat history",
    "chat log",
    "user data",
    "customer data",
    "credentials",
    "passwords?",
    "api keys?",
    "secrets?",
    "access tokens?",
    "system prompt",
)
_NO_LIMITS = _any(
    "restrictions",
    "rules",
    "limits",
    "filters",
    "limitations",
    "ethics",
    "guidelines",
    "censorship",
)

DEFAULT_INJECTION_PATTERNS: tuple[str, ...] = (
    # Override the instructions the model was given.
    _p(rf"\b{_DROP} (?:{_EARLIER} )*{_RULES}"),
    _p(
        r"\b(?:ignore|disregard|forget|discard|set aside|put aside) ",
        r"(?:everything|anything|all|what) (?:(?:that |you )?",
        r"(?:above|before|prior|previously|earlier|said|were told|was said|have been told",
        r"|you know))",
    ),
    _p(
        r"\b(?:do not|don t|dont|stop) ",
        rf"(?:follow|follow ing|obey|obey ing|listen ing to|listen to) (?:{_EARLIER} )*{_RULES}",
    ),
    _p(
        r"\b(?:new|updated|revised|real|actual|true|override|hidden|secret) (?:system )?",
        rf"(?:{_RULES}|task|objective) ?(?::|follow|are|is)",
    ),
    _p(r"\bfrom now on,? you (?:will|must|shall|are|have|should|answer|reply|respond)"),
    _p(
        r"\byour (?:new|real|true|only) ",
        r"(?:task|goal|objective|purpose|job|role|instructions?) (?:is|are)",
    ),
    # Take over the model's role.
    _p(
        r"\byou are (?:now|no longer) (?:an? |in |the )?",
        r"(?:dan|unrestricted|unfiltered|uncensored|jailbroken|free|evil|developer|admin",
        r"|administrator|root|god|bound|restricted|an ai|a language model|chatgpt|claude",
        r"|assistant|limited|in developer mode)",
    ),
    _p(
        r"\b(?:act|behave|respond|answer|pretend|roleplay|role play) ",
        rf"(?:as|like|to be|you are) (?:an? |the )?{_ROGUE}",
    ),
    _p(
        r"\b(?:do anything now|dan mode|developer mode (?:enabled|on|activated|output)",
        r"|jail ?break(?:ed)? (?:mode|prompt|enabled|activated)",
        r"|god mode (?:enabled|on|activated))",
    ),
    _p(
        r"\b(?:you are|you re|as|become) an? (?:ai|assistant|model|chatbot|bot|llm) ",
        rf"(?:without|with no|free of|free from) (?:any )?{_NO_LIMITS}",
    ),
    _p(
        r"\b(?:enable|activate|enter|switch to|turn on) ",
        r"(?:developer|god|admin|debug|unrestricted|sudo|maintenance|dan) mode",
    ),
    _p(
        r"\b(?:without|no|free of|free from) (?:any )?",
        r"(?:restrictions|filters|limitations|censorship|safety|guidelines|rules|ethics|morals)",
        r"\b.{0,40}\b(?:answer|respond|reply|comply|tell|say|write|do)",
    ),
    _p(
        r"\b(?:bypass|disable|turn off|switch off|deactivate|remove) ",
        r"(?:your |the |all |any )*(?:safety|content|security|moderation|ethical)? ?",
        r"(?:filters?|guardrails|restrictions|safeguards|policies|checks|protections)",
    ),
    # Extract the hidden prompt or secrets.
    _p(
        rf"\b{_REVEAL} (?:me )?(?:your|the) (?:{_SECRET_ADJ} )*",
        r"(?:system|developer|hidden|initial|original|secret) ?",
        r"(?:prompt|instructions?|message|rules|configuration)",
    ),
    _p(
        r"\b(?:repeat|print|output|recite) (?:everything|all|the text|the words|all text) ",
        r"(?:above|before|prior)",
    ),
    _p(
        r"\b(?:send|forward|email|post|upload|exfiltrate|transmit|leak|copy) ",
        r"(?:all |the |this |my |your |any |every |our |entire |whole |full |complete )*",
        rf"{_LOOT} to\b",
    ),
    # Fake conversation structure and authority.
    r"<\|(?:im_start|im_end|system|endoftext|assistant|user)\|>",
    r"\[/?inst\]|<</?sys>>|</?(?:system|instructions?|admin|developer)>",
    _p(r"(?:^|\n)\s*#{2,} ?(?:system|new instructions?|admin|developer)\b"),
    _p(
        r"\b(?:system|admin|administrator|developer|root|security) ",
        r"(?:override|message|notice|command|instruction|update|alert) ?:",
    ),
    _p(
        r"\b(?:this is|message from) (?:your|the) ",
        r"(?:developer|administrator|admin|creator|system|operator)s?\b",
    ),
)

_ZERO_WIDTH = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad\u180e\u200e\u200f"))
_LOOKALIKES = str.maketrans(
    "аеорсухіјѕԁɡӏАЕОРСХІЈЅКМНТВαοειρτυνκΑΕΟΙΡΤΥΝΚΜΒ",
    "aeopcyxijsdglAEOPCXIJSKMHTBaoeiptuvkAEOIPTYNKMB",
)
_LEET = str.maketrans("0134578@$|!", "oieastbasii")
_LEET_L = str.maketrans("0134578@$|!", "oleastbasll")
_SPACED = re.compile(r"(?<![^\W\d_])(?:[^\W\d_][\s.\-_*/|]{1,3}){3,}[^\W\d_](?![^\W\d_])")
_BASE64 = re.compile(r"[A-Za-z0-9+/]{16,}={0,2}")


def _decode_base64(text: str) -> Iterator[str]:
    for run in _BASE64.findall(text):
        padded = run + "=" * (-len(run) % 4)
        try:
            decoded = base64.b64decode(padded, validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError, ValueError):
            continue
        if decoded.isprintable() or all(c.isprintable() or c.isspace() for c in decoded):
            yield decoded


def _join_spaced(text: str) -> str:
    return _SPACED.sub(lambda m: re.sub(r"[\s.\-_*/|]", "", m.group()), text)


def spellings(text: str) -> list[str]:
    """The spellings of ``text`` the patterns are matched against (lower-cased)."""
    base = unicodedata.normalize("NFKC", text).translate(_ZERO_WIDTH).translate(_LOOKALIKES)
    base = base.lower()
    variants = [base, base.translate(_LEET), base.translate(_LEET_L)]
    variants.extend([_join_spaced(v) for v in variants])
    variants.append(base[::-1])
    variants.append(codecs.encode(base, "rot13"))
    for decoded in _decode_base64(unicodedata.normalize("NFKC", text)):
        variants.append(unicodedata.normalize("NFKC", decoded).lower())
    return list(dict.fromkeys(variants))


class PromptInjectionGuard:
    """Blocks text that tries to override the model's instructions.

    ``patterns`` (regular expressions, matched case-insensitively against every
    spelling of the text, see :func:`spellings`) default to
    :data:`DEFAULT_INJECTION_PATTERNS`. ``classifier`` (sync or async) scores the
    text; a score at or over ``threshold`` (or ``True``) blocks. A classifier that
    raises makes the guard fail closed with a ``GuardrailError``. Use it on input,
    including tool results (indirect injection).
    """

    def __init__(
        self,
        *,
        patterns: Iterable[str] | None = None,
        classifier: Classifier | None = None,
        threshold: float = 0.5,
        name: str = "prompt_injection",
    ) -> None:
        chosen = tuple(DEFAULT_INJECTION_PATTERNS if patterns is None else patterns)
        compiled: list[re.Pattern[str]] = []
        for pattern in chosen:
            try:
                compiled.append(re.compile(pattern, re.IGNORECASE))
            except re.error as exc:
                raise ValueError(f"bad injection pattern {pattern!r}: {exc}") from exc
        if classifier is not None and not callable(classifier):
            raise TypeError("classifier must be a callable taking text and returning a score")
        if not 0.0 <= threshold <= 1.0:
            raise ValueError(f"threshold must be within [0, 1], got {threshold}")
        if not compiled and classifier is None:
            raise ValueError("PromptInjectionGuard needs patterns, a classifier, or both")
        self.patterns = tuple(compiled)
        self.classifier = classifier
        self.threshold = threshold
        self.name = name
        # A classifier judges whole texts, so streaming output is held back in full.
        self.incremental = classifier is None

    def matching_pattern(self, text: str) -> str | None:
        """The first pattern that matches any spelling of ``text``, or ``None``."""
        for variant in spellings(text):
            for pattern in self.patterns:
                if pattern.search(variant):
                    return pattern.pattern
        return None

    async def check(self, text: str) -> GuardResult:
        """Block on a pattern match or a classifier score at or over the threshold."""
        if self.matching_pattern(text) is not None:
            return GuardResult.block("the text matches a known prompt-injection phrasing")
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
