"""Repairing a transcript so every function call has its result before a request.

History can arrive broken: a run paused or failed after the model made calls, or a
caller supplied results late. Providers reject such requests, so the loop repairs the
transcript once at the start of a run: late results move up beside their calls, a
call with no result gets an error result, duplicates are dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import attrs

from agentcore._types.contents import (
    FunctionCallContent,
    FunctionResultContent,
)
from agentcore._types.messages import Message

if TYPE_CHECKING:
    from agentcore._loop.state import LoopState


def missing_result(call_id: str) -> FunctionResultContent:
    return FunctionResultContent(
        call_id, result="No result was provided for this call.", error="missing result"
    )


def needs_repair(transcript: list[Message]) -> bool:
    """Whether some results are missing, out of place or repeated."""
    block: set[str] | None = None  # the calls of the turn the tool messages follow
    waiting: set[str] = set()
    for message in transcript:
        if message.role == "tool":
            if block is None:
                return True
            for content in message.contents:
                if isinstance(content, FunctionResultContent):
                    if content.call_id not in waiting:
                        return True
                    waiting.discard(content.call_id)
            continue
        if waiting:
            return True
        block = None
        if message.role == "assistant":
            called = {c.call_id for c in message.contents if isinstance(c, FunctionCallContent)}
            if called:
                block, waiting = called, set(called)
    return bool(waiting)


def repair_history(transcript: list[Message]) -> None:
    """Put every call's result in the tool messages right after its assistant turn.

    A result that arrived later (a caller's answer after a new user message) moves
    up; a call without one gets an error result; a second result for a call is
    dropped. Providers reject any other shape.
    """
    if not needs_repair(transcript):
        return
    found: dict[str, FunctionResultContent] = {}
    for message in transcript:
        if message.role == "tool":
            for content in message.contents:
                if isinstance(content, FunctionResultContent):
                    found.setdefault(content.call_id, content)
    placed: set[str] = set()
    repaired: list[Message] = []

    def keep(message: Message) -> None:
        contents = tuple(
            c
            for c in message.contents
            if not (isinstance(c, FunctionResultContent) and c.call_id in placed)
        )
        placed.update(c.call_id for c in contents if isinstance(c, FunctionResultContent))
        if len(contents) == len(message.contents):
            repaired.append(message)
        elif contents:
            repaired.append(attrs.evolve(message, contents=contents))

    position, count = 0, len(transcript)
    while position < count:
        message = transcript[position]
        position += 1
        if message.role == "tool":
            keep(message)
            continue
        repaired.append(message)
        if message.role != "assistant":
            continue
        called = [c.call_id for c in message.contents if isinstance(c, FunctionCallContent)]
        if not called:
            continue
        while position < count and transcript[position].role == "tool":
            keep(transcript[position])
            position += 1
        missing = [cid for cid in called if cid not in placed]
        if missing:
            repaired.append(
                Message("tool", tuple(found.get(cid) or missing_result(cid) for cid in missing))
            )
            placed.update(missing)
    transcript[:] = repaired


def place_results(state: LoopState, calls: Sequence[FunctionCallContent], message: Message) -> None:
    """Add the results of a resumed batch right after the turn that made the calls."""
    transcript = state.transcript
    ids = {c.call_id for c in calls}
    for position in range(len(transcript) - 1, -1, -1):
        turn = transcript[position]
        if turn.role == "assistant" and any(
            isinstance(c, FunctionCallContent) and c.call_id in ids for c in turn.contents
        ):
            position += 1
            while position < len(transcript) and transcript[position].role == "tool":
                position += 1
            transcript.insert(position, message)
            return
    if not state.options.get("conversation_id"):
        # No stored history holds the calls (and no service keeps it): restate them.
        transcript.append(Message("assistant", tuple(calls)))
    transcript.append(message)
