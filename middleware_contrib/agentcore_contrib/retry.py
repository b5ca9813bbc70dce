"""Retry: call the model again when it fails with an error the taxonomy calls retryable.

Only :class:`~agentcore.errors.ChatClientError` with ``retryable=True`` (rate
limits, timeouts, 5xx, connection failures) is retried; anything else propagates
at once. In a streaming run a retry is possible only until the first update has
reached the caller: deltas already delivered are never replayed.
"""

from __future__ import annotations

import math
import random as _random
import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Any

import anyio

from agentcore import ChatContext, ChatResponse, ChatResponseUpdate, ErrorContent, ResponseStream
from agentcore.errors import ChatClientError, stream_error
from agentcore.middleware import CallNext

__all__ = ["Retry", "restart_before_first_update"]

Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[Any]]
ChatStream = ResponseStream[ChatResponseUpdate, ChatResponse[Any]]
Restart = Callable[[ChatClientError], Awaitable[ChatStream | ChatResponse[Any]]]


class _Restarting:
    """The source of a stream that may start over while nothing was delivered."""

    def __init__(self, stream: ChatStream, restart: Restart) -> None:
        self.stream = stream
        self._restart = restart

    async def updates(self) -> AsyncGenerator[ChatResponseUpdate, None]:
        while True:
            updates = self.stream.__aiter__()
            try:
                first = await anext(updates)
                reported = _reported_error(first)
                if reported is not None:
                    raise reported  # an error event before anything was delivered
            except StopAsyncIteration:
                return
            except ChatClientError as error:
                await updates.aclose()
                replacement = await self._restart(error)
                self.stream = (
                    replacement
                    if isinstance(replacement, ResponseStream)
                    else ResponseStream.from_response(replacement)
                )
                continue
            try:
                yield first
                async for update in updates:
                    yield update
            finally:
                await updates.aclose()
            return

    async def final(self) -> ChatResponse[Any]:
        # Read unchanged to the end: the final value of the stream that answered.
        return await self.stream.get_final_response()


def _reported_error(update: ChatResponseUpdate) -> ChatClientError | None:
    """The error an update reports (a service's in-stream error event), or ``None``.

    Adapters put the :class:`~agentcore.ErrorContent` first in that update, with
    ``finish_reason="error"``; a replayed response may carry the two apart.
    """
    contents = update.contents
    if update.finish_reason != "error" and not (contents and isinstance(contents[0], ErrorContent)):
        return None
    found = next((c for c in contents if isinstance(c, ErrorContent)), None)
    if found is None:
        return ChatClientError("the model call ended with finish_reason 'error'")
    return stream_error(found.message, code=found.code)


def restart_before_first_update(stream: ChatStream, restart: Restart) -> ChatStream:
    """A stream relaying ``stream`` that may start over while nothing was delivered.

    When the stream fails with a :class:`~agentcore.errors.ChatClientError` before
    its first update, ``await restart(error)`` gives the stream (or finished
    response) to relay instead, or raises to give up. A failure after the first
    update propagates unchanged. The final value is that of the stream that
    answered when the consumer read it unchanged, else the fold of what it saw.
    """
    source = _Restarting(stream, restart)
    return ResponseStream(source.updates(), finalizer=ChatResponse.from_updates, final=source.final)


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and not math.isnan(value)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _positive(name: str, value: float, *, allow_zero: bool = False) -> float:
    if not _is_number(value):
        raise ValueError(f"{name} must be a number of seconds, got {value!r}")
    if value < 0 or (value == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be {bound}, got {value!r}")
    return float(value)


class Retry:
    """Chat middleware that retries retryable model-call failures with backoff.

    Before attempt ``n + 1`` it waits ``random() * min(max_delay, initial_delay *
    multiplier ** (n - 1))`` seconds (exponential backoff with full jitter), and
    at least the error's ``retry_after``. It gives up after ``max_attempts``
    attempts, or when the next wait would end past ``deadline`` seconds from the
    first attempt; the last error then propagates. ``random``, ``sleep`` and
    ``clock`` are injectable for tests. Each attempt sends the messages and
    options as they were when this middleware was reached.
    ``context.metadata["retry_attempts"]`` records the attempts made (in a
    streaming run it is final only once the stream has been read).
    """

    def __init__(
        self,
        *,
        max_attempts: int = 3,
        initial_delay: float = 0.5,
        max_delay: float = 30.0,
        multiplier: float = 2.0,
        deadline: float | None = None,
        random: Callable[[], float] = _random.random,
        sleep: Sleep = anyio.sleep,
        clock: Clock = time.monotonic,
    ) -> None:
        if not _is_int(max_attempts) or max_attempts < 1:
            raise ValueError(f"max_attempts must be an int >= 1, got {max_attempts!r}")
        self.max_attempts = max_attempts
        self.initial_delay: float = _positive("initial_delay", initial_delay, allow_zero=True)
        self.max_delay: float = _positive("max_delay", max_delay, allow_zero=True)
        if not _is_number(multiplier) or multiplier < 1:
            raise ValueError(f"multiplier must be >= 1, got {multiplier!r}")
        self.multiplier: float = float(multiplier)
        self.deadline: float | None = None if deadline is None else _positive("deadline", deadline)
        for name, value in (("random", random), ("sleep", sleep), ("clock", clock)):
            if not callable(value):
                raise TypeError(f"{name} must be callable, got {value!r}")
        self._random = random
        self._sleep = sleep
        self._clock = clock

    def delay(self, attempt: int, error: ChatClientError) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (counting from 1)."""
        ceiling = min(self.max_delay, self.initial_delay * self.multiplier ** (attempt - 1))
        wait = self._random() * ceiling
        if error.retry_after is not None:
            wait = max(wait, error.retry_after)
        return wait

    async def process(self, context: ChatContext, call_next: CallNext) -> None:
        """Call inward; on a retryable failure wait and call again."""
        attempts = _Attempts(self, context, call_next)
        await attempts.first()
        result = context.result
        if context.stream and isinstance(result, ResponseStream):
            context.result = restart_before_first_update(result, attempts.restart)


class _Attempts:
    """The attempts of one model call: the budget and what each attempt sends."""

    def __init__(self, retry: Retry, context: ChatContext, call_next: CallNext) -> None:
        self._retry = retry
        self._context = context
        self._call_next = call_next
        self._messages = list(context.messages)
        self._options = dict(context.options)
        self._started = retry._clock()
        self.count = 0

    async def first(self) -> None:
        await self._attempt()

    async def restart(self, error: ChatClientError) -> ChatStream | ChatResponse[Any]:
        await self._wait_or_raise(error)
        await self._attempt()
        result = self._context.result
        if result is None:
            return ChatResponse()
        return result

    async def _attempt(self) -> None:
        context = self._context
        while True:
            if self.count:
                context.messages = list(self._messages)
                context.options = dict(self._options)
                context.result = None
            self.count += 1
            context.metadata["retry_attempts"] = self.count
            try:
                await self._call_next()
            except ChatClientError as error:
                await self._wait_or_raise(error)
            else:
                return

    async def _wait_or_raise(self, error: ChatClientError) -> None:
        retry = self._retry
        if not error.retryable or self.count >= retry.max_attempts:
            raise error
        wait = retry.delay(self.count, error)
        if retry.deadline is not None:
            elapsed = retry._clock() - self._started
            if elapsed + wait > retry.deadline:
                raise error
        await retry._sleep(wait)
