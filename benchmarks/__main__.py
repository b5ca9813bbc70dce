"""``python -m benchmarks``: print the overhead tables (``--quick`` for a smoke pass,
``--adapters`` for the adapters against the raw SDKs alone, ``workflows`` for the
workflow scenarios alone; ``--compare-maf`` adds Microsoft Agent Framework's workflow
runner beside them when ``agent-framework-core`` is installed)."""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform

from benchmarks.adapters import adapter_overhead
from benchmarks.guard_scan import guard_scans
from benchmarks.scenarios import (
    SET_AGAINST_US,
    Result,
    chat_stream_run,
    concurrent_runs,
    import_time,
    plain_run,
    stream_run,
    tool_rounds,
    workflows_build_time,
    workflows_import_time,
)
from benchmarks.workflows import (
    agent_executor_run,
    chain_run,
    checkpoint_codec,
    concurrent_seq3,
    fan10k_run,
    fan100_run,
    seq3_memory_store,
    seq3_run,
    seq3_sqlite_run,
    seq3_stream,
    seq3_superstep,
)
from benchmarks.workflows_maf import compare as maf_compare
from benchmarks.workflows_maf import maf_available
from benchmarks.workflows_maf import report as maf_report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="few iterations: checks it runs")
    parser.add_argument(
        "--adapters", action="store_true", help="only the adapters against the raw SDKs"
    )
    parser.add_argument("only", nargs="?", choices=["workflows"], help="run only these scenarios")
    parser.add_argument(
        "--compare-maf",
        action="store_true",
        help="the workflow scenarios beside Microsoft Agent Framework (if installed)",
    )
    args = parser.parse_args()
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    )
    if args.only == "workflows":
        _workflow_table(args.quick, compare_maf=args.compare_maf)
        return
    adapters = adapter_overhead(*((3, 1) if args.quick else (60, 5)))
    if not args.adapters:
        _kernel_table(args.quick)
        _guard_table(args.quick)
    _adapter_table(adapters)


def _adapter_table(results: list[Result]) -> None:
    width = max(len(r.name) for r in results)
    print()
    print("client CPU time per request (budget: the raw SDK's + 10 %)")
    print(
        f"| {'adapter over real HTTP':<{width}} | {'adapter':>11} | {'raw SDK':>11} | ratio "
        "| budget | note"
    )
    print(f"|{'-' * (width + 2)}|{'-' * 13}|{'-' * 13}|-------|--------|------")
    for r in results:
        status = "met" if r.budget_us is None or r.agentcore_us <= r.budget_us else "over"
        print(
            f"| {r.name:<{width}} | {r.agentcore_us:>8.1f} µs | {r.handwritten_us:>8.1f} µs "
            f"| {r.ratio:>5.2f} | {status:>6} | {r.note}"
        )


def _kernel_table(quick: bool) -> None:
    iterations, repeats, runs = (200, 1, 100) if quick else (5000, 7, 1000)
    results: list[Result] = [
        plain_run(iterations, repeats),
        tool_rounds(
            "one tool round",
            1,
            25.0,
            iterations,
            repeats,
            set_against_us=SET_AGAINST_US["tool round"],
        ),
        tool_rounds(
            "five parallel tools",
            5,
            95.0,
            iterations,
            repeats,
            set_against_us=SET_AGAINST_US["five parallel"],
        ),
        tool_rounds(
            "one tool round, 3 no-op middleware per scope",
            1,
            36.0,
            iterations,
            repeats,
            middleware=True,
            set_against_us=SET_AGAINST_US["middleware"],
        ),
        stream_run(iterations, repeats),
        chat_stream_run(iterations, repeats),
        concurrent_runs(runs, repeats),
        import_time(3 if quick else 7),
        *_workflow_results(quick),
        *_workflow_extra_rows(quick),
    ]
    width = max(len(r.name) for r in results)
    print(
        "budget: a kernel row's is a multiple of the hand-written loop measured in the same "
        "run (DESIGN §15;\nits µs figure when set in brackets), a workflow row's is absolute "
        "(design/workflows.md §10)"
    )
    print(
        f"| {'scenario':<{width}} | {'agentcore':>11} | {'by hand':>10} | {'ratio':>6} "
        f"| {'budget':>17} | status | note"
    )
    print(f"|{'-' * (width + 2)}|{'-' * 13}|{'-' * 12}|{'-' * 8}|{'-' * 19}|--------|------")
    for r in results:
        print(
            f"| {r.name:<{width}} | {r.agentcore_us:>8.1f} µs | {r.handwritten_us:>7.1f} µs "
            f"| {r.ratio:>5.1f}x | {_budget(r):>17} | {r.status:>6} | {r.note}"
        )
    if importlib.util.find_spec("dbos") is not None:
        from benchmarks import durable

        print()
        print(durable.report(durable.measure(durable.iterations(quick=quick))))


def _budget(r: Result) -> str:
    if r.budget_us is None:
        return "-"
    if r.budget_ratio is not None:
        return f"{r.budget_ratio:.2f}x ({r.budget_us:.0f} µs)"
    return f"{r.budget_us:.0f} µs"


def _workflow_table(quick: bool, *, compare_maf: bool) -> None:
    results = _workflow_results(quick) + _workflow_extra_rows(quick)
    for r in results:
        print(
            f"| {r.name} | {r.agentcore_us:.1f} µs | by hand {r.handwritten_us:.1f} µs "
            f"| budget {_budget(r)} | {r.status} | {r.note}"
        )
    if not compare_maf:
        return
    if not maf_available():
        print(
            "\nMicrosoft Agent Framework is not installed: the side-by-side is skipped "
            "(pip install agent-framework-core==1.23.0, a benchmark-only dependency)"
        )
        return
    print()
    print(maf_report(maf_compare(quick=quick)))


def _workflow_results(quick: bool) -> list[Result]:
    """The workflow rows of design §10 and §9.11 (fan-10,000 and chain-1,000 only in
    the full pass)."""
    iterations, repeats = (200, 1) if quick else (5000, 7)
    results = [
        seq3_run(iterations, repeats),
        seq3_superstep(iterations, repeats),
        seq3_stream(iterations, repeats),
        seq3_memory_store(iterations, repeats),
        fan100_run(iterations // 20, repeats),
        fan100_run(iterations // 20, repeats, backend="trio"),
        concurrent_seq3(100 if quick else 1000, repeats),
        chain_run(100, repeats),
        workflows_import_time(3 if quick else 7),
        workflows_build_time(3 if quick else 7),
    ]
    if not quick:
        results.append(chain_run(1000, repeats))
        results.append(fan10k_run())
        results.append(fan10k_run(backend="trio"))
    return results


def _workflow_extra_rows(quick: bool) -> list[Result]:
    """Checkpoint codec, a SQLite-backed run and an agent executor (each runner taking
    turns with its twin, repeat by repeat)."""
    iterations, repeats = (50, 1) if quick else (2000, 7)
    return [
        checkpoint_codec(iterations, repeats),
        seq3_sqlite_run(max(iterations // 4, 10), repeats),
        agent_executor_run(iterations, repeats),
    ]


def _guard_table(quick: bool) -> None:
    """Guard throughput: a 2 MB tool result (200 kB in the quick pass)."""
    scans = guard_scans(200_000 if quick else 2_000_000, 1 if quick else 3)
    print()
    print("| guard | text | MB | MB/s |")
    print("|-------|------|----|------|")
    for s in scans:
        print(f"| {s.guard} | {s.kind} | {s.megabytes:.1f} | {s.mb_per_s:.2f} |")


if __name__ == "__main__":
    main()
