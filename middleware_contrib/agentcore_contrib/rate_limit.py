"""RateLimiter: token buckets for requests and tokens per minute, per tenant.

Before each model call the limiter takes one request and an estimate of the
call's tokens from the tenant's buckets, waiting (or raising) until the budget
is there. After the call it corrects the estimate with the real usage, and
learns the remaining budget from the provider's rate-limit headers when the
adapter reports them. One limiter may be shared by many agents and concurrent runs.
"""

from __future__ import annotations

import math
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Literal, cast

import anyio

from agentcore import ChatContext, ChatResponse, ResponseStream
from agentcore.errors import RateLimitedError
from agentcore.middleware import CallNext
from agentcore.tokens import TokenCounter, estimate_tokens

__all__ = ["RateLimiter"]

Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[Any]]
OnLimit = Literal["wait", "raise"]


class _Bucket:
    """A token bucket that refills continuously to ``capacity`` over one minute.

    ``level`` may go below zero when a call used more than was reserved; the
    next callers then wait until it has refilled.
    """

    __slots__ = ("capacity", "level", "rate", "updated")

    def __init__(self, per_minute: int, now: float) -> None:
        self.capacity = float(per_minute)
        self.level = float(per_minute)
        self.rate = per_minute / 60.0
        self.updated = now

    def refill(self, now: float) -> None:
        if now > self.updated:
            self.level = min(self.capacity, self.level + (now - self.updated) * self.rate)
            self.updated = now

    def wait_for(self, amount: float) -> float:
        """Seconds until ``amount`` (at most a full bucket) is available."""
        needed = min(amount, self.capacity)
        return max(0.0, (needed - self.level) / self.rate)


class _Tenant:
    __slots__ = ("lock", "requests", "tokens")

    def __init__(self, requests: _Bucket | None, tokens: _Bucket | None) -> None:
        self.requests = requests
        self.tokens = tokens
        self.lock = anyio.Lock()


def _number(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def _check_rate(name: str, value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be an int >= 1 or None, got {value!r}")
    return value


class RateLimiter:
    """Chat middleware that keeps model calls within requests/minute and tokens/minute.

    Each tenant (``tenant(context)``, default: one tenant for everything) has its
    own buckets, full at the start and refilling evenly over a minute. A call
    takes one request and its estimated tokens (``token_counter`` of its
    messages, default about four characters a token); after the call the
    estimate is corrected with the response's ``usage.total_tokens``, and
    ``additional_properties["rate_limit"]`` (``remaining_requests``,
    ``remaining_tokens``) lowers the buckets to what the provider says is left.
    When the budget is short, ``on_limit="wait"`` sleeps until it is there and
    ``"raise"`` raises :class:`~agentcore.errors.RateLimitedError` with
    ``retry_after``. ``clock`` and ``sleep`` are injectable; a test's ``sleep``
    must move its ``clock`` on. Waiting callers of one tenant are served in order.
    """

    def __init__(
        self,
        *,
        requests_per_minute: int | None = None,
        tokens_per_minute: int | None = None,
        tenant: Callable[[ChatContext], str] | None = None,
        on_limit: OnLimit = "wait",
        token_counter: TokenCounter | None = None,
        clock: Clock = time.monotonic,
        sleep: Sleep = anyio.sleep,
    ) -> None:
        self.requests_per_minute: int | None = _check_rate(
            "requests_per_minute", requests_per_minute
        )
        self.tokens_per_minute: int | None = _check_rate("tokens_per_minute", tokens_per_minute)
        if self.requests_per_minute is None and self.tokens_per_minute is None:
            raise ValueError("RateLimiter needs requests_per_minute, tokens_per_minute, or both")
        if on_limit not in ("wait", "raise"):
            raise ValueError(f"on_limit must be 'wait' or 'raise', got {on_limit!r}")
        for name, value in (
            ("tenant", tenant),
            ("token_counter", token_counter),
            ("clock", clock),
            ("sleep", sleep),
        ):
            if value is not None and not callable(value):
                raise TypeError(f"{name} must be callable, got {value!r}")
        self.on_limit: OnLimit = on_limit
        self._tenant = tenant
        self._count = token_counter or estimate_tokens
        self._clock = clock
        self._sleep = sleep
        self._tenants: dict[str, _Tenant] = {}

    def _state(self, tenant: str) -> _Tenant:
        state = self._tenants.get(tenant)
        if state is None:
            now = self._clock()
            rpm, tpm = self.requests_per_minute, self.tokens_per_minute
            state = _Tenant(
                None if rpm is None else _Bucket(rpm, now),
                None if tpm is None else _Bucket(tpm, now),
            )
            self._tenants[tenant] = state
        return state

    async def process(self, context: ChatContext, call_next: CallNext) -> None:
        """Take the call's budget, call inward, then settle with the real figures."""
        tenant = self._tenant(context) if self._tenant is not None else ""
        if not isinstance(tenant, str):
            raise TypeError(f"the tenant function must return a str, got {tenant!r}")
        state = self._state(tenant)
        estimate = self._count(context.messages) if state.tokens is not None else 0
        await self._acquire(tenant, state, estimate)
        await call_next()
        result = context.result
        if isinstance(result, ChatResponse):
            response: ChatResponse[Any] = result  # pyright: ignore[reportUnknownVariableType]  # isinstance on a generic
            self._settle(state, estimate, response)
        elif isinstance(result, ResponseStream):

            def settle(final: ChatResponse[Any]) -> None:
                self._settle(state, estimate, final)

            context.result = result.with_result_hook(settle)

    async def _acquire(self, tenant: str, state: _Tenant, estimate: int) -> None:
        async with state.lock:
            while True:
                now = self._clock()
                wait = 0.0
                for bucket, amount in ((state.requests, 1), (state.tokens, estimate)):
                    if bucket is not None:
                        bucket.refill(now)
                        wait = max(wait, bucket.wait_for(amount))
                if wait <= 0:
                    if state.requests is not None:
                        state.requests.level -= 1
                    if state.tokens is not None:
                        state.tokens.level -= estimate
                    return
                if self.on_limit == "raise":
                    who = f" for tenant {tenant!r}" if tenant else ""
                    raise RateLimitedError(
                        f"rate limit reached{who}; budget available again in {wait:.2f}s",
                        retry_after=wait,
                    )
                await self._sleep(wait)

    def _settle(self, state: _Tenant, estimate: int, response: ChatResponse[Any]) -> None:
        tokens = state.tokens
        usage = response.usage
        if tokens is not None and usage is not None:
            used = usage.total_tokens
            if used is None and (usage.input_tokens is not None or usage.output_tokens is not None):
                used = (usage.input_tokens or 0) + (usage.output_tokens or 0)
            if used is not None:
                tokens.level = min(tokens.capacity, tokens.level + estimate - used)
        extra = response.additional_properties or {}
        headers = extra.get("rate_limit")
        if isinstance(headers, Mapping):
            reported = cast("Mapping[str, object]", headers)
            now = self._clock()
            for bucket, key in (
                (state.requests, "remaining_requests"),
                (tokens, "remaining_tokens"),
            ):
                remaining = _number(reported.get(key))
                if bucket is not None and remaining is not None and not math.isnan(remaining):
                    bucket.refill(now)
                    bucket.level = min(bucket.level, remaining)
