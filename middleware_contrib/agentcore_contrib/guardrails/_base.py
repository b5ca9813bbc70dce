"""What every guard shares: its verdict, its two shapes, and the two ways it can stop a run."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, Protocol, TypeAlias, runtime_checkable

import attrs

from agentcore import Message
from agentcore.errors import AgentcoreError

__all__ = [
    "Guard",
    "GuardResult",
    "GuardrailError",
    "GuardrailViolation",
    "RequestGuard",
    "Stage",
    "TextGuard",
    "run_text_guards",
]

Action: TypeAlias = Literal["allow", "block", "redact"]
Stage: TypeAlias = Literal["input", "output", "tool_call"]


@attrs.frozen
class GuardResult:
    """A guard's verdict: ``allow``, ``block`` (with a reason) or ``redact`` (with the
    new text). Build one with :meth:`allow`, :meth:`block` or :meth:`redact`."""

    action: Action
    reason: str = ""
    text: str | None = None

    @classmethod
    def allow(cls) -> GuardResult:
        """Let the text through unchanged."""
        return _ALLOW

    @classmethod
    def block(cls, reason: str) -> GuardResult:
        """Stop the request or response; ``reason`` says why (it reaches logs and errors)."""
        return cls("block", reason)

    @classmethod
    def redact(cls, text: str, reason: str = "") -> GuardResult:
        """Let ``text`` through instead of the original."""
        return cls("redact", reason, text)


_ALLOW = GuardResult("allow")


@runtime_checkable
class TextGuard(Protocol):
    """Checks one piece of text (a message's text, a tool result, a model answer).

    ``incremental`` says whether the guard can judge a stream's text piece by piece
    given enough look-ahead (pattern guards can; a judge model cannot, so a streaming
    output guard that is not incremental holds the whole answer back).
    """

    @property
    def name(self) -> str: ...

    @property
    def incremental(self) -> bool: ...

    async def check(self, text: str) -> GuardResult: ...


@runtime_checkable
class RequestGuard(Protocol):
    """Checks a whole request before the model sees it (for example its size)."""

    @property
    def name(self) -> str: ...

    async def check_request(
        self, messages: Sequence[Message], *, client: object | None, options: Mapping[str, Any]
    ) -> GuardResult: ...


Guard: TypeAlias = TextGuard | RequestGuard


class GuardrailViolation(AgentcoreError):
    """A guard blocked a request, a response or a tool call (a policy decision)."""

    def __init__(self, guard: str, reason: str, *, stage: Stage) -> None:
        super().__init__(f"guardrail {guard!r} blocked the {stage}: {reason}")
        self.guard = guard
        self.reason = reason
        self.stage = stage


class GuardrailError(AgentcoreError):
    """A guard could not decide: its own machinery failed (a classifier raised, a judge's
    verdict could not be read). The request is stopped all the same (fail closed)."""

    def __init__(self, guard: str, message: str) -> None:
        super().__init__(f"guardrail {guard!r} failed: {message}")
        self.guard = guard


async def run_check(guard: TextGuard, text: str) -> GuardResult:
    """``guard.check(text)``, with any failure of the guard itself as a GuardrailError."""
    try:
        result = await guard.check(text)
    except (GuardrailError, GuardrailViolation):
        raise
    except Exception as exc:
        raise GuardrailError(guard.name, f"{type(exc).__name__}: {exc}") from exc
    if not isinstance(result, GuardResult):
        raise GuardrailError(guard.name, f"check() returned {result!r}, not a GuardResult")
    if result.action == "redact" and result.text is None:
        raise GuardrailError(guard.name, "a redact verdict came without the redacted text")
    return result


async def run_text_guards(guards: Sequence[TextGuard], text: str, stage: Stage) -> str:
    """Run ``guards`` in order on ``text``: the text after redactions, or a violation."""
    for guard in guards:
        result = await run_check(guard, text)
        if result.action == "block":
            raise GuardrailViolation(guard.name, result.reason or "blocked", stage=stage)
        if result.action == "redact" and result.text is not None:
            text = result.text
    return text


def check_guard(guard: object, *, output: bool) -> None:
    """Refuse something that is not a guard, naming what it lacks."""
    name = getattr(guard, "name", None)
    if not isinstance(name, str) or not name:
        raise TypeError(f"{guard!r} is not a guard: it needs a non-empty `name` string")
    has_check = callable(getattr(guard, "check", None))
    has_request = callable(getattr(guard, "check_request", None))
    if output and not has_check:
        raise TypeError(
            f"guard {name!r} cannot check output: output guards need `async def check(text)`"
        )
    if not (has_check or has_request):
        raise TypeError(
            f"guard {name!r} has neither `async def check(text)` nor "
            "`async def check_request(messages, *, client, options)`"
        )


async def run_request_check(
    guard: RequestGuard,
    messages: Sequence[Message],
    *,
    client: object | None,
    options: Mapping[str, Any],
    stage: Stage,
) -> None:
    """``guard.check_request``: a block raises a violation, a failure a GuardrailError."""
    try:
        result = await guard.check_request(messages, client=client, options=options)
    except (GuardrailError, GuardrailViolation):
        raise
    except Exception as exc:
        raise GuardrailError(guard.name, f"{type(exc).__name__}: {exc}") from exc
    if not isinstance(result, GuardResult):
        raise GuardrailError(guard.name, f"check_request() returned {result!r}, not a GuardResult")
    if result.action == "block":
        raise GuardrailViolation(guard.name, result.reason or "blocked", stage=stage)
