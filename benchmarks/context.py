"""Compaction's budgets (design/context-engineering.md §9): ``python -m benchmarks.context``.

Each row is the best of several repeats of CPU time (``time.process_time``), so other
work on a shared machine does not count; ``--quick`` is a smoke pass.

- planning: grouping a 1,000-message transcript and planning it with the default
  strategy with a summarizer (``Tiered(ClearToolResults(), Summarize(), DropOldest())``);
- the ``Compaction`` middleware under its trigger, on a 1,000-message transcript: the
  first model call of a run (every message estimated) and each later call (one new
  message);
- ``compacted_view`` of a 1,000-message log, without records and with five;
- SQLite ``load_view`` of a 10,000-message log compacted to a 500-message view, against
  ``load()`` of a 500-message log.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentcore_contrib.compaction import Compaction

from agentcore import (
    ChatContext,
    CompactionContent,
    ExperimentalWarning,
    FunctionCallContent,
    FunctionResultContent,
    Message,
    RunContext,
    SqliteHistoryStore,
)
from agentcore.compaction import (
    ClearToolResults,
    DropOldest,
    Summarize,
    Tiered,
    compacted_view,
    group_messages,
)
from agentcore.testing import ScriptedChatClient
from agentcore.tokens import estimate_tokens

__all__ = ["BUDGETS_US", "measure", "report"]

warnings.filterwarnings("ignore", category=ExperimentalWarning)

BUDGETS_US: dict[str, float] = {
    "plan 1,000 messages (group + Tiered)": 2_000.0,
    "Compaction not triggered, 1,000 messages: first call": 600.0,
    "Compaction not triggered, 1,000 messages: later call": 50.0,
    "compacted_view, 1,000 messages, no record": 40.0,
    "compacted_view, 1,000 messages, 5 records": 300.0,
}
"""The budget of each row, in µs (the SQLite row's is a ratio: 1.3x)."""


def transcript(size: int) -> list[Message]:
    """``size`` messages of finished turns: a question, a step, its result, an answer."""
    out: list[Message] = [Message("system", "be helpful")]
    number = 0
    while len(out) < size - 1:
        call_id = f"c{number}"
        out += [
            Message("user", f"question {number}: " + "words " * 20),
            Message("assistant", [FunctionCallContent(call_id, "search", '{"q": "x"}')]),
            Message("tool", [FunctionResultContent(call_id, result="result " * 60)]),
            Message("assistant", f"answer {number}: " + "more words " * 15),
        ]
        number += 1
    out = out[: size - 1]
    while out[-1].role != "assistant" or out[-1].contents[0].type == "function_call":
        out.pop()  # end on an answer, so the question below starts a turn
    out.append(Message("user", "and now?"))
    return out


def best_us(fn: Callable[[], object], repeats: int, inner: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        for _ in range(inner):
            fn()
        best = min(best, (time.process_time() - start) / inner)
    return best * 1e6


def _planning(messages: list[Message], repeats: int, inner: int) -> float:
    tokens = {id(m): estimate_tokens([m]) for m in messages}
    strategy = Tiered(ClearToolResults(), Summarize(), DropOldest())
    limit = sum(tokens.values()) // 2

    def plan() -> object:
        groups = group_messages(messages, tokens=lambda m: tokens[id(m)])
        return strategy.plan(groups, limit=limit)

    return best_us(plan, repeats, inner)


def _middleware(messages: list[Message], repeats: int, inner: int) -> tuple[float, float]:
    """CPU µs of ``Compaction.process`` under its trigger, measured inside one event loop
    (the contexts are built before the clock starts)."""
    compaction = Compaction(context_window=1_000_000)
    client = ScriptedChatClient([])
    grown = [*messages, Message("assistant", "one more")]

    async def call_next() -> None:
        return None

    def context(run: RunContext, sent: list[Message]) -> ChatContext:
        return ChatContext(client, list(sent), {}, False, run, transcript=sent)

    async def measure() -> tuple[float, float]:
        first_best = later_best = float("inf")
        for _ in range(repeats):
            fresh = [context(RunContext(), messages) for _ in range(inner)]
            start = time.process_time()
            for item in fresh:
                await compaction.process(item, call_next)
            first_best = min(first_best, (time.process_time() - start) / inner)
            run = RunContext()
            await compaction.process(context(run, messages), call_next)
            later = [context(run, grown) for _ in range(inner)]
            start = time.process_time()
            for item in later:
                await compaction.process(item, call_next)
            later_best = min(later_best, (time.process_time() - start) / inner)
        return first_best * 1e6, later_best * 1e6

    return asyncio.run(measure())


def _reference(repeats: int, inner: int) -> float:
    """A fixed piece of pure Python (``sum(range(1000))``, about 10 µs on a quiet
    laptop core): how fast this machine is while the rows above were measured."""
    return best_us(lambda: sum(range(1_000)), repeats, inner * 10)


def _views(messages: list[Message], repeats: int, inner: int) -> tuple[float, float]:
    plain = best_us(lambda: compacted_view(messages), repeats, inner)
    log = list(messages)
    for k in range(5):
        start = 1 + 150 * k
        log.append(
            Message("user", (CompactionContent(start, start + 100, len(log), f"summary {k}"),))
        )
    with_records = best_us(lambda: compacted_view(log), repeats, inner)
    return plain, with_records


def _sqlite(repeats: int) -> tuple[float, float]:
    async def main() -> tuple[float, float]:
        with tempfile.TemporaryDirectory() as folder:
            store = SqliteHistoryStore(Path(folder) / "h.db")
            big = transcript(10_000)
            await store.append("big", big)
            # one record: the system message, its summary and the last 498 messages remain
            end, at = len(big) - 498, len(big)
            await store.append(
                "big", [Message("user", (CompactionContent(1, end, at, "all of it"),))]
            )
            await store.append("small", transcript(500))
            assert len((await store.load_view("big")).messages) == 500
            view_best = load_best = float("inf")
            for _ in range(repeats):
                start = time.process_time()
                await store.load_view("big")
                view_best = min(view_best, time.process_time() - start)
                start = time.process_time()
                await store.load("small")
                load_best = min(load_best, time.process_time() - start)
            store.close()
            return view_best * 1e6, load_best * 1e6

    return asyncio.run(main())


def measure(*, quick: bool = False) -> list[tuple[str, float, str]]:
    """Each row: its name, its figure in µs, and its budget as text."""
    repeats, inner = (2, 5) if quick else (7, 50)
    messages = transcript(1_000)
    rows: list[tuple[str, float, str]] = []
    name = "plan 1,000 messages (group + Tiered)"
    rows.append((name, _planning(messages, repeats, inner), f"{BUDGETS_US[name]:.0f} µs"))
    first, later = _middleware(messages, repeats, inner)
    for name, figure in (
        ("Compaction not triggered, 1,000 messages: first call", first),
        ("Compaction not triggered, 1,000 messages: later call", later),
    ):
        rows.append((name, figure, f"{BUDGETS_US[name]:.0f} µs"))
    plain, with_records = _views(messages, repeats, inner * 4)
    for name, figure in (
        ("compacted_view, 1,000 messages, no record", plain),
        ("compacted_view, 1,000 messages, 5 records", with_records),
    ):
        rows.append((name, figure, f"{BUDGETS_US[name]:.0f} µs"))
    view_us, load_us = _sqlite(repeats)
    rows.append(("SQLite load_view (10,000 log, 500 view)", view_us, "1.3x load()"))
    rows.append(("SQLite load() of a 500-message log", load_us, "-"))
    rows.append(("reference: sum(range(1000))", _reference(repeats, inner), "-"))
    return rows


def report(rows: list[tuple[str, float, str]]) -> str:
    width = max(len(name) for name, _, _ in rows)
    lines = [
        f"| {'compaction':<{width}} | {'CPU':>12} | budget |",
        f"|{'-' * (width + 2)}|---:|---:|",
    ]
    lines += [
        f"| {name:<{width}} | {figure:>9.1f} µs | {budget} |" for name, figure, budget in rows
    ]
    return "\n".join(lines)


def _main(argv: list[str] | None = None) -> Any:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="few iterations: checks it runs")
    args = parser.parse_args(argv)
    print(report(measure(quick=args.quick)))


if __name__ == "__main__":
    _main()
