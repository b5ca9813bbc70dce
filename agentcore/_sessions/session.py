"""Agent sessions: what ties the runs of one conversation together."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, cast

import attrs

from agentcore._types.contents import (
    FunctionApprovalRequestContent,
    FunctionCallContent,
    FunctionResultContent,
    UserInputRequestContent,
)
from agentcore.errors import RunStateError

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["AgentSession", "PausedRun"]

PENDING_KEY = "agentcore.pending_approvals"
"""``state`` key of a paused run's calls, open requests and partial results (JSON)."""
LOCALS_KEY = "agentcore.run_locals"
"""``state`` key of a paused run's run-local values (JSON)."""


def _new_session_id() -> str:
    return os.urandom(16).hex()


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
    def pending_requests(
        self,
    ) -> tuple[FunctionApprovalRequestContent | UserInputRequestContent, ...]:
        """What a paused run of this session waits on (empty when nothing).

        Useful after loading a saved session in another process: answer each
        request (``request.create_response(...)``) and pass the answers to
        ``agent.run`` with this session.
        """
        paused = load_pause(self)
        return () if paused is None else tuple(paused.requests)

    @property
    def approval_requests(self) -> tuple[FunctionApprovalRequestContent, ...]:
        """The approval requests among :attr:`pending_requests`."""
        return tuple(
            r for r in self.pending_requests if isinstance(r, FunctionApprovalRequestContent)
        )


PendingRequest = FunctionApprovalRequestContent | UserInputRequestContent


@attrs.define(eq=False)
class PausedRun:
    """A tool batch waiting for the caller: approvals to give, questions to answer.

    ``completed`` holds results of calls of the batch that already ran (they are
    not run again); ``answers`` the user's answers so far, per call id and prompt.
    """

    calls: list[FunctionCallContent]
    requests: list[PendingRequest]
    completed: list[FunctionResultContent] = attrs.field(factory=list)
    answers: dict[str, dict[str, str]] = attrs.field(factory=dict)


def save_pause(session: AgentSession, paused: PausedRun, run_locals: Mapping[str, Any]) -> None:
    """Keep a paused run in ``session.state`` as JSON, with its run-local values."""
    from agentcore.serialization import unstructure

    session.state[PENDING_KEY] = {
        "calls": [unstructure(c) for c in paused.calls],
        "requests": [unstructure(r) for r in paused.requests],
        "completed": [unstructure(r) for r in paused.completed],
        "answers": {k: dict(v) for k, v in paused.answers.items()},
    }
    session.state[LOCALS_KEY] = dict(run_locals)


def clear_pause(session: AgentSession) -> None:
    """Forget a paused run (it finished, or the caller moved on)."""
    session.state.pop(PENDING_KEY, None)
    session.state.pop(LOCALS_KEY, None)


def load_pause(session: AgentSession) -> PausedRun | None:
    """The session's paused run, or ``None``.

    Raises :class:`~agentcore.errors.RunStateError` when what the session holds is
    not a paused run (edited by hand, or written by something else).
    """
    pending = session.state.get(PENDING_KEY)
    if not pending:
        return None
    try:
        return _paused_run(pending)
    except Exception as exc:
        raise RunStateError(
            f"the paused run saved in this session (session.state[{PENDING_KEY!r}]) is "
            f"corrupt: {type(exc).__name__}: {exc}. Restore it from a good copy of the "
            f"session, or delete that key to give up the paused run"
        ) from exc


def _paused_run(pending: Any) -> PausedRun:
    from agentcore._types.contents import Content
    from agentcore.serialization import structure

    requests: list[PendingRequest] = []
    for raw in pending["requests"]:
        request: object = structure(raw, cast("type[Any]", Content))  # a tagged union
        if not isinstance(request, (FunctionApprovalRequestContent, UserInputRequestContent)):
            raise ValueError(f"a saved paused run holds {type(request).__name__}, not a request")
        requests.append(request)
    return PausedRun(
        calls=[structure(c, FunctionCallContent) for c in pending["calls"]],
        requests=requests,
        completed=[structure(r, FunctionResultContent) for r in pending.get("completed", ())],
        answers={k: dict(v) for k, v in pending.get("answers", {}).items()},
    )


def saved_locals(session: AgentSession) -> dict[str, Any] | None:
    """The run-local values of the session's paused run, or ``None``."""
    saved = session.state.get(LOCALS_KEY)
    if saved is None:
        return None
    if not isinstance(saved, dict):
        raise RunStateError(
            f"the run-local values saved in this session (session.state[{LOCALS_KEY!r}]) are "
            f"corrupt: expected a JSON object, got {type(saved).__name__}. Restore them from "
            f"a good copy of the session, or delete that key"
        )
    return dict(cast("dict[str, Any]", saved))
