"""Checking a caller's input against the conversation before a run stores any of it.

History is appended to, never rewritten, so what a run stores must keep it valid and
in order. Input a provider would reject (a function call in a user message, a result
for a call nobody made) is refused with a clear error before anything is recorded,
and results owed to the calls that end the stored history come first in the turn,
before any new user message.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agentcore._loop.history_repair import repair_history
from agentcore._sessions.history import store_key
from agentcore._sessions.session import AgentSession, PausedRun, history_store
from agentcore._types.contents import (
    CompactionContent,
    FunctionApprovalResponseContent,
    FunctionCallContent,
    FunctionResultContent,
    UserInputResponseContent,
)
from agentcore._types.messages import Message
from agentcore.errors import RunStateError

__all__ = [
    "check_paused_tools",
    "check_session_store",
    "checked_input",
    "live_pause",
]


def live_pause(
    history: Sequence[Message],
    pending: PausedRun | None,
    messages: Sequence[Message],
    covered: frozenset[str] = frozenset(),
) -> PausedRun | None:
    """The session's paused run, unless the stored history already answers its calls.

    That happens with a copy of a session saved before the pause was resumed or
    moved past: the decision was spent. Answering such a pause again raises
    :class:`~agentcore.errors.RunStateError` (the call must not run twice); any
    other input goes on from the stored history, the stale pause dropped. A call a
    compaction record ``covered`` (summarized or dropped) was made and answered.
    """
    if pending is None or not (history or covered):
        return pending
    ids = {c.call_id for c in pending.calls}
    if not ids.intersection(covered) and not any(
        isinstance(c, FunctionResultContent) and c.call_id in ids
        for m in history
        if m.role == "tool"
        for c in m.contents
    ):
        return pending
    if any(
        isinstance(c, (FunctionApprovalResponseContent, UserInputResponseContent))
        for m in messages
        for c in m.contents
    ):
        raise RunStateError(
            "this pause was already answered: the session's stored history holds the "
            "results of its calls (this session object is an older copy, saved before "
            "the pause was resumed or moved past). Load the current session; a new "
            "message with this one goes on from the stored history"
        )
    return None


def check_session_store(session: AgentSession, store: object, agent_name: str | None) -> None:
    """Refuse a session whose history lives in another store than ``store``.

    A session remembers (in memory, not when saved) the store its history went to;
    an agent with another store, or none, would not see that conversation and would
    carry on silently from nothing. Two store objects on the same database (equal
    ``store_key``) are the same store.
    """
    used = history_store(session)
    if used is None or used[0] is store or session.service_conversation_id:
        return
    if store is not None and store_key(used[0]) == store_key(store):
        return  # another object on the same database (SQLite file, PostgreSQL table)
    this = f"agent {agent_name!r}" if agent_name else "this agent"
    holder = f"agent {used[1]!r}" if used[1] else "another agent"
    has = f"keeps history in {type(store).__name__}" if store is not None else "has no history"
    raise RunStateError(
        f"this session's history is in the {type(used[0]).__name__} of {holder}, but {this} "
        f"{has}, so it would not see the conversation; start a session of this agent "
        "(agent.create_session()), or give both agents the same history store"
    )


def check_paused_tools(
    paused: PausedRun,
    tools: Sequence[Any],
    decisions: Sequence[FunctionApprovalResponseContent | UserInputResponseContent],
) -> None:
    """Refuse to resume ``paused`` on tools that lack a call the caller approved or answered.

    That call would be told "no such tool" instead of running, so this is raised before
    anything runs and the session keeps its paused run. A rejected call needs no tool
    (it is told it was rejected), so a rejection always goes through.
    """
    going = {
        d.id for d in decisions if not isinstance(d, FunctionApprovalResponseContent) or d.approved
    }
    names = {name for tool in tools if (name := getattr(tool, "name", None)) is not None}
    for request in paused.requests:
        call = request.function_call
        if request.id in going and call.name not in names:
            available = ", ".join(sorted(names)) or "none"
            raise RunStateError(
                f"the session's paused run waits to run tool {call.name!r} (call "
                f"{call.call_id!r}), but this run has no tool of that name (its tools: "
                f"{available}); resume it on the agent that paused it, or give this agent "
                f"the {call.name!r} tool"
            )


def checked_input(
    history: Sequence[Message],
    messages: list[Message],
    *,
    service_history: bool,
    paused: bool,
    covered: frozenset[str] = frozenset(),
) -> list[Message]:
    """``messages`` checked, with results owed to the history's last calls first.

    Raises :class:`~agentcore.errors.RunStateError` for a call or a result outside
    its place (calls belong to assistant messages, results to tool messages), for a
    call whose id an earlier call has, and for a result that answers no call made
    before it or a call already answered. ``service_history`` says the
    service keeps the conversation, so calls made earlier are not known here;
    ``paused`` that the history's last calls wait for the caller's decisions (the
    resume answers them). ``covered`` are calls compaction records hide: made and
    answered. A compaction record in the input is refused: only the kernel writes them.
    """
    if not messages:
        return messages
    # The ids of the calls made and answered before, gathered only if the input holds
    # calls or results (a plain user message never needs them).
    issued: set[str] | None = None
    answered: set[str] = set()
    tool_turns = False  # whether the input holds calls or tool messages
    for position, message in enumerate(messages):
        if message.role == "tool":
            tool_turns = True
        for content in message.contents:
            if isinstance(content, FunctionCallContent):
                if message.role != "assistant":
                    raise RunStateError(
                        f"input message {position} is a {message.role!r} message holding a "
                        f"function call ({content.name!r}, call id {content.call_id!r}); only "
                        "assistant messages make calls: put it in Message('assistant', [...]) "
                        "or leave it out"
                    )
                tool_turns = True
                if issued is None:
                    issued, answered = _ids_before(history, messages, position, covered)
                if content.call_id in issued:
                    raise RunStateError(
                        f"input message {position} makes call {content.call_id!r} "
                        f"({content.name!r}), but an earlier message of this conversation "
                        "already made a call with that id; give each call its own id, or "
                        "leave out what the session already holds"
                    )
                issued.add(content.call_id)
            elif isinstance(content, CompactionContent):
                raise RunStateError(
                    f"input message {position} holds a CompactionContent; compaction records "
                    "are written by the agent when it stores a compacted turn, never sent as "
                    "input: leave it out (to pass a stored history on, pass its view: "
                    "agentcore.compaction.compacted_view(messages).messages)"
                )
            elif isinstance(content, FunctionResultContent):
                if message.role != "tool":
                    raise RunStateError(
                        f"input message {position} is a {message.role!r} message holding the "
                        f"result of call {content.call_id!r}; results go in tool messages: "
                        "Message('tool', [result])"
                    )
                if issued is None:
                    issued, answered = _ids_before(history, messages, position, covered)
                if content.call_id not in issued and not service_history:
                    raise RunStateError(
                        f"input message {position} holds a result for call "
                        f"{content.call_id!r}, which no earlier message of this conversation "
                        "made; pass the session that holds the call, or leave the result out"
                    )
                if content.call_id in answered:
                    raise RunStateError(
                        f"input message {position} holds a result for call "
                        f"{content.call_id!r}, which already has one in this conversation "
                        "(a call has exactly one result); leave it out"
                    )
                answered.add(content.call_id)
    if paused:
        return messages
    return _owed_results_first(history, messages, tool_turns)


def _ids_before(
    history: Sequence[Message],
    messages: Sequence[Message],
    position: int,
    covered: frozenset[str] = frozenset(),
) -> tuple[set[str], set[str]]:
    """The ids of the calls made, and of the calls answered, in ``history`` and in
    ``messages`` before ``position`` (``covered`` calls count as both)."""
    made: set[str] = set(covered)
    answered: set[str] = set(covered)
    for message in (*history, *messages[:position]):
        for content in message.contents:
            if isinstance(content, FunctionCallContent):
                made.add(content.call_id)
            elif isinstance(content, FunctionResultContent):
                answered.add(content.call_id)
    return made, answered


def _owed_results_first(
    history: Sequence[Message], messages: list[Message], tool_turns: bool
) -> list[Message]:
    """The input with results for the calls that end ``history`` moved to its front
    (an error result for each call the input does not answer).

    ``tool_turns`` says the input holds calls or tool messages. Without them, and
    with no calls ending the history, there is nothing to move or answer: the usual
    run (a user message after a finished turn) returns here.
    """
    start = len(history)
    while start > 0 and history[start - 1].role == "tool":
        start -= 1
    ends_with_calls = start > 0 and any(
        isinstance(c, FunctionCallContent) for c in history[start - 1].contents
    )
    tail = history[start - 1 :] if ends_with_calls else ()
    if not tail and not tool_turns:
        return messages
    transcript = [*tail, *messages]
    repair_history(transcript)
    if len(transcript) < len(tail) or any(
        a is not b for a, b in zip(transcript, tail, strict=False)
    ):
        return messages  # the stored turn itself is broken: only the request is repaired
    return transcript[len(tail) :]
