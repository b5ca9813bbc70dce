"""The streaming scenarios run a given number of times, for counting instructions.

Wall-clock figures move with the machine's load; instruction counts do not. Count a
run of N streams and a run of none, and take the difference per stream::

    for n in 0 20; do
      PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=/dev/null \\
        python -m benchmarks.stream_instructions agent $n 2>&1 | grep Collected
    done

``agent`` is the 200-chunk agent stream through 3 stream-mapping chat middleware (the
scenario of ``stream_run``), ``loop`` the same stream from a ``ToolLoop``
(``chat_stream_run``), ``hand`` the hand-written loop both are compared with. One
stream runs first in both counts, so what is built on first use is not counted.
``--chunks`` changes the number of chunks (``--chunks 0`` leaves what a stream costs
besides its chunks), ``--maps`` the number of stream-mapping chat middleware (``--maps 0``
leaves what the agent or the loop costs without them).
"""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from agentcore import Agent, Message, ToolLoop
from benchmarks.fakes import FakeModel, stream_updates, text_response
from benchmarks.scenarios import MapChat, handwritten_stream


def _scenario(kind: str, chunks: int, maps: int) -> Any:
    model = FakeModel([text_response()], stream_updates(chunks))
    agent = Agent(model, middleware=[MapChat() for _ in range(maps)])
    loop = ToolLoop(model, middleware=[MapChat() for _ in range(maps)])
    messages = [Message("user", "go")]

    async def once() -> None:
        if kind == "hand":
            await handwritten_stream(model)
            return
        if kind == "agent":
            stream: Any = agent.run("go", stream=True)
        else:
            stream = loop.get_response(messages, stream=True)
        parts = [update.text async for update in stream]
        final = await stream.get_final_response()
        assert final.text == "".join(parts)

    return once


def main() -> None:
    parser = argparse.ArgumentParser(description="Run a streaming scenario N times.")
    parser.add_argument("kind", choices=["agent", "loop", "hand"])
    parser.add_argument("runs", type=int)
    parser.add_argument("--chunks", type=int, default=200)
    parser.add_argument("--maps", type=int, default=3)
    args = parser.parse_args()
    once = _scenario(args.kind, args.chunks, args.maps)

    async def run_all() -> None:
        await once()  # first use: imports, caches
        for _ in range(args.runs):
            await once()

    asyncio.run(run_all())


if __name__ == "__main__":
    main()
