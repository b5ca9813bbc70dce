"""The pieces of a streaming agent run that need no run: the finalizer of its stream
and the record of its committed response.

The run itself (``AgentRun.open_stream`` in ``run.py``) is one :class:`ResponseStream`.
Its source prepares the run, delegates to the tool loop (which delegates to each model
stream), then commits; each chat update becomes an agent update on the way out, and
custom events are injected in order. Read unchanged, the stream's final value is the
committed response.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from typing import Any

import attrs

from agentcore._sessions.turns import Turn
from agentcore._streams.reader import Core
from agentcore._types.responses import AgentResponse, AgentResponseUpdate
from agentcore.errors import RunStateError
from agentcore.structured import parse_answer

__all__ = ["StreamRecord", "reading", "stream_finalizer"]


def _no_stream() -> None:
    return None


def stream_finalizer(
    response_format: Any, convert: Callable[[Any], AgentResponseUpdate]
) -> Callable[[Sequence[Any]], AgentResponse[Any]]:
    """The final value of a stream that was closed early or transformed by agent
    middleware: the fold of what was read, with structured output parsed from it.

    ``updates`` are what the consumer read: the loop's (chat) updates of a stream
    closed early, or the agent updates of a transformed one; ``convert`` makes
    each an agent update (agent updates pass unchanged). The finalizer holds the
    run's ``response_format``, not its context: the context holds the stream, and
    a cycle between them would be left for the garbage collector.
    """

    def finalize(updates: Sequence[Any]) -> AgentResponse[Any]:
        folded = AgentResponse.from_updates(map(convert, updates))
        if response_format is None or folded.approval_requests:
            return folded
        value = parse_answer(response_format, folded.messages)
        if value is None:
            return folded
        return attrs.evolve(folded, value=value)

    return finalize


class StreamRecord:
    """A streaming run's stream (weakly), the response it committed, and its session turn.

    The stream holds the record; the run's generator (the stream's source) reaches it
    and the stream only weakly. So a stream left open and dropped is freed at once by
    reference counting, not by the cycle collector, and its record with it, which
    releases the session (the run's own ``finally`` comes later, when the event loop
    finalizes the abandoned generator).
    """

    __slots__ = ("__weakref__", "core", "response", "turn")

    def __init__(self) -> None:
        self.core: Callable[[], Core[Any] | None] = _no_stream
        self.response: AgentResponse[Any] | None = None
        self.turn: Turn | None = None

    def __del__(self) -> None:
        turn = self.turn
        if turn is not None:
            turn.release()

    def committed(self) -> AgentResponse[Any]:
        """The committed response (the stream's final value when read unchanged)."""
        if self.response is None:  # pragma: no cover  # the source ends only after committing
            raise RunStateError("the run ended without committing a response")
        return self.response


def reading(recorded: weakref.ref[StreamRecord]) -> StreamRecord:
    """The record of a stream that is being read (so it is alive: the stream holds it)."""
    record = recorded()
    if record is None:  # pragma: no cover  # the stream is on the stack, reading its source
        raise RunStateError("the run's stream was dropped while it was being read")
    return record
