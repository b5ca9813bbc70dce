"""The red-team corpus: catch rate and false-positive rate of the default guards.

The thresholds sit just under the measured figures (docs/guardrails-redteam.md), so a
change that loses catches or adds false positives fails here. The corpus was written
while the patterns were tuned, so the figures overstate performance on unseen text.
"""

from __future__ import annotations

from pathlib import Path

from agentcore_contrib.guardrails import PIIGuard, PromptInjectionGuard

CORPUS = Path(__file__).parent / "corpus"

MIN_INJECTION_CATCH_RATE = 0.90
MIN_PII_CATCH_RATE = 0.95
MAX_FALSE_POSITIVE_RATE = 0.05


def lines(name: str) -> list[str]:
    text = (CORPUS / name).read_text(encoding="utf-8")
    return [line.replace("\\n", "\n") for line in text.splitlines() if line.strip()]


def injection_caught(text: str) -> bool:
    return PromptInjectionGuard().matching_pattern(text) is not None


def pii_caught(kind: str, text: str) -> bool:
    return any(match.kind == kind for match in PIIGuard().find(text))


def test_the_corpus_is_big_enough() -> None:
    assert len(lines("injections.txt")) >= 40
    assert len(lines("pii.txt")) >= 40
    assert len(lines("benign.txt")) >= 40
    kinds = {line.split("\t", 1)[0] for line in lines("pii.txt")}
    assert kinds == {"email", "phone", "card", "iban", "us_ssn", "uk_nino"}


def test_injection_catch_rate() -> None:
    samples = lines("injections.txt")
    rate = sum(map(injection_caught, samples)) / len(samples)
    assert rate >= MIN_INJECTION_CATCH_RATE, f"caught {rate:.1%}"


def test_pii_catch_rate_by_kind() -> None:
    samples = [tuple(line.split("\t", 1)) for line in lines("pii.txt")]
    rate = sum(pii_caught(kind, text) for kind, text in samples) / len(samples)
    assert rate >= MIN_PII_CATCH_RATE, f"caught {rate:.1%}"


def test_false_positive_rate_on_benign_text() -> None:
    samples = lines("benign.txt")
    flagged = [s for s in samples if injection_caught(s) or PIIGuard().find(s)]
    rate = len(flagged) / len(samples)
    assert rate <= MAX_FALSE_POSITIVE_RATE, f"false positives {rate:.1%}: {flagged}"


def report() -> None:
    """Print the figures: ``python tests/contrib/guardrails/test_redteam.py``."""
    injections = lines("injections.txt")
    pii = [line.split("\t", 1) for line in lines("pii.txt")]
    benign = lines("benign.txt")
    caught = [s for s in injections if injection_caught(s)]
    found = [text for kind, text in pii if pii_caught(kind, text)]
    flagged = [s for s in benign if injection_caught(s) or PIIGuard().find(s)]
    print(
        f"injections caught: {len(caught)}/{len(injections)} = {len(caught) / len(injections):.1%}"
    )
    print(f"PII caught (right kind): {len(found)}/{len(pii)} = {len(found) / len(pii):.1%}")
    print(f"benign flagged: {len(flagged)}/{len(benign)} = {len(flagged) / len(benign):.1%}")
    for sample in injections:
        if sample not in caught:
            print(f"  missed injection: {sample!r}")
    for sample in flagged:
        print(f"  false positive: {sample!r}")


if __name__ == "__main__":
    report()
