"""Tool-call policy: which tools may run, and checks on their arguments."""

from __future__ import annotations

import fnmatch
import inspect
import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any, Literal, TypeAlias

from agentcore import CustomEvent, FunctionInvocationContext, MiddlewareTermination
from agentcore_contrib.guardrails._base import GuardrailError, GuardrailViolation

__all__ = ["ArgumentCheck", "ToolPolicy"]

ArgumentCheck: TypeAlias = Callable[
    [Mapping[str, Any]], "bool | str | Awaitable[bool | str | None] | None"
]
"""Judges a call's arguments: ``False`` or a reason string refuses; ``True``/``None`` allows."""

_logger = logging.getLogger("agentcore_contrib.guardrails")


def _patterns(value: Iterable[str] | None, what: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        raise TypeError(f"{what} must be a list of tool names or globs, not one string")
    items = tuple(value)
    given: tuple[object, ...] = items
    if not all(isinstance(item, str) for item in given) or not all(items):
        raise TypeError(f"{what} must hold non-empty tool names or globs, got {items!r}")
    return items


def _matches(name: str, patterns: Iterable[str]) -> bool:
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns)


class ToolPolicy:
    """Function middleware that refuses tool calls the policy does not allow.

    ``allow`` (names or globs; ``None`` allows every tool) and ``deny`` (wins over
    ``allow``) choose the tools; ``checks`` maps a name or glob to argument checks run
    before the tool. A refused call does not run: with ``on_violation="reject"`` (the
    default) the model gets an error text as the call's result and may try something
    else; with ``"terminate"`` the run ends with that text. A check that raises is a
    ``GuardrailError`` and the call does not run either (fail closed).
    """

    def __init__(
        self,
        *,
        allow: Iterable[str] | None = None,
        deny: Iterable[str] = (),
        checks: Mapping[str, ArgumentCheck | Sequence[ArgumentCheck]] | None = None,
        on_violation: Literal["reject", "terminate"] = "reject",
        name: str = "tool_policy",
    ) -> None:
        self.allow: tuple[str, ...] | None = _patterns(allow, "allow")
        self.deny: tuple[str, ...] = _patterns(deny, "deny") or ()
        self.checks: dict[str, tuple[ArgumentCheck, ...]] = {}
        for pattern, given in (checks or {}).items():
            found: tuple[ArgumentCheck, ...] = (
                tuple(given) if isinstance(given, Sequence) else (given,)  # pyright: ignore[reportUnknownArgumentType]  # a user's list
            )
            if not found or not all(callable(c) for c in found):
                raise TypeError(f"checks[{pattern!r}] must be a callable or a list of callables")
            self.checks[pattern] = found
        if on_violation not in ("reject", "terminate"):
            raise ValueError(f"on_violation must be 'reject' or 'terminate', got {on_violation!r}")
        self.on_violation = on_violation
        self.name = name

    async def decide(self, tool: str, arguments: Mapping[str, Any]) -> str | None:
        """Why the call of ``tool`` with ``arguments`` is refused, or ``None`` to allow it."""
        if _matches(tool, self.deny):
            return f"the tool {tool!r} is denied by policy"
        if self.allow is not None and not _matches(tool, self.allow):
            return f"the tool {tool!r} is not on the allow list"
        for pattern, checks in self.checks.items():
            if not fnmatch.fnmatchcase(tool, pattern):
                continue
            for check in checks:
                try:
                    verdict = check(arguments)
                    if inspect.isawaitable(verdict):
                        verdict = await verdict
                except Exception as exc:
                    raise GuardrailError(
                        self.name,
                        f"the argument check {getattr(check, '__name__', check)!r} of {tool!r} "
                        f"raised {type(exc).__name__}: {exc}",
                    ) from exc
                if verdict is False:
                    label = getattr(check, "__name__", "check")
                    return f"the arguments of {tool!r} failed the check {label!r}"
                if isinstance(verdict, str):
                    return verdict
                if verdict is not True and verdict is not None:
                    raise GuardrailError(
                        self.name,
                        f"an argument check returned {verdict!r}; return a bool, a reason or None",
                    )
        return None

    async def process(
        self, context: FunctionInvocationContext, call_next: Callable[[], Awaitable[None]]
    ) -> None:
        tool = context.function.name
        try:
            reason = await self.decide(tool, context.arguments)
        except GuardrailError as exc:
            _logger.error("%s", exc)
            await context.run.emit(
                CustomEvent(
                    "guardrail_error", {"guard": self.name, "error": str(exc)}, source="guardrails"
                )
            )
            raise
        if reason is None:
            await call_next()
            return
        violation = GuardrailViolation(self.name, reason, stage="tool_call")
        _logger.info("%s", violation)
        await context.run.emit(
            CustomEvent(
                "guardrail_violation",
                {"guard": self.name, "reason": reason, "stage": "tool_call", "tool": tool},
                source="guardrails",
            )
        )
        text = f"Error: the call to {tool} was refused: {reason}."
        if self.on_violation == "terminate":
            raise MiddlewareTermination(str(violation), result=text)
        context.result = text
