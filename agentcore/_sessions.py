"""Agent sessions: what ties the runs of one conversation together."""

from __future__ import annotations

import uuid
from typing import Any

import attrs

__all__ = ["AgentSession"]


def _new_session_id() -> str:
    return uuid.uuid4().hex


@attrs.define
class AgentSession:
    """One conversation with an agent.

    ``session_id`` keys the history store; ``service_conversation_id`` is set when
    the provider keeps the conversation itself (then the agent does not resend
    history); ``state`` is free-form JSON-serializable data of the caller's and
    of context providers.
    """

    session_id: str = attrs.field(factory=_new_session_id)
    service_conversation_id: str | None = None
    state: dict[str, Any] = attrs.field(factory=dict)
