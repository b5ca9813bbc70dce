"""Pausing the tool loop for the caller, and resuming it.

A loop pauses when a call needs approval or a tool asks the user something; the
pause (calls, open requests, results that already exist) is kept on the loop
state and saved with the session. Resuming matches the caller's decisions to the
requests, runs what was approved or answered, and rejects the rest, so that every
call ends with a result.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import attrs

from agentcore._loop.config import declared_only_names
from agentcore._loop.tool_calls import Outcome, error_outcome, run_batch
from agentcore._replay import request_id
from agentcore._sessions.session import PausedRun
from agentcore._types.contents import (
    FunctionApprovalRequestContent,
    FunctionApprovalResponseContent,
    FunctionCallContent,
    FunctionResultContent,
    UserInputRequestContent,
    UserInputResponseContent,
)
from agentcore._types.messages import Message

if TYPE_CHECKING:
    from agentcore._loop.state import LoopState

__all__ = ["attach_requests", "pause_for_input", "resume"]


def attach_requests(
    state: LoopState, requests: Sequence[FunctionApprovalRequestContent | UserInputRequestContent]
) -> None:
    # The requests join the assistant message that made the calls, as the fold of a
    # streamed run puts them there too.
    last = state.produced[-1]
    state.produced[-1] = attrs.evolve(last, contents=(*last.contents, *requests))


def pause_for_input(
    state: LoopState,
    batch: list[FunctionCallContent],
    ran: list[FunctionCallContent],
    outcomes: list[Outcome],
    *,
    resumed: bool,
) -> list[UserInputRequestContent]:
    """Pause because tools asked the user something; keep the results that exist."""
    run_id = state.run.run_id
    requests = [
        UserInputRequestContent(
            call, outcome.prompt, request_id(run_id, call.call_id, "input", outcome.prompt)
        )
        for call, outcome in zip(ran, outcomes, strict=True)
        if outcome.prompt is not None
    ]
    completed = [outcome.content for outcome in outcomes if outcome.prompt is None]
    if resumed and state.pending is not None:
        done = {c.call_id for c in completed}
        completed = [c for c in state.pending.completed if c.call_id not in done] + completed
    state.paused = PausedRun(
        calls=list(batch),
        requests=list(requests),
        completed=completed,
        answers={cid: dict(a) for cid, a in state.answers.items()},
    )
    if resumed:
        state.produced.append(Message("assistant", tuple(requests)))
    else:
        attach_requests(state, requests)
    return requests


def _match_decisions(
    state: LoopState, pending: PausedRun
) -> tuple[dict[str, FunctionApprovalResponseContent], set[str]]:
    """The approval verdicts (by call id) and the ids of the requests now answered.

    A decision counts only if it answers a request this run is waiting for, about
    the very call that request was made for, with the matching kind of answer.
    """
    by_id = {r.id: r for r in pending.requests}
    verdicts: dict[str, FunctionApprovalResponseContent] = {}
    answered: set[str] = set()
    state.answers = {cid: dict(a) for cid, a in pending.answers.items()}
    for decision in state.decisions:
        request = by_id.get(decision.id)
        if request is None or request.function_call != decision.function_call:
            continue
        call_id = request.function_call.call_id
        if isinstance(request, FunctionApprovalRequestContent) and isinstance(
            decision, FunctionApprovalResponseContent
        ):
            verdicts[call_id] = decision
            answered.add(request.id)
        elif isinstance(request, UserInputRequestContent) and isinstance(
            decision, UserInputResponseContent
        ):
            state.answers.setdefault(call_id, {})[request.prompt] = decision.text
            answered.add(request.id)
    return verdicts, answered


_MOVED_ON = "The user moved on before this call ran; it was not run."


def _declined_note(request: FunctionApprovalRequestContent | UserInputRequestContent) -> str:
    if isinstance(request, FunctionApprovalRequestContent):
        return "The user rejected this call. Reason: no decision was given"
    return f"The user did not answer the question {request.prompt!r}; the call was not completed."


async def resume(
    state: LoopState, pending: PausedRun
) -> tuple[list[FunctionCallContent], list[Outcome], bool] | None:
    """Run (or reject) the calls of a paused batch once every request is answered.

    Returns the calls answered, their outcomes in call order, and whether calls to
    ``additional_tools`` are left for the caller; ``None`` while still waiting.
    Calls that completed before the pause keep their results and do not run again.
    """
    verdicts, answered = _match_decisions(state, pending)
    open_requests = [r for r in pending.requests if r.id not in answered]
    declined: dict[str, str] = {}
    unanswered: set[str] = set()
    if state.decline_pending:
        # The caller moved on: nothing of the batch runs any more (whatever it holds,
        # a new message always leads somewhere), and every call still open is
        # declined, so history stays valid.
        declined = {r.function_call.call_id: _declined_note(r) for r in open_requests}
        unanswered = {
            r.function_call.call_id for r in open_requests if isinstance(r, UserInputRequestContent)
        }
        done = {r.call_id for r in pending.completed}
        for call in pending.calls:
            if call.call_id not in declined and call.call_id not in done:
                declined[call.call_id] = _MOVED_ON
        open_requests = []
    if open_requests:
        state.paused = PausedRun(
            calls=pending.calls,
            requests=open_requests,
            completed=pending.completed,
            answers={cid: dict(a) for cid, a in state.answers.items()},
        )
        state.produced.append(Message("assistant", tuple(open_requests)))
        return None
    for call_id, verdict in verdicts.items():
        if not verdict.approved:
            reason = verdict.reason
            declined[call_id] = "The user rejected this call." + (
                f" Reason: {reason}" if reason else ""
            )
    declared = declared_only_names(state.config)
    answered_calls = [c for c in pending.calls if c.name not in declared]
    completed = {r.call_id: r for r in pending.completed}
    to_run = [c for c in answered_calls if c.call_id not in declined and c.call_id not in completed]
    state.approved = frozenset(cid for cid, v in verdicts.items() if v.approved)
    # A tool that went away since the pause is an error result, not an exception that
    # would end every answer to this pause the same way.
    outcomes_run = await run_batch(state, to_run, refuse_unknown=False)
    ran = dict(zip((c.call_id for c in to_run), outcomes_run, strict=True))
    outcomes: list[Outcome] = []
    for call in answered_calls:
        outcome = ran.get(call.call_id)
        if outcome is None:
            if call.call_id in completed:
                result: FunctionResultContent = completed[call.call_id]
                outcome = Outcome(result, result.error is not None, False)
            else:
                kind = "unanswered" if call.call_id in unanswered else "rejected"
                outcome = error_outcome(call, declined[call.call_id], kind)
        outcomes.append(outcome)
    return answered_calls, outcomes, len(answered_calls) < len(pending.calls)
