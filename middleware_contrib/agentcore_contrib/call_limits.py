"""CallLimits: caps on the model calls, tool calls and tokens of one run.

Agent middleware alone cannot see the calls inside a run, so :class:`CallLimits`
is one object with three parts (agent, chat, function) sharing a per-run counter
in ``context.run.locals``. Spread ``limits.middleware`` into an agent's middleware
list. When a cap is reached the run ends cleanly with an assistant message naming
the cap, or, with ``on_limit="raise"``, with :class:`CallLimitExceededError`.
"""

from __future__ import annotations

from typing import Any, Literal

import attrs

from agentcore import (
    AgentContext,
    AgentResponse,
    ChatContext,
    ChatResponse,
    FunctionInvocationContext,
    Message,
    ResponseStream,
    RunContext,
)
from agentcore.errors import AgentcoreError
from agentcore.middleware import CallNext, MiddlewareTermination

__all__ = ["CallLimitExceededError", "CallLimits"]

OnLimit = Literal["stop", "raise"]
Limit = Literal["max_model_calls", "max_tool_calls", "max_tokens"]

_WHAT: dict[str, str] = {
    "max_model_calls": "model calls",
    "max_tool_calls": "tool calls",
    "max_tokens": "tokens",
}


class CallLimitExceededError(AgentcoreError):
    """A run reached a cap of :class:`CallLimits` configured with ``on_limit="raise"``.

    ``limit`` names the cap (``"max_model_calls"``, ``"max_tool_calls"`` or
    ``"max_tokens"``), ``maximum`` its value and ``used`` what the run had used.
    """

    def __init__(self, limit: str, maximum: int, used: int) -> None:
        super().__init__(_describe(limit, maximum, used))
        self.limit = limit
        self.maximum = maximum
        self.used = used


def _describe(limit: str, maximum: int, used: int) -> str:
    spent = f"; {used} used" if limit == "max_tokens" else ""
    return f"the run reached its limit of {maximum} {_WHAT[limit]} ({limit}{spent})"


def _cap(name: str, value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be an int >= 1 or None, got {value!r}")
    return value


def _is_name(value: object) -> bool:
    return isinstance(value, str) and bool(value)


def _tokens(response: ChatResponse[Any]) -> int:
    usage = response.usage
    if usage is None:
        return 0
    if usage.total_tokens is not None:
        return usage.total_tokens
    return (usage.input_tokens or 0) + (usage.output_tokens or 0)


class CallLimits:
    """Caps per run: ``max_model_calls``, ``max_tool_calls``, ``max_tokens`` (``None``: no cap).

    Use ``Agent(..., middleware=[*limits.middleware])`` (or ``limits.middleware[1:]``,
    the chat and function parts, for a bare ``ToolLoop``). Counting is per run and
    survives a pause for approval. Before each model call, a run that has made
    ``max_model_calls`` calls or used ``max_tokens`` tokens (as the responses'
    usage reports them) stops; a tool call past ``max_tool_calls`` is not run
    (the model is told so) and the next model call stops the run.

    Stopping (``on_limit="stop"``, the default) replaces that model call with an
    assistant message saying which cap was hit and ends the tool loop; the
    response's ``additional_properties["call_limit"]`` and the agent context's
    ``metadata["call_limits"]`` carry the figures. ``on_limit="raise"`` raises
    :class:`CallLimitExceededError` instead. Give each ``CallLimits`` of one agent
    its own ``name``: it keys the per-run counter.
    """

    def __init__(
        self,
        *,
        max_model_calls: int | None = None,
        max_tool_calls: int | None = None,
        max_tokens: int | None = None,
        on_limit: OnLimit = "stop",
        name: str = "call_limits",
    ) -> None:
        self.max_model_calls: int | None = _cap("max_model_calls", max_model_calls)
        self.max_tool_calls: int | None = _cap("max_tool_calls", max_tool_calls)
        self.max_tokens: int | None = _cap("max_tokens", max_tokens)
        if self.max_model_calls is None and self.max_tool_calls is None and self.max_tokens is None:
            raise ValueError(
                "CallLimits needs at least one of max_model_calls, max_tool_calls, max_tokens"
            )
        if on_limit not in ("stop", "raise"):
            raise ValueError(f"on_limit must be 'stop' or 'raise', got {on_limit!r}")
        if not _is_name(name):
            raise ValueError(f"name must be a non-empty str, got {name!r}")
        self.on_limit: OnLimit = on_limit
        self.name = name
        self._key = f"agentcore_contrib.call_limits.{name}"

    @property
    def middleware(self) -> tuple[_AgentLimits, _ChatLimits, _FunctionLimits]:
        """The agent, chat and function parts, for an agent's middleware list."""
        return (_AgentLimits(self), _ChatLimits(self), _FunctionLimits(self))

    def usage(self, run: RunContext) -> dict[str, Any]:
        """This run's counts: ``model_calls``, ``tool_calls``, ``tokens`` and ``hit``
        (``None``, or ``{"limit", "maximum", "used"}`` once a cap was reached)."""
        counts: dict[str, Any] | None = run.get(self._key)
        if counts is None:
            counts = {"model_calls": 0, "tool_calls": 0, "tokens": 0, "hit": None}
            run.set(self._key, counts)
        return counts

    def _record_hit(self, counts: dict[str, Any], limit: Limit, maximum: int, used: int) -> None:
        if counts["hit"] is None:
            counts["hit"] = {"limit": limit, "maximum": maximum, "used": used}

    def _check_before_model_call(self, counts: dict[str, Any]) -> None:
        if self.max_model_calls is not None and counts["model_calls"] >= self.max_model_calls:
            self._record_hit(counts, "max_model_calls", self.max_model_calls, counts["model_calls"])
        if self.max_tokens is not None and counts["tokens"] >= self.max_tokens:
            self._record_hit(counts, "max_tokens", self.max_tokens, counts["tokens"])

    def _error(self, hit: dict[str, Any]) -> CallLimitExceededError:
        return CallLimitExceededError(hit["limit"], hit["maximum"], hit["used"])


class _AgentLimits:
    """Agent part: reports the counts on the run's response (and raises late hits)."""

    def __init__(self, limits: CallLimits) -> None:
        self._limits = limits

    async def process(self, context: AgentContext, call_next: CallNext) -> None:
        self._limits.usage(context.run)
        await call_next()
        result = context.result
        if isinstance(result, AgentResponse):
            context.result = self._finish(context, result)  # pyright: ignore[reportUnknownArgumentType]  # isinstance on a generic
        elif isinstance(result, ResponseStream):

            def finish(response: AgentResponse[Any]) -> AgentResponse[Any]:
                return self._finish(context, response)

            context.result = result.with_result_hook(finish)

    def _finish(self, context: AgentContext, response: AgentResponse[Any]) -> AgentResponse[Any]:
        limits = self._limits
        counts = limits.usage(context.run)
        context.metadata["call_limits"] = dict(counts)
        hit = counts["hit"]
        if hit is None:
            return response
        if limits.on_limit == "raise":
            raise limits._error(hit)
        extra = {**(response.additional_properties or {}), "call_limit": dict(hit)}
        return attrs.evolve(response, additional_properties=extra)


class _ChatLimits:
    """Chat part: counts model calls and tokens; stops the run before a call over a cap."""

    def __init__(self, limits: CallLimits) -> None:
        self._limits = limits

    async def process(self, context: ChatContext, call_next: CallNext) -> None:
        limits = self._limits
        counts = limits.usage(context.run)
        limits._check_before_model_call(counts)
        hit = counts["hit"]
        if hit is not None:
            context.metadata["call_limit"] = dict(hit)
            if limits.on_limit == "raise":
                raise limits._error(hit)
            text = "Stopped: " + _describe(hit["limit"], hit["maximum"], hit["used"]) + "."
            stop = ChatResponse(
                messages=[Message("assistant", text)],
                finish_reason="stop",
                additional_properties={"call_limit": dict(hit)},
            )
            raise MiddlewareTermination(text, result=stop)
        counts["model_calls"] += 1
        await call_next()
        result = context.result
        if isinstance(result, ChatResponse):
            counts["tokens"] += _tokens(result)  # pyright: ignore[reportUnknownArgumentType]  # isinstance on a generic
        elif isinstance(result, ResponseStream):

            def count(final: ChatResponse[Any]) -> None:
                counts["tokens"] += _tokens(final)

            context.result = result.with_result_hook(count)


class _FunctionLimits:
    """Function part: counts tool calls; a call past the cap is not run."""

    def __init__(self, limits: CallLimits) -> None:
        self._limits = limits

    async def process(self, context: FunctionInvocationContext, call_next: CallNext) -> None:
        limits = self._limits
        counts = limits.usage(context.run)
        cap = limits.max_tool_calls
        if cap is not None and counts["tool_calls"] >= cap:
            limits._record_hit(counts, "max_tool_calls", cap, counts["tool_calls"])
        hit = counts["hit"]
        if hit is not None:
            context.metadata["call_limit"] = dict(hit)
            context.result = (
                f"Error: {context.function.name} was not run: "
                + _describe(hit["limit"], hit["maximum"], hit["used"])
                + "."
            )
            return
        counts["tool_calls"] += 1
        await call_next()
