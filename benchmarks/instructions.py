"""Instructions per run of the kernel scenarios, counted by callgrind.

Wall-clock figures on a shared machine move with its load; the number of instructions a
run executes does not. Each scenario runs under ``valgrind --tool=callgrind`` twice, with
N runs and with none (both after the same 20 warm-up runs); the difference over N is what
one run costs, the interpreter's start and the imports left out. ``PYTHONHASHSEED=0``
keeps set and dict layouts the same from one count to the next (about 1 % remains
between two builds of the code, from memory layout).

    python -m benchmarks.instructions               # every scenario (a few minutes)
    python -m benchmarks.instructions plain tool    # some of them
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Awaitable, Callable
from typing import Any

RUNS = {"plain": 200, "tool": 200, "five": 200, "middleware": 200, "concurrent": 500, "stream": 30}
WARM_UP = 20


def _runner(scenario: str) -> Callable[[int], Awaitable[None]]:
    """``scenario``'s agent, as a function running it ``n`` times."""
    from agentcore import Agent
    from agentcore.middleware import Middleware
    from benchmarks.fakes import FakeModel, calls_response, stream_updates, text_response
    from benchmarks.scenarios import MapChat, NoopAgent, NoopChat, NoopFunction, lookup_tool

    tool_round = [calls_response(1), text_response()]
    noop: list[Middleware] = [NoopAgent(), NoopChat(), NoopFunction()]
    agents: dict[str, Callable[[], Agent[Any]]] = {
        "plain": lambda: Agent(FakeModel([text_response()]), "Be brief."),
        "tool": lambda: Agent(FakeModel(tool_round), "Be brief.", tools=[lookup_tool]),
        "five": lambda: Agent(
            FakeModel([calls_response(5), text_response()]), "Be brief.", tools=[lookup_tool]
        ),
        "middleware": lambda: Agent(
            FakeModel(tool_round), "Be brief.", tools=[lookup_tool], middleware=noop * 3
        ),
        "concurrent": lambda: Agent(
            FakeModel(tool_round, suspend=True), "Be brief.", tools=[lookup_tool]
        ),
        "stream": lambda: Agent(
            FakeModel([text_response()], stream_updates(200)),
            middleware=[MapChat(), MapChat(), MapChat()],
        ),
    }
    agent = agents[scenario]()

    async def run(n: int) -> None:
        if scenario == "concurrent":  # n runs in flight at once, distinct sessions

            async def one(i: int) -> None:
                await agent.run(f"weather {i}?", session=agent.create_session())

            await asyncio.gather(*(one(i) for i in range(n)))
            return
        for _ in range(n):
            if scenario == "stream":
                stream = agent.run("hi", stream=True)
                async for _update in stream:
                    pass
                await stream.get_final_response()
            else:
                await agent.run("hi")

    return run


def _child(scenario: str, runs: int) -> None:
    run = _runner(scenario)

    async def main() -> None:
        await run(WARM_UP)
        await run(runs)

    asyncio.run(main())


def _count(scenario: str, runs: int) -> int:
    with tempfile.TemporaryDirectory() as out:
        done = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={os.path.join(out, 'callgrind.out')}",
                sys.executable,
                "-m",
                "benchmarks.instructions",
                "--child",
                scenario,
                str(runs),
            ],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": "0"},
        )
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise RuntimeError(f"callgrind printed no count:\n{done.stderr}")
    return int(found.group(1))


def main(argv: list[str]) -> None:
    if argv[:1] == ["--child"]:
        _child(argv[1], int(argv[2]))
        return
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed: apt-get install valgrind")
    unknown = [name for name in argv if name not in RUNS]
    if unknown:
        raise SystemExit(f"unknown scenario {unknown[0]!r}; the scenarios: {', '.join(RUNS)}")
    for scenario in argv or list(RUNS):
        runs = RUNS[scenario]
        per_run = (_count(scenario, runs) - _count(scenario, 0)) / runs
        print(f"{scenario:12} {per_run:12,.0f} instructions per run", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
