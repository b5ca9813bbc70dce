"""Standing approval rules for tool calls: always allow, always deny, or ask.

Rules match a tool by name or glob and, optionally, by a predicate on the call's
arguments; the first matching rule decides, else ``default``. ``deny`` answers the model
with an error text and the tool does not run; ``allow`` runs it; ``ask`` leaves the
decision to the caller through the tool loop's approval flow.

The loop decides which calls wait for the caller *before* function middleware runs. Give
it these rules with ``tool_loop=approval.tool_loop()`` (its ``approval_policy``), and
every call a rule marks ``ask`` pauses the run for the caller's decision; once approved it
reaches this middleware and runs. Tools declared ``approval_mode="always_require"`` pause
anyway. Without the policy, an ``ask`` call to any other tool fails closed: it is denied
with a message saying how to enable approval.
"""

from __future__ import annotations

import fnmatch
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Literal, TypeAlias

import attrs

from agentcore import (
    CustomEvent,
    FunctionCallContent,
    FunctionInvocationConfiguration,
    FunctionInvocationContext,
    SupportsToolCall,
)

__all__ = ["ApprovalRule", "Decision", "ToolApproval"]

Decision: TypeAlias = Literal["allow", "deny", "ask"]
ArgumentPredicate: TypeAlias = Callable[[Mapping[str, Any]], bool]

_DECISIONS: tuple[str, ...] = ("allow", "deny", "ask")
_logger = logging.getLogger("agentcore_contrib.tool_approval")


def _check_decision(_instance: object, _attribute: object, value: str) -> None:
    if value not in _DECISIONS:
        raise ValueError(f"decision must be one of {list(_DECISIONS)}, got {value!r}")


def _check_tool(_instance: object, _attribute: object, value: str) -> None:
    given: object = value  # callers without type checking may pass anything
    if not isinstance(given, str) or not given:
        raise TypeError(f"tool must be a tool name or a glob such as 'delete_*', got {value!r}")


def _check_when(_instance: object, _attribute: object, value: ArgumentPredicate | None) -> None:
    if value is not None and not callable(value):
        raise TypeError("when must be a callable taking the call's arguments, or None")


@attrs.frozen
class ApprovalRule:
    """One standing rule: calls of ``tool`` (a name or glob) for which ``when(arguments)``
    holds (always, without ``when``) get ``decision``. ``reason`` is shown to the model
    on a denial."""

    tool: str = attrs.field(validator=_check_tool)
    decision: Decision = attrs.field(validator=_check_decision)
    when: ArgumentPredicate | None = attrs.field(default=None, validator=_check_when)
    reason: str | None = None

    def matches(self, tool: str, arguments: Mapping[str, Any]) -> bool:
        """Whether this rule applies to a call of ``tool`` with ``arguments``."""
        if not fnmatch.fnmatchcase(tool, self.tool):
            return False
        return self.when is None or bool(self.when(arguments))


class ToolApproval:
    """Function middleware applying standing :class:`ApprovalRule` s to every tool call.

    A rule whose ``when`` raises counts as ``deny`` (fail closed) and is logged. Each
    decision other than a plain ``allow`` is reported as a ``tool_approval`` event.
    """

    def __init__(self, rules: Sequence[ApprovalRule], *, default: Decision = "allow") -> None:
        if isinstance(rules, ApprovalRule) or not all(isinstance(r, ApprovalRule) for r in rules):
            raise TypeError("rules must be a list of ApprovalRule")
        if default not in _DECISIONS:
            raise ValueError(f"default must be one of {list(_DECISIONS)}, got {default!r}")
        self.rules: tuple[ApprovalRule, ...] = tuple(rules)
        self.default: Decision = default

    def decide(self, tool: str, arguments: Mapping[str, Any]) -> tuple[Decision, str | None]:
        """The decision for a call and, on a denial, the reason to give."""
        for rule in self.rules:
            try:
                matched = rule.matches(tool, arguments)
            except Exception as exc:
                _logger.error("approval rule %r failed on %s: %r", rule.tool, tool, exc)
                return "deny", f"an approval rule could not be checked ({type(exc).__name__})"
            if matched:
                return rule.decision, rule.reason
        return self.default, None

    def requires_approval(self, call: FunctionCallContent, tool: SupportsToolCall) -> bool:
        """Whether ``call`` should wait for the caller (a rule says ``ask``).

        For a tool-loop hook deciding approvals per call; arguments that do not parse
        count as needing approval.
        """
        try:
            arguments = call.parse_arguments()
        except ValueError:
            return True
        return self.decide(tool.name, arguments)[0] == "ask"

    def tool_loop(
        self, base: FunctionInvocationConfiguration | None = None
    ) -> FunctionInvocationConfiguration:
        """A tool-loop configuration (``base`` or the defaults) whose approval policy
        pauses every call these rules mark ``ask``."""
        return attrs.evolve(
            base or FunctionInvocationConfiguration(), approval_policy=self.requires_approval
        )

    async def process(
        self, context: FunctionInvocationContext, call_next: Callable[[], Awaitable[None]]
    ) -> None:
        function = context.function
        decision, reason = self.decide(function.name, context.arguments)
        if decision == "allow":
            await call_next()
            return
        if decision == "ask":
            if function.approval_mode == "always_require" or context.approved:
                # The loop paused this call and the caller approved it.
                await self._report(context, "approved", None)
                await call_next()
                return
            reason = (
                "it needs the user's approval and this run cannot ask for it; run the agent "
                "with tool_loop=<this ToolApproval>.tool_loop() or declare the tool with "
                "approval_mode='always_require'"
            )
            _logger.warning("denied %s: %s", function.name, reason)
        text = f"Error: the call to {function.name} was denied" + (
            f": {reason}." if reason else "."
        )
        await self._report(context, "denied", reason)
        context.result = text

    async def _report(
        self, context: FunctionInvocationContext, outcome: str, reason: str | None
    ) -> None:
        data = {"tool": context.function.name, "call_id": context.call_id, "outcome": outcome}
        if reason:
            data["reason"] = reason
        await context.run.emit(CustomEvent("tool_approval", data, source="tool_approval"))
