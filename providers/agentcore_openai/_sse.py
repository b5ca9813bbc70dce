"""A streamed HTTP body read as server-sent events, closed deterministically.

The adapters read SSE here rather than through the SDK's ``AsyncStream``: the
SDK leaves its inner async generators suspended when a stream ends at
``[DONE]`` or is left early, which trio reports as a ``ResourceWarning`` each
time. Here every generator ends deterministically, and leaving a stream early
closes the connection at once, on asyncio and trio alike.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator

import anyio
import httpx2

from agentcore import sse
from agentcore.errors import TransientError
from agentcore_openai._errors import PROVIDER

__all__ = ["drain", "server_sent_events"]


async def server_sent_events(
    response: httpx2.Response,
) -> AsyncGenerator[tuple[str | None, str], None]:
    """``(event, data)`` for each event of ``response``'s body.

    Transport failures while reading become :class:`~agentcore.errors.TransientError`.
    Closing the generator before the body ended closes the connection.
    """
    body = response.aiter_bytes()
    finished = False
    try:
        async for event in sse.server_sent_events(body):
            yield event.event, event.data
        finished = True
    except httpx2.TimeoutException as exc:
        raise TransientError("the OpenAI stream timed out", provider=PROVIDER) from exc
    except httpx2.TransportError as exc:
        raise TransientError(f"the OpenAI stream broke off: {exc}", provider=PROVIDER) from exc
    finally:
        if not finished:
            await sse.close_body(response.aclose, body)


_DRAIN_SECONDS = 1.0


async def drain(events: AsyncIterator[object]) -> None:
    """Read what is left of a finished stream (so the connection can be reused).

    Gives up after a second, which closes the connection instead.
    """
    with anyio.move_on_after(_DRAIN_SECONDS):
        async for _ in events:
            pass
