"""A learned prompt-injection detector: a logistic model over n-grams of the folded text.

The features of a text are taken from
:func:`~agentcore_contrib.guardrails.normalize.fold` (look-alike letters, invisible
characters and spacing folded, lower-cased): its words, its pairs of adjacent words, and
the same words read as *concepts* (:data:`CONCEPTS`: "ignore",
"disregard" and "bypass" are all ``DROP``; "instructions", "guidelines" and "rules" are
all ``RULES``), with the pairs and triples of concepts and words they form. The concepts
let weights learned on one wording carry over to another ("disregard prior guidelines"
shares ``DROP EARLIER RULES`` with "ignore previous instructions"). The model is a weight
per feature plus a bias: the score of a window of text is the logistic of the bias plus
the sum of the weights of the features present, divided by the square root of how many
features the window has (so long and short windows score alike).

A text is scored in windows of ``2 * block`` characters, each overlapping the next by
half, and its score is the highest window's: an instruction hidden in a long document is
judged on its own surroundings, not diluted by the rest. The cost is linear in the text.

The weights ship as ``injection_model.json`` beside this module; the repository's
``tests/contrib/guardrails/train_injection_model.py`` writes that file from the red-team
corpus, the same bytes every run. Pure Python at run time; no dependency.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Mapping
from functools import lru_cache
from itertools import pairwise
from pathlib import Path

from agentcore_contrib.guardrails.normalize import fold

__all__ = ["CONCEPTS", "MODEL_PATH", "InjectionModel", "features"]

MODEL_PATH = Path(__file__).with_name("injection_model.json")
"""Where the shipped weights are."""

_CONCEPT_WORDS = {
    "DROP": "ignore ignoring ignored disregard disregarding forget forgetting bypass "
    "bypassing override overriding overwrite abandon discard skip neglect circumvent evade "
    "cancel drop nullify suspend deactivate disable disabled lift remove",
    "EARLIER": "previous previously prior above earlier preceding former initial original "
    "old existing default built preset",
    "RULES": "instruction instructions instructed prompt prompts rule rules directions "
    "directive directives guideline guidelines guidance constraint constraints programming "
    "guardrail guardrails restriction restrictions policy policies command commands orders "
    "limitation limitations ethics ethical safeguards boundaries filter filters filtering "
    "censorship censored moderation principles protocols protocol settings configuration "
    "training content",
    "AI": "ai assistant chatgpt gpt llm model bot chatbot claude gemini llama openai "
    "anthropic agent system",
    "FREE": "unrestricted unfiltered uncensored unlimited unbound jailbroken jailbreak "
    "jailbreaking freed limitless amoral unethical immoral unhinged rogue evil",
    "ROLE": "mode persona character role roleplay pretend act acting simulate simulation "
    "imagine hypothetical hypothetically fictional game stay",
    "SHOW": "reveal print repeat output show display tell share disclose leak dump paste "
    "write expose recite spell echo verbatim",
    "SECRET": "secret secrets hidden confidential internal password passwords key keys "
    "credentials credential token tokens api",
    "NOW": "now henceforth onwards onward anymore longer",
    "NEG": "never not no don dont without nothing refuse cannot",
    "MUST": "must always should shall required obligated mandatory",
    "YOU": "you your yourself yours",
    "SEND": "send email forward transfer upload post exfiltrate wire",
    "URGENT": "important urgent immediately attention priority critical emergency",
}
CONCEPTS: Mapping[str, str] = {
    word: concept for concept, words in _CONCEPT_WORDS.items() for word in words.split()
}
"""Words read as one concept (upper-case names), so what is learned of one carries over."""

_WORD = re.compile(r"[^\W_]+")


def _block_features(words: list[str]) -> set[str]:
    found = set(map("w ".__add__, words))
    found.update(map("b {} {}".format, words, words[1:]))
    read = list(map(CONCEPTS.get, words, words))
    concepts = [token for token in read if token.isupper()]
    if concepts:
        found.update(map("k ".__add__, concepts))
        found.update(f"m {a} {b}" for a, b in pairwise(read) if a.isupper() or b.isupper())
        found.update(
            f"t {a} {b} {c}"
            for a, b, c in zip(read, read[1:], read[2:], strict=False)
            if a.isupper() + b.isupper() + c.isupper() >= 2
        )
    return found


def features(text: str) -> set[str]:
    """The features of ``text`` (folded first): ``"w word"``, ``"b word word"``, and with
    words read as :data:`CONCEPTS`, ``"k CONCEPT"`` and the pairs (``"m ..."``) and
    triples (``"t ..."``) that hold a concept."""
    return _block_features(_WORD.findall(fold(text)))


def _blocks(folded: str, size: int) -> Iterator[list[str]]:
    """The words of ``folded`` in runs of about ``size`` characters (cut between words)."""
    words: list[str] = []
    length = 0
    for match in _WORD.finditer(folded):
        word = match.group()
        words.append(word)
        length += len(word) + 1
        if length >= size:
            yield words
            words, length = [], 0
    if words or length == 0:
        yield words


class InjectionModel:
    """Scores text for prompt injection with learned n-gram weights.

    Call it (``model(text)``) for a probability-like score in [0, 1]; ``flags(text)``
    compares it with ``threshold``, the score the shipped weights were calibrated to
    flag at (at most 1 % of the benign corpus over it, measured on sources the model
    was not trained on). Load the shipped weights with :meth:`shipped`.
    """

    def __init__(
        self, weights: Mapping[str, float], bias: float, threshold: float, block: int = 400
    ) -> None:
        if not 0.0 < threshold < 1.0:
            raise ValueError(f"threshold must be within (0, 1), got {threshold}")
        if block < 16:
            raise ValueError(f"block must be at least 16 characters, got {block}")
        self.weights: dict[str, float] = dict(weights)
        self.bias: float = float(bias)
        self.threshold: float = float(threshold)
        self.block: int = block

    @classmethod
    def shipped(cls) -> InjectionModel:
        """The weights shipped with agentcore_contrib (loaded once, then shared)."""
        return _shipped()

    @classmethod
    def from_file(cls, path: Path) -> InjectionModel:
        """Weights written by the training script (JSON: ``weights``, ``bias``,
        ``threshold``, ``block``)."""
        raw = json.loads(path.read_text(encoding="utf-8"))
        try:
            return cls(raw["weights"], raw["bias"], raw["threshold"], raw["block"])
        except (KeyError, TypeError) as exc:
            raise ValueError(f"{path} is not an injection model file: {exc!r}") from exc

    def to_json(self) -> str:
        """The model as the JSON text :meth:`from_file` reads (keys sorted, stable)."""
        data = {
            "block": self.block,
            "bias": self.bias,
            "threshold": self.threshold,
            "weights": dict(sorted(self.weights.items())),
        }
        return json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))

    def score_features(self, found: set[str]) -> float:
        """The score of one window, given its features."""
        if not found:
            return _logistic(self.bias)
        known = found & self.weights.keys()
        total = sum(map(self.weights.__getitem__, known))
        return _logistic(self.bias + total / math.sqrt(len(found)))

    def __call__(self, text: str) -> float:
        """The highest score of the windows of ``text``."""
        blocks = [_block_features(words) for words in _blocks(fold(text), self.block)]
        if len(blocks) == 1:
            return self.score_features(blocks[0])
        return max(self.score_features(a | b) for a, b in pairwise(blocks))

    def flags(self, text: str) -> bool:
        """Whether ``text`` scores at or over ``threshold``."""
        return self(text) >= self.threshold


def _logistic(value: float) -> float:
    if value >= 0:
        return 1.0 / (1.0 + math.exp(-value))
    exp = math.exp(value)
    return exp / (1.0 + exp)


@lru_cache(maxsize=1)
def _shipped() -> InjectionModel:
    return InjectionModel.from_file(MODEL_PATH)
