"""``Agent.run_sync``: one run on a fresh event loop, for scripts and notebooks."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

import anyio

__all__ = ["run_blocking"]

T = TypeVar("T")


def run_blocking(start: Callable[[], Awaitable[T]], *, stream: object = False) -> T:
    """Await ``start()`` on a new asyncio event loop and return its result.

    Refuses a streaming run and a call made where an event loop is already running
    (a notebook cell, an async function), where it would block that loop.
    """
    if stream is not False:
        raise TypeError(
            "agent.run_sync() does not stream: it returns the finished response. To "
            "stream, use `async for update in agent.run(..., stream=True)` in async code"
        )
    try:
        anyio.get_current_task()
    except RuntimeError:
        pass  # no event loop running here: the usual case for a script
    else:
        raise RuntimeError(
            "agent.run_sync() cannot be called while an event loop is running (in an "
            "async function, or a notebook cell, which runs in one): it would block that "
            "loop. Use `await agent.run(...)` instead"
        )

    async def main() -> T:
        return await start()

    return anyio.run(main, backend="asyncio")
