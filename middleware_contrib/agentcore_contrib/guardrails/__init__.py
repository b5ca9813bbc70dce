"""Guardrails: checks that stop unsafe input, output and tool calls (fail closed).

Guards (one module per family) are plain objects; the middleware applies them:

- :class:`ChatGuardrails` (every model call) and :class:`AgentGuardrails` (a whole
  run) run *input* guards before the call and *output* guards after it; in streaming
  runs output is held back in a window until it passes.
- :class:`ToolPolicy` (function middleware) refuses tool calls.

A policy block ends the call with a message (or raises :class:`GuardrailViolation`);
a guard that breaks raises :class:`GuardrailError`.
"""

from agentcore_contrib.guardrails._base import (
    Guard,
    GuardrailError,
    GuardrailViolation,
    GuardResult,
    RequestGuard,
    TextGuard,
)
from agentcore_contrib.guardrails.content import ContentFilter
from agentcore_contrib.guardrails.injection import PromptInjectionGuard
from agentcore_contrib.guardrails.injection_model import InjectionModel
from agentcore_contrib.guardrails.judge import LLMJudge, parse_verdict
from agentcore_contrib.guardrails.middleware import AgentGuardrails, ChatGuardrails
from agentcore_contrib.guardrails.pii import PIIGuard, find_pii
from agentcore_contrib.guardrails.tokens import MaxInputTokens
from agentcore_contrib.guardrails.tool_policy import ToolPolicy

__all__ = [
    "AgentGuardrails",
    "ChatGuardrails",
    "ContentFilter",
    "Guard",
    "GuardResult",
    "GuardrailError",
    "GuardrailViolation",
    "InjectionModel",
    "LLMJudge",
    "MaxInputTokens",
    "PIIGuard",
    "PromptInjectionGuard",
    "RequestGuard",
    "TextGuard",
    "ToolPolicy",
    "find_pii",
    "parse_verdict",
]
