"""A standalone tool loop's input read for a paused batch and the caller's decisions.

An :class:`~agentcore.Agent` keeps a paused run in its session. A
:class:`~agentcore.ToolLoop` has no session: its caller passes the conversation
back, with the approval requests the loop returned and the caller's responses. The
loop finds the paused batch there, acts on the decisions, and sends the model the
conversation without these run-state contents.
"""

from __future__ import annotations

from collections.abc import Sequence

from agentcore._sessions.history import history_view
from agentcore._sessions.session import PausedRun, PendingRequest
from agentcore._types.contents import (
    FunctionApprovalRequestContent,
    FunctionApprovalResponseContent,
    FunctionCallContent,
    FunctionResultContent,
    UserInputRequestContent,
    UserInputResponseContent,
)
from agentcore._types.messages import Message
from agentcore.errors import RunStateError

__all__ = ["paused_in_messages"]

Decision = FunctionApprovalResponseContent | UserInputResponseContent


def paused_in_messages(
    messages: Sequence[Message],
) -> tuple[list[Message], PausedRun | None, list[Decision]]:
    """The conversation without run state, the paused batch it holds, the decisions.

    The paused batch is the assistant turn whose calls have open requests (requests
    for calls that have no result yet). Decisions without such a batch raise
    :class:`~agentcore.errors.RunStateError`.
    """
    decisions: list[Decision] = [
        c
        for m in messages
        for c in m.contents
        if isinstance(c, (FunctionApprovalResponseContent, UserInputResponseContent))
    ]
    without_decisions = history_view(messages) if decisions else list(messages)
    answered = {
        c.call_id for m in messages for c in m.contents if isinstance(c, FunctionResultContent)
    }
    requests: list[PendingRequest] = [
        c
        for m in messages
        for c in m.contents
        if isinstance(c, (FunctionApprovalRequestContent, UserInputRequestContent))
        and c.function_call.call_id not in answered
    ]
    if not requests:
        if decisions:
            raise RunStateError(
                "the input holds approval or user-input responses, but no request they "
                "answer: pass the conversation with the messages the loop returned (they "
                "hold the requests), then the responses"
            )
        return without_decisions, None, []
    transcript = history_view(without_decisions)
    first = requests[0].function_call.call_id
    batch: list[FunctionCallContent] = []
    for message in reversed(transcript):
        called = [c for c in message.contents if isinstance(c, FunctionCallContent)]
        if any(c.call_id == first for c in called):
            batch = [c for c in called if c.call_id not in answered]
            break
    if not batch:
        batch = [r.function_call for r in requests]  # the calls themselves were left out
    return transcript, PausedRun(calls=batch, requests=requests), decisions
