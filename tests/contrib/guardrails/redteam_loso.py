"""Leave-one-source-out figures of the injection guard: the headline table of
docs/guardrails-redteam.md.

``python tests/contrib/guardrails/redteam_loso.py`` prints it (a few minutes: one
training per fold, pure Python).

Each fold leaves out one source (a package or project, with everything derived from
it, attacks and benign texts alike), trains the learned detector on the rest, and
scores what was left out, so every text is scored by a model that never saw its
source. The rules were
written before these sources were added, from the first corpus; for sources of that
corpus (spikee, agentdojo, prompt-security-fuzzer, agentcore) their figure is not held
out, and the table marks them.

The threshold is set here, from the out-of-fold scores of the benign texts of the
``dev`` split: the lowest score at which the guard (rules or model) flags at most
``TARGET_FP`` of them. The false-positive figure that counts is the one on the
``holdout`` split, which the threshold never saw.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

import attrs

sys.path.insert(0, str(Path(__file__).parents[3]))

from tests.contrib.guardrails.redteam_corpus import (
    Sample,
    injection_caught,
    load_all,
    source_of,
)
from tests.contrib.guardrails.train_injection_model import train

TARGET_FP = 0.01
FIRST_CORPUS = frozenset({"spikee", "agentdojo", "prompt-security-fuzzer", "agentcore"})


@attrs.frozen
class Scored:
    sample: Sample
    group: str
    rule: bool
    score: float


@attrs.frozen
class Figures:
    attacks: list[Scored]
    benign: list[Scored]
    threshold: float


def out_of_source_scores() -> Figures:
    attacks, benign = load_all()
    sources = sorted({source_of(s) for s in attacks + benign})
    scored_attacks: list[Scored] = []
    scored_benign: list[Scored] = []
    for fold, left_out in enumerate(sources):
        model = train(
            [s for s in attacks if source_of(s) != left_out],
            [s for s in benign if source_of(s) != left_out],
            threshold=0.5,
        )
        for sample, scored in [(s, scored_attacks) for s in attacks] + [
            (s, scored_benign) for s in benign
        ]:
            if source_of(sample) == left_out:
                rule = injection_caught(sample.text)
                scored.append(Scored(sample, left_out, rule, model(sample.text)))
        print(f"fold {fold + 1}/{len(sources)}: left out {left_out}", file=sys.stderr)
    return Figures(scored_attacks, scored_benign, calibrate(scored_benign))


def calibrate(benign: Sequence[Scored]) -> float:
    """The lowest threshold at which at most ``TARGET_FP`` of the ``dev`` benign texts
    are flagged (by a rule or the model)."""
    dev = [s for s in benign if s.sample.split == "dev"]
    allowed = int(TARGET_FP * len(dev))
    scores = sorted((s.score for s in dev if not s.rule), reverse=True)
    allowed -= sum(s.rule for s in dev)
    cut = scores[max(allowed, 0)] if len(scores) > max(allowed, 0) else 0.0
    return round(min(max(cut + 1e-3, 0.5), 0.999), 3)


def _pct(hits: int, total: int) -> str:
    return f"{hits / total:.1%}" if total else "-"


def _of_split(items: Sequence[Scored], split: str) -> list[Scored]:
    return [item for item in items if item.sample.split == split]


def table(figures: Figures) -> str:
    threshold = figures.threshold
    lines = [
        f"threshold {threshold}",
        "",
        "| attack source | texts | rules | model | rules or model |",
        "| --- | --- | --- | --- | --- |",
    ]
    by_group: dict[str, list[Scored]] = defaultdict(list)
    for item in figures.attacks:
        by_group[item.group].append(item)
    rates: dict[str, list[float]] = {"rules": [], "model": [], "both": []}
    held: dict[str, list[float]] = {"rules": [], "model": [], "both": []}
    for group, items in sorted(by_group.items()):
        n = len(items)
        rule = sum(i.rule for i in items)
        model = sum(i.score >= threshold for i in items)
        both = sum(i.rule or i.score >= threshold for i in items)
        for key, value in (("rules", rule), ("model", model), ("both", both)):
            rates[key].append(value / n)
            if group not in FIRST_CORPUS:
                held[key].append(value / n)
        mark = " (rules tuned on it)" if group in FIRST_CORPUS else ""
        lines.append(
            f"| {group}{mark} | {n} | {_pct(rule, n)} | {_pct(model, n)} | **{_pct(both, n)}** |"
        )
    for label, values in (("all sources", rates), ("sources new to the rules", held)):
        lines.append(
            f"| mean, {label} | | {sum(values['rules']) / len(values['rules']):.1%} "
            f"| {sum(values['model']) / len(values['model']):.1%} "
            f"| **{sum(values['both']) / len(values['both']):.1%}** |"
        )
        lines.append(
            f"| worst, {label} | | {min(values['rules']):.1%} | {min(values['model']):.1%} "
            f"| **{min(values['both']):.1%}** |"
        )
    lines += [
        "",
        "| benign source | texts | rules | model | rules or model |",
        "| --- | --- | --- | --- | --- |",
    ]
    benign_groups: dict[str, list[Scored]] = defaultdict(list)
    for item in figures.benign:
        benign_groups[item.group].append(item)
    for label, items in [
        *sorted(benign_groups.items()),
        ("all (dev split: sets the threshold)", _of_split(figures.benign, "dev")),
        ("all (holdout split)", _of_split(figures.benign, "holdout")),
        ("all", figures.benign),
    ]:
        n = len(items)
        rule = sum(i.rule for i in items)
        model = sum(i.score >= threshold for i in items)
        both = sum(i.rule or i.score >= threshold for i in items)
        lines.append(f"| {label} | {n} | {rule} | {model} | **{both} ({_pct(both, n)})** |")
    return "\n".join(lines)


def main() -> None:
    figures = out_of_source_scores()
    print(table(figures))
    flagged = [i for i in figures.benign if i.rule or i.score >= figures.threshold]
    for item in flagged:
        print(f"false positive ({item.group}, {item.score:.3f}): {item.sample.text[:100]!r}")


if __name__ == "__main__":
    main()
