"""The red-team corpus: loading it, and the catch rates of the default guards on it.

``corpus/attacks.jsonl`` and ``corpus/benign.jsonl`` hold one record a line: ``family``,
``split`` (``dev``: looked at while the rules were written; ``holdout``: only measured),
``source``, ``licence`` and ``text``. ``corpus/build.py`` rebuilt them from the public
packages named in ``corpus/SOURCES.md``. ``corpus/pii.txt`` holds ``kind<TAB>text`` lines.

``python tests/contrib/guardrails/redteam_corpus.py`` prints the figures of
``docs/guardrails-redteam.md``.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import attrs
from agentcore_contrib.guardrails import PIIGuard, PromptInjectionGuard

CORPUS = Path(__file__).parent / "corpus"


@attrs.frozen
class Sample:
    """One text of the corpus."""

    family: str
    split: str
    source: str
    licence: str
    text: str


def load(name: str) -> list[Sample]:
    """The records of ``corpus/<name>.jsonl``."""
    samples: list[Sample] = []
    with (CORPUS / f"{name}.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                raw = json.loads(line)
                samples.append(
                    Sample(raw["family"], raw["split"], raw["source"], raw["licence"], raw["text"])
                )
    return samples


def load_all() -> tuple[list[Sample], list[Sample]]:
    """Every attack and every benign text: the first corpus and the sources added since
    (``corpus/more_*.jsonl``, built by ``corpus/build_more.py``)."""
    return load("attacks") + load("more_attacks"), load("benign") + load("more_benign")


def source_of(sample: Sample) -> str:
    """The source a sample is left out with: the package (or project) it comes from,
    attack or benign. The obfuscations written for this corpus count with the texts they
    obfuscate; Debian's documentation and changelogs are one source."""
    return sample.source.split(" ", 1)[0]


def pii_samples() -> list[tuple[str, str]]:
    """``(kind, text)`` pairs of ``corpus/pii.txt``."""
    lines = (CORPUS / "pii.txt").read_text(encoding="utf-8").splitlines()
    return [(kind, text) for kind, text in (line.split("\t", 1) for line in lines if line.strip())]


_GUARD = PromptInjectionGuard()  # the rules alone
_PII = PIIGuard()


def injection_caught(text: str) -> bool:
    return _GUARD.matching_rule(text) is not None


def pii_near_misses() -> list[str]:
    """Texts with numbers that are no personal data (``corpus/pii_benign.txt``)."""
    lines = (CORPUS / "pii_benign.txt").read_text(encoding="utf-8").splitlines()
    return [line for line in lines if line.strip()]


def pii_caught(kind: str, text: str) -> bool:
    return any(match.kind == kind for match in _PII.find(text))


def rates(
    samples: list[Sample], hit: Callable[[str], bool], split: str | None = None
) -> dict[str, tuple[int, int]]:
    """``{family: (hits, total)}`` over ``samples`` (of one ``split``, or all)."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for sample in samples:
        if split is None or sample.split == split:
            counts[sample.family][0] += hit(sample.text)
            counts[sample.family][1] += 1
    return {family: (h, n) for family, (h, n) in sorted(counts.items())}


def total(by_family: dict[str, tuple[int, int]], *, without: tuple[str, ...] = ()) -> float:
    kept = [value for family, value in by_family.items() if family not in without]
    return sum(h for h, _ in kept) / sum(n for _, n in kept)


def report() -> None:
    attacks, benign = load("attacks"), load("benign")
    for split in ("dev", "holdout", None):
        caught = rates(attacks, injection_caught, split)
        false = rates(benign, injection_caught, split)
        print(f"## {split or 'all'}")
        for family, (h, n) in caught.items():
            print(f"| {family} | {h} / {n} | {h / n:.1%} |")
        print(f"caught (without non_english): {total(caught, without=('non_english',)):.1%}")
        for family, (h, n) in false.items():
            print(f"| benign {family} | {h} / {n} |")
    pii = pii_samples()
    for kind in sorted({kind for kind, _ in pii}):
        of_kind = [text for k, text in pii if k == kind]
        found = sum(pii_caught(kind, text) for text in of_kind)
        print(f"| {kind} | {found} / {len(of_kind)} |")
    wrong = [text for text in pii_near_misses() if _PII.find(text)]
    print(f"PII near misses flagged: {len(wrong)} / {len(pii_near_misses())} {wrong}")


if __name__ == "__main__":
    report()
