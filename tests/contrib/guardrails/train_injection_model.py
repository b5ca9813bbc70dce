"""Train the learned prompt-injection detector and write its shipped weights.

``python tests/contrib/guardrails/train_injection_model.py`` trains on the whole red-team
corpus (``corpus/*.jsonl``) and writes
``middleware_contrib/agentcore_contrib/guardrails/injection_model.json``. Pure Python,
fixed seed, features in sorted order: the same corpus gives the same bytes on every run
(``test_injection_model.py`` checks the shipped file is what this writes).

The learner is logistic regression by stochastic gradient descent over the windows of
each text (the windows :class:`~agentcore_contrib.guardrails.injection_model.InjectionModel`
scores). Every window of a benign text is a negative example. An attack may be a long
document with the instruction in one place, so training takes two rounds: first every
window of an attack is a positive example, then only its highest-scoring window is
(multiple-instance learning). The weights are then cut to the ``KEEP`` largest and
rounded, which keeps the shipped file small.

The threshold is not learned here: ``redteam_loso.py`` sets it from the scores of benign
texts of sources left out of training (``THRESHOLD`` below records its figure).
"""

from __future__ import annotations

import math
import random
import sys
from collections import Counter
from collections.abc import Sequence
from itertools import pairwise
from pathlib import Path

from agentcore_contrib.guardrails.injection_model import (
    MODEL_PATH,
    InjectionModel,
    _block_features,
    _blocks,
)
from agentcore_contrib.guardrails.normalize import fold

sys.path.insert(0, str(Path(__file__).parents[3]))

from tests.contrib.guardrails.redteam_corpus import Sample, load_all, source_of

SEED = 30
EPOCHS = 6
RATE = 0.5
DECAY = 1e-4  # L2 shrinkage of every weight, each epoch
KEEP = 12_000  # features kept, largest weights first
DIGITS = 3  # decimals kept of each weight
BLOCK = 400
THRESHOLD = 0.822  # set by redteam_loso.py from out-of-source benign scores (its calibrate())

Window = tuple[str, ...]


def windows(text: str, block: int = BLOCK) -> list[Window]:
    """The feature sets of the windows of ``text``, each sorted (a stable order)."""
    blocks = [_block_features(words) for words in _blocks(fold(text), block)]
    if len(blocks) == 1:
        return [tuple(sorted(blocks[0]))]
    return [tuple(sorted(a | b)) for a, b in pairwise(blocks)]


def _logistic(value: float) -> float:
    if value >= 0:
        return 1.0 / (1.0 + math.exp(-value))
    exp = math.exp(value)
    return exp / (1.0 + exp)


class _Learner:
    def __init__(self) -> None:
        self.weights: dict[str, float] = {}
        self.bias = 0.0

    def score(self, window: Window) -> float:
        get = self.weights.get
        total = sum(get(f, 0.0) for f in window)
        return _logistic(self.bias + total / math.sqrt(max(len(window), 1)))

    def fit(self, examples: Sequence[tuple[Window, float, float]], rng: random.Random) -> None:
        """``examples``: (window, label, weight). Updates skip windows already scored
        within 0.02 of their label, which after the first epoch is most of them."""
        weights = self.weights
        order = list(range(len(examples)))
        for epoch in range(EPOCHS):
            rng.shuffle(order)
            rate = RATE / (1 + epoch)
            for index in order:
                window, label, weight = examples[index]
                error = self.score(window) - label
                if abs(error) < 0.02:
                    continue
                step = rate * error * weight
                scaled = step / math.sqrt(max(len(window), 1))
                for feature in window:
                    weights[feature] = weights.get(feature, 0.0) - scaled
                self.bias -= step * 0.1
            shrink = 1 - DECAY
            for feature in weights:
                weights[feature] *= shrink


def _source_weights(samples: Sequence[Sample]) -> list[float]:
    """A weight per sample, so that a large source does not drown the small ones: each
    source weighs the square root of its size; the weights add up to the sample count."""
    sizes = Counter(source_of(s) for s in samples)
    raw = [1 / math.sqrt(sizes[source_of(s)]) for s in samples]
    scale = len(samples) / sum(raw)
    return [value * scale for value in raw]


def _examples(
    positives: Sequence[Sequence[Window]],
    pos_weights: Sequence[float],
    negatives: Sequence[Sequence[Window]],
    neg_weights: Sequence[float],
) -> list[tuple[Window, float, float]]:
    """Labelled windows. Every window of a benign text is a negative (a text is flagged
    if any window is); an attack's weight is shared by its windows; the attacks weigh as
    much in total as the benign windows."""
    examples = [
        (w, 0.0, weight) for ws, weight in zip(negatives, neg_weights, strict=True) for w in ws
    ]
    balance = sum(weight for _, _, weight in examples) / max(sum(pos_weights), 1e-9)
    examples += [
        (w, 1.0, balance * weight / len(ws))
        for ws, weight in zip(positives, pos_weights, strict=True)
        for w in ws
    ]
    return examples


def train(attacks: Sequence[Sample], benign: Sequence[Sample], threshold: float) -> InjectionModel:
    """A model trained on ``attacks`` and ``benign`` (deterministic)."""
    negatives = [windows(sample.text) for sample in benign]
    positives = [windows(sample.text) for sample in attacks]
    pos_weights, neg_weights = _source_weights(attacks), _source_weights(benign)
    learner = _Learner()
    learner.fit(_examples(positives, pos_weights, negatives, neg_weights), random.Random(SEED))
    # Second round: the attack's best window stands for it.
    best = [[max(ws, key=learner.score)] for ws in positives]
    learner = _Learner()
    examples = _examples(best, pos_weights, negatives, neg_weights)
    learner.fit(examples, random.Random(SEED + 1))
    kept = sorted(learner.weights.items(), key=lambda item: (-abs(item[1]), item[0]))[:KEEP]
    rounded = {f: round(w, DIGITS) for f, w in kept if round(w, DIGITS)}
    return InjectionModel(rounded, round(learner.bias, DIGITS), threshold, BLOCK)


def shipped_model() -> InjectionModel:
    """The model trained on the whole corpus, with the calibrated threshold."""
    attacks, benign = load_all()
    return train(attacks, benign, THRESHOLD)


def main() -> None:
    model = shipped_model()
    MODEL_PATH.write_text(model.to_json() + "\n", encoding="utf-8")
    print(f"wrote {MODEL_PATH} ({len(model.weights)} weights)")


if __name__ == "__main__":
    main()
