"""A streamed HTTP body read as server-sent events, closed deterministically, and the
checks that keep a malformed answer from escaping as anything but a typed error.

The adapters read SSE here rather than through the SDK's ``AsyncStream``: the
SDK leaves its inner async generators suspended when a stream ends at
``[DONE]`` or is left early, which trio reports as a ``ResourceWarning`` each
time. Here every generator ends deterministically, and leaving a stream early
closes the connection at once, on asyncio and trio alike.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any, TypeVar

import anyio
import httpx2
import pydantic

from agentcore import sse
from agentcore.adapters import DEFAULT_MAX_EVENT_SIZE
from agentcore.errors import MalformedResponseError, TransientError
from agentcore_openai._errors import PROVIDER

__all__ = [
    "READ_ERRORS",
    "drain",
    "is_json",
    "json_object",
    "malformed",
    "read_body",
    "read_model",
    "server_sent_events",
]

READ_ERRORS = (KeyError, AttributeError, TypeError, ValueError, IndexError, LookupError)
"""What reading a body of the wrong shape raises (pydantic's errors are ``ValueError``\\ s)."""


ModelT = TypeVar("ModelT", bound=pydantic.BaseModel)


def read_model(cls: type[ModelT], payload: dict[str, Any]) -> ModelT:
    """``payload`` as the SDK's ``cls``: validated when it fits the type (pydantic-core
    does that many times faster than the SDK's lenient construction), built leniently
    when it does not, so that fields a server leaves out stay unset instead of failing.
    What the reader then finds of the wrong type is reported as malformed."""
    try:
        return cls.model_validate(payload)
    except pydantic.ValidationError:
        return cls.model_construct(**payload)


def malformed(what: str, problem: object) -> MalformedResponseError:
    """The error for a body or event the adapter cannot read: what it was, what was wrong."""
    return MalformedResponseError(f"OpenAI sent a malformed {what}: {problem}", provider=PROVIDER)


def _excerpt(text: str) -> str:
    return repr(text if len(text) <= 200 else text[:200] + "...")


def json_object(text: str | bytes, what: str) -> dict[str, Any]:
    """``text`` parsed as a JSON object, or :class:`MalformedResponseError`."""
    try:
        value = json.loads(text)
    except ValueError as exc:
        shown = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
        raise malformed(what, f"not JSON ({exc}): {_excerpt(shown)}") from exc
    if not isinstance(value, dict):
        raise malformed(what, f"a JSON {type(value).__name__} where an object belongs")
    return value  # pyright: ignore[reportUnknownVariableType]  # JSON from the wire


def is_json(response: httpx2.Response) -> bool:
    """Whether a streamed request was answered with a whole JSON body instead of events."""
    return "json" in response.headers.get("content-type", "")


async def server_sent_events(
    response: httpx2.Response, *, max_event_size: int = DEFAULT_MAX_EVENT_SIZE
) -> AsyncGenerator[tuple[str | None, str], None]:
    """``(event, data)`` for each event of ``response``'s body.

    Transport failures while reading become :class:`~agentcore.errors.TransientError`
    (a read that waited longer than the read timeout among them); an event larger
    than ``max_event_size`` bytes a :class:`~agentcore.errors.MalformedResponseError`.
    Closing the generator before the body ended closes the connection.
    """
    body = response.aiter_bytes()
    finished = False
    try:
        async for event in sse.server_sent_events(body, max_event_size=max_event_size):
            yield event.event, event.data
        finished = True
    except MalformedResponseError as exc:
        raise malformed("stream", exc.message) from exc
    except httpx2.TimeoutException as exc:
        raise TransientError(
            "the OpenAI stream timed out: no bytes arrived within the read timeout",
            provider=PROVIDER,
        ) from exc
    except httpx2.TransportError as exc:
        raise TransientError(f"the OpenAI stream broke off: {exc!r}", provider=PROVIDER) from exc
    finally:
        if not finished:
            await sse.close_body(response.aclose, body)


async def read_body(response: httpx2.Response, what: str) -> dict[str, Any]:
    """The whole JSON body of a streamed request's ``response``, typed errors for the rest."""
    try:
        raw = await response.aread()
    except httpx2.TimeoutException as exc:
        raise TransientError(
            f"the OpenAI {what} timed out: no bytes arrived within the read timeout",
            provider=PROVIDER,
        ) from exc
    except httpx2.TransportError as exc:
        raise TransientError(f"the OpenAI {what} broke off: {exc!r}", provider=PROVIDER) from exc
    return json_object(raw, what)


_DRAIN_SECONDS = 1.0


async def drain(events: AsyncIterator[object]) -> None:
    """Read what is left of a finished stream (so the connection can be reused).

    Gives up after a second, which closes the connection instead.
    """
    with anyio.move_on_after(_DRAIN_SECONDS):
        async for _ in events:
            pass
