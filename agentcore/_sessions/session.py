"""Agent sessions: what ties the runs of one conversation together."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, cast

import attrs

from agentcore._equality import fields_eq
from agentcore._repr import fields_repr
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
"""``state`` key where agentcore 0.1 kept a paused run (read, then moved to ``paused``)."""
LOCALS_KEY = "agentcore.run_locals"
"""``state`` key where agentcore 0.1 kept a paused run's run-local values."""


def _new_session_id() -> str:
    return os.urandom(16).hex()


PendingRequest = FunctionApprovalRequestContent | UserInputRequestContent


@attrs.define
class PausedRun:
    """A tool batch waiting for the caller: approvals to give, questions to answer.

    ``completed`` holds results of calls of the batch that already ran (they are
    not run again); ``answers`` the user's answers so far, per call id and prompt;
    ``locals`` the run-local values of the paused run, restored when it resumes.
    """

    __repr__ = fields_repr
    __eq__ = fields_eq

    calls: list[FunctionCallContent]
    requests: list[PendingRequest]
    completed: list[FunctionResultContent] = attrs.field(factory=list)
    answers: dict[str, dict[str, str]] = attrs.field(factory=dict)
    locals: dict[str, Any] = attrs.field(factory=dict)


@attrs.define
class AgentSession:
    """One conversation with an agent.

    ``session_id`` keys the history store; ``service_conversation_id`` is set when
    the provider keeps the conversation itself (then the agent does not resend
    history); ``state`` is free-form JSON-serializable data of the caller's and
    of context providers. ``paused`` is the run waiting on this session's caller
    (approvals, answers), with its run-local values, or ``None``: saving the session
    (``agentcore.serialization``) saves the run. A session saved by agentcore 0.1,
    which kept the paused run in ``state``, is read into ``paused`` when loaded.
    """

    __repr__ = fields_repr
    __eq__ = fields_eq

    session_id: str = attrs.field(factory=_new_session_id)
    service_conversation_id: str | None = None
    state: dict[str, Any] = attrs.field(factory=dict)
    paused: PausedRun | None = None
    _history_store: tuple[object, str | None] | None = attrs.field(
        default=None, init=False, eq=False, repr=False
    )
    """The history store this session's messages went to and the name of the agent
    that put them there; kept in memory only (not saved), so that using the session
    with an agent whose store differs is refused instead of starting from nothing."""

    def __attrs_post_init__(self) -> None:
        if PENDING_KEY in self.state or LOCALS_KEY in self.state:
            _adopt_legacy_pause(self, strict=False)

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


def history_store(session: AgentSession) -> tuple[object, str | None] | None:
    """The store the session's history went to, and the agent that used it (or ``None``)."""
    return session._history_store  # pyright: ignore[reportPrivateUsage]  # this module's own


def bind_history_store(session: AgentSession, store: object, agent_name: str | None) -> None:
    """Remember that the session's history went to ``store`` (see :func:`history_store`)."""
    session._history_store = (store, agent_name)  # pyright: ignore[reportPrivateUsage]


def save_pause(session: AgentSession, paused: PausedRun, run_locals: Mapping[str, Any]) -> None:
    """Keep a paused run on the session, with its run-local values."""
    session.paused = attrs.evolve(paused, locals=dict(run_locals))


def clear_pause(session: AgentSession) -> None:
    """Forget a paused run (it finished, or the caller moved on)."""
    session.paused = None


def load_pause(session: AgentSession) -> PausedRun | None:
    """The session's paused run, or ``None``.

    Raises :class:`~agentcore.errors.RunStateError` when the session holds a paused run
    in agentcore 0.1's ``state`` keys that cannot be read (edited by hand, or written by
    something else).
    """
    if PENDING_KEY in session.state or LOCALS_KEY in session.state:
        _adopt_legacy_pause(session, strict=True)
    paused = session.paused
    if paused is not None:
        _check_pause(paused)
    return paused


def _check_pause(paused: object) -> None:
    """Refuse a paused run that does not hold together (assigned or edited by hand).

    Resumed as it is, it would run calls nobody approved or store results that answer
    no call; refused, the session and its history stay as they were.
    """
    problem = _pause_problem(paused)
    if problem is not None:
        raise RunStateError(
            f"the paused run of this session (session.paused) is corrupt: {problem}. "
            "Restore it from a good copy of the session, or set session.paused = None "
            "to give up the paused run"
        )


def _pause_problem(paused: object) -> str | None:
    if not isinstance(paused, PausedRun):
        return f"it is a {type(paused).__name__}, not a PausedRun"
    # Typed, but assigned or edited by hand: the items are checked as well.
    calls: list[object] = list(paused.calls)
    requests: list[object] = list(paused.requests)
    completed: list[object] = list(paused.completed)
    ids = [c.call_id for c in calls if isinstance(c, FunctionCallContent)]
    if not calls:
        return "it holds no function calls"
    if len(ids) != len(calls):
        return "it holds something other than function calls among its calls"
    if len(set(ids)) != len(ids):
        return "two of its calls share a call id"
    if not requests:
        return "it waits on no request"
    for request in requests:
        if not isinstance(request, (FunctionApprovalRequestContent, UserInputRequestContent)):
            return f"it waits on a {type(request).__name__}, not a request"
        if request.function_call not in calls:
            return f"request {request.id!r} asks about a call the paused run does not hold"
    for result in completed:
        if not isinstance(result, FunctionResultContent) or result.call_id not in ids:
            return f"a completed result answers no call it holds: {result!r}"
    return None


def saved_locals(session: AgentSession) -> dict[str, Any] | None:
    """The run-local values of the session's paused run, or ``None``."""
    paused = load_pause(session)
    return None if paused is None else dict(paused.locals)


def _adopt_legacy_pause(session: AgentSession, *, strict: bool) -> None:
    """Move a paused run kept in ``state`` by agentcore 0.1 onto ``session.paused``.

    What cannot be read stays in ``state`` untouched; ``strict`` then raises a
    :class:`~agentcore.errors.RunStateError` saying how to recover.
    """
    pending = session.state.get(PENDING_KEY)
    saved = session.state.get(LOCALS_KEY)
    if saved is not None and not isinstance(saved, dict):
        if not strict:
            return
        raise RunStateError(
            f"the run-local values saved in this session (session.state[{LOCALS_KEY!r}]) are "
            f"corrupt: expected a JSON object, got {type(saved).__name__}. Restore them from "
            f"a good copy of the session, or delete that key"
        )
    paused: PausedRun | None = None
    if pending:
        try:
            paused = _paused_run(pending)
        except Exception as exc:
            if not strict:
                return
            raise RunStateError(
                f"the paused run saved in this session (session.state[{PENDING_KEY!r}]) is "
                f"corrupt: {type(exc).__name__}: {exc}. Restore it from a good copy of the "
                f"session, or delete that key to give up the paused run"
            ) from exc
    if paused is not None:
        paused.locals = dict(cast("dict[str, Any]", saved or {}))
        session.paused = paused
    session.state.pop(PENDING_KEY, None)
    session.state.pop(LOCALS_KEY, None)


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
