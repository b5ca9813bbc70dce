"""Guard throughput: megabytes a second the default guards scan, on text of several kinds.

The text is built here (no corpus file needed): prose, code, a JSON tool result and a
multilingual mix, repeated to the wanted size. Each guard's ``check`` is awaited as a
middleware would, slices and all.
"""

from __future__ import annotations

import asyncio
import json
import time

import attrs
from agentcore_contrib.guardrails import PIIGuard, PromptInjectionGuard, TextGuard

_PROSE = (
    "The quarterly report covers revenue, churn and hiring. Revenue grew in every region; "
    "churn fell after the onboarding changes, and the support queue is shorter than last "
    "year. Version 3.12.1 shipped on 2024-03-15 with 42 fixes. Ask Dana (dana@example.com) "
    "for the slides before the review on Thursday.\n\n"
)
_CODE = (
    "def load(path: str) -> dict[str, int]:\n"
    "    with open(path, encoding='utf-8') as handle:\n"
    "        return {k: int(v) for k, v in json.load(handle).items() if v}\n\n"
)
_JSON = json.dumps(
    {
        "results": [
            {"id": n, "title": f"Item {n}", "price": "12.50", "tags": ["a", "b"]} for n in range(5)
        ]
    }
)
_MULTILINGUAL = (
    "Die Datei konnte nicht geöffnet werden. Le fichier est introuvable. "
    "ファイルを開けませんでした。 Не удалось открыть файл. El archivo no existe.\n"  # noqa: RUF001  # Russian text, not look-alikes
)


@attrs.frozen
class ScanResult:
    guard: str
    kind: str
    megabytes: float
    seconds: float

    @property
    def mb_per_s(self) -> float:
        return self.megabytes / self.seconds


def text_of(kind: str, size: int) -> str:
    unit = {"prose": _PROSE, "code": _CODE, "json": _JSON, "multilingual": _MULTILINGUAL}[kind]
    return (unit * (size // len(unit) + 1))[:size]


def scan(guard: TextGuard, text: str, repeats: int) -> float:
    """Best CPU seconds (all threads of the process) of ``repeats`` awaited checks of
    ``text``: CPU time, not wall time, so other work on a shared machine does not count."""
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        asyncio.run(guard.check(text))
        best = min(best, time.process_time() - start)
    return best


def guard_scans(size: int, repeats: int) -> list[ScanResult]:
    guards: list[tuple[str, TextGuard]] = [
        ("PromptInjectionGuard()", PromptInjectionGuard()),
        ('PromptInjectionGuard(model="shipped")', PromptInjectionGuard(model="shipped")),
        ("PIIGuard()", PIIGuard()),
    ]
    results: list[ScanResult] = []
    for name, guard in guards:
        for kind in ("prose", "code", "json", "multilingual"):
            text = text_of(kind, size)
            seconds = scan(guard, text, repeats)
            results.append(ScanResult(name, kind, len(text.encode()) / 1e6, seconds))
    return results
