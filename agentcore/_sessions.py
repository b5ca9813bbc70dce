"""Agent sessions: what ties the runs of one conversation together."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any

import attrs

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agentcore._contents import FunctionApprovalRequestContent, FunctionCallContent

__all__ = ["AgentSession"]

PENDING_KEY = "agentcore.pending_approvals"
"""``state`` key of a paused run's calls and approval requests (JSON)."""
LOCALS_KEY = "agentcore.run_locals"
"""``state`` key of a paused run's run-local values (JSON)."""


def _new_session_id() -> str:
    return uuid.uuid4().hex


@attrs.define
class AgentSession:
    """One conversation with an agent.

    ``session_id`` keys the history store; ``service_conversation_id`` is set when
    the provider keeps the conversation itself (then the agent does not resend
    history); ``state`` is free-form JSON-serializable data of the caller's and
    of context providers. A paused run keeps its pending calls and run-local
    values in ``state`` too, so saving the session (``agentcore.serialization``)
    saves the run.
    """

    session_id: str = attrs.field(factory=_new_session_id)
    service_conversation_id: str | None = None
    state: dict[str, Any] = attrs.field(factory=dict)

    @property
    def approval_requests(self) -> tuple[FunctionApprovalRequestContent, ...]:
        """The calls a paused run of this session waits on (empty when none).

        Useful after loading a saved session in another process: answer each with
        ``request.create_response(approved)`` and pass the answers to ``agent.run``.
        """
        paused = paused_calls(self)
        return () if paused is None else tuple(paused[1])


def save_pause(
    session: AgentSession,
    calls: Sequence[FunctionCallContent],
    requests: Sequence[FunctionApprovalRequestContent],
    run_locals: dict[str, Any],
) -> None:
    """Keep a paused run in ``session.state``: the batch of calls, the open requests
    and the run-local values, all as JSON."""
    from agentcore.serialization import unstructure

    session.state[PENDING_KEY] = {
        "calls": [unstructure(c) for c in calls],
        "requests": [unstructure(r) for r in requests],
    }
    session.state[LOCALS_KEY] = run_locals


def clear_pause(session: AgentSession) -> None:
    """Forget a paused run (it finished, or the caller moved on)."""
    session.state.pop(PENDING_KEY, None)
    session.state.pop(LOCALS_KEY, None)


def paused_calls(
    session: AgentSession,
) -> tuple[list[FunctionCallContent], list[FunctionApprovalRequestContent]] | None:
    """The calls and open requests of the session's paused run, or ``None``."""
    pending = session.state.get(PENDING_KEY)
    if not pending:
        return None
    from agentcore._contents import FunctionApprovalRequestContent, FunctionCallContent
    from agentcore.serialization import structure

    return (
        [structure(c, FunctionCallContent) for c in pending["calls"]],
        [structure(r, FunctionApprovalRequestContent) for r in pending["requests"]],
    )


def saved_locals(session: AgentSession) -> dict[str, Any] | None:
    """The run-local values of the session's paused run, or ``None``."""
    saved = session.state.get(LOCALS_KEY)
    return None if saved is None else dict(saved)
