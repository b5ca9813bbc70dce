"""A served agent's or tool's questions (approvals, ``ToolContext.ask``) put to the
MCP client's user.

A served agent whose run pauses, or a served tool that needs approval or asks, asks
the client's user through MCP elicitation, one form per question, and goes on with
the answers:

- on 2026-07-28 the call answers with an ``input_required`` result carrying the
  questions; the paused run stays here, under the ``requestState`` token the client
  sends back with its answers. A token is spent by the first retry that brings it
  and is bound to the tool and arguments of the call that paused;
- on older protocol versions the server sends ``elicitation/create`` requests while
  the call waits.

A client that did not declare form elicitation gets an error result saying what
the agent wanted and that nothing ran.
"""

from __future__ import annotations

import json
import secrets
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any, TypeAlias

import attrs
from mcp import types
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from agentcore import (
    AgentSession,
    FunctionApprovalRequestContent,
    FunctionApprovalResponseContent,
    UserInputRequestContent,
    UserInputResponseContent,
)

__all__ = [
    "Decision",
    "Held",
    "PausedRuns",
    "Question",
    "ToolAnswers",
    "answers_of",
    "can_elicit",
    "decision",
    "form",
    "input_required",
    "refusal",
]

Question: TypeAlias = FunctionApprovalRequestContent | UserInputRequestContent
Decision: TypeAlias = FunctionApprovalResponseContent | UserInputResponseContent

_APPROVAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "approve": {
            "type": "boolean",
            "title": "Approve",
            "description": "Whether the agent may make this call.",
        }
    },
    "required": ["approve"],
}
_ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"answer": {"type": "string", "title": "Answer"}},
    "required": ["answer"],
}


def input_required(ctx: Any) -> bool:
    """Whether this request speaks 2026-07-28 (questions ride an ``input_required``
    result) rather than an older version (``elicitation/create`` requests)."""
    return getattr(ctx, "protocol_version", None) in MODERN_PROTOCOL_VERSIONS


def can_elicit(ctx: Any) -> bool:
    """Whether the client declared form elicitation (a bare ``elicitation: {}``, the
    only shape before modes existed, counts; URL mode alone does not)."""
    capabilities: types.ClientCapabilities | None = ctx.session.client_capabilities
    elicitation = capabilities.elicitation if capabilities is not None else None
    return elicitation is not None and (elicitation.form is not None or elicitation.url is None)


def form(question: Question, agent: str | None) -> types.ElicitRequestFormParams:
    """The elicitation form that asks ``question`` on behalf of agent ``agent`` (``None``
    for a tool served on its own)."""
    if isinstance(question, UserInputRequestContent):
        message = f"The {agent} agent asks: {question.prompt}" if agent else question.prompt
        return types.ElicitRequestFormParams(message=message, requested_schema=_ANSWER_SCHEMA)
    call = question.function_call
    arguments = json.dumps(call.parse_arguments(), ensure_ascii=False, default=str)
    wants = f"The {agent} agent wants to call" if agent else "Call"
    return types.ElicitRequestFormParams(
        message=f"{wants} {call.name} with {arguments}. Approve?",
        requested_schema=_APPROVAL_SCHEMA,
    )


def decision(question: Question, answer: types.ElicitResult | None) -> Decision | None:
    """The kernel's response to ``question`` from the client's ``answer``.

    An approval counts only when the user accepted the form with ``approve: true``;
    anything else (declined, cancelled, no answer) rejects the call. An unanswered
    question gives ``None``.
    """
    accepted = answer is not None and answer.action == "accept"
    content: Mapping[str, Any] = (answer.content or {}) if answer is not None else {}
    if isinstance(question, FunctionApprovalRequestContent):
        approved = accepted and content.get("approve") is True
        reason = None if approved else "the user did not approve it"
        return question.create_response(approved, reason=reason)
    text = content.get("answer")
    if not accepted or text is None:
        return None
    return question.create_response(text if isinstance(text, str) else json.dumps(text))


def answers_of(params: types.CallToolRequestParams) -> dict[str, types.ElicitResult]:
    """The elicitation answers a retry brought, by the key of the question each answers."""
    responses = params.input_responses or {}
    return {key: r for key, r in responses.items() if isinstance(r, types.ElicitResult)}


def refusal(agent: str | None, questions: Sequence[Question], why: str) -> str:
    """The error text for a question that cannot be put to the client's user, asked by
    agent ``agent`` (``None`` for a tool served on its own)."""
    first = questions[0]
    name = first.function_call.name
    if isinstance(first, UserInputRequestContent):
        wanted = f"needs the user's answer to {first.prompt!r}"
    elif agent:
        wanted = f"needs the user's approval to call {name}"
    else:
        wanted = "needs the user's approval to run"
    asker = f"the {agent} agent" if agent else name
    return (
        f"Error: {asker} {wanted}, and {why}; nothing that needed it was run. "
        "Call it from a client that supports elicitation, or serve it without the "
        "approval or question"
    )


@attrs.define
class ToolAnswers:
    """What the user allowed and answered so far for one call of a tool served on its
    own (an agent's run keeps that in its session)."""

    approved: bool
    answers: dict[str, str] = attrs.field(factory=dict)


Held: TypeAlias = AgentSession | ToolAnswers
"""A paused call's state: the agent's session, or a served tool's answers so far."""


@attrs.define
class _Paused:
    tool: str
    arguments: dict[str, Any]
    held: Held
    questions: tuple[Question, ...]
    expires: float


class PausedRuns:
    """Served agents' paused runs waiting for the client's answers (2026-07-28),
    each under a random token that the first retry bringing it spends.

    A run waits ``ttl`` seconds; past ``limit`` runs the oldest is given up.
    """

    def __init__(self, *, ttl: float = 600.0, limit: int = 1024) -> None:
        self._ttl = ttl
        self._limit = limit
        self._runs: OrderedDict[str, _Paused] = OrderedDict()

    def keep(
        self,
        tool: str,
        arguments: Mapping[str, Any],
        held: Held,
        questions: Sequence[Question],
    ) -> str:
        """Hold a paused run; the token to send as ``requestState``."""
        now = time.monotonic()
        while self._runs:
            oldest = next(iter(self._runs.values()))
            if oldest.expires > now and len(self._runs) < self._limit:
                break
            self._runs.popitem(last=False)
        token = secrets.token_urlsafe(32)
        self._runs[token] = _Paused(tool, dict(arguments), held, tuple(questions), now + self._ttl)
        return token

    def take(
        self, token: str, tool: str, arguments: Mapping[str, Any]
    ) -> tuple[Held, tuple[Question, ...]] | None:
        """The run held under ``token`` for this call, and forget it (an answer is
        spent once); ``None`` when there is none: never held, expired, already
        resumed, or held for another tool or other arguments."""
        paused = self._runs.pop(token, None)
        if paused is None or paused.expires <= time.monotonic():
            return None
        if paused.tool != tool or paused.arguments != dict(arguments):
            return None
        return paused.held, paused.questions
