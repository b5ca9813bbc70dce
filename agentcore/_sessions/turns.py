"""One run at a time per session: later runs wait their turn, in arrival order.

A plain dict of waiting lines instead of a lock per session: an uncontended run
costs one dict entry and never yields to the event loop, and nothing outlives the
last run of a session.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio

if TYPE_CHECKING:
    import logging

__all__ = ["WAIT_WARNING_SECONDS", "SessionTurns", "Turn"]

WAIT_WARNING_SECONDS = 5.0
"""How long a run waits for its session's turn before a warning says why it waits."""


def _log() -> logging.Logger:
    """The ``agentcore`` logger; ``logging`` loads only when a run must warn (it costs
    about 5 ms of ``import agentcore``, which most programs never spend)."""
    import logging

    return logging.getLogger("agentcore")


class SessionTurns:
    """Serializes runs that share a session id."""

    __slots__ = ("_lines",)

    def __init__(self) -> None:
        # session id -> runs waiting for it (the running one is not in the line);
        # None while one run is running and nobody waits (no list per run).
        self._lines: dict[str, list[anyio.Event] | None] = {}

    def try_enter(self, session_id: str) -> bool:
        """Take the turn if the session is free (no await); else ``enter`` must wait."""
        if session_id in self._lines:
            return False
        self._lines[session_id] = None
        return True

    async def enter(self, session_id: str) -> None:
        """Wait until no other run of this session is running, then take the turn."""
        if self.try_enter(session_id):
            return
        line = self._lines[session_id]
        if line is None:
            line = self._lines[session_id] = []
        turn = anyio.Event()
        line.append(turn)
        try:
            with anyio.move_on_after(WAIT_WARNING_SECONDS):
                await turn.wait()
            if not turn.is_set():
                _log().warning(
                    "a run of session %s is waiting: the session is still held by another "
                    "run after %s s. If that is a streaming run, its stream is still open: "
                    "read it to the end, close it (await stream.aclose(), or async with "
                    "stream), or drop it",
                    session_id,
                    WAIT_WARNING_SECONDS,
                )
                await turn.wait()
        except BaseException:
            if turn.is_set():
                self.leave(session_id)  # the turn was handed over: pass it on
            else:
                line.remove(turn)
                if not line:
                    self._lines[session_id] = None
            raise

    def leave(self, session_id: str) -> None:
        """End this run's turn and hand it to the next waiting run, if any."""
        line = self._lines[session_id]
        if line:
            line.pop(0).set()
            if not line:
                self._lines[session_id] = None
        else:
            del self._lines[session_id]

    def busy(self, session_id: str) -> bool:
        """Whether a run of this session is running now."""
        return session_id in self._lines


class Turn:
    """One run's turn on a session, released once: by the run when it ends, or when
    the stream of a streaming run is dropped unread (whichever comes first)."""

    __slots__ = ("_session_id", "_turns")

    def __init__(self, turns: SessionTurns, session_id: str) -> None:
        self._turns: SessionTurns | None = turns
        self._session_id = session_id

    def release(self) -> None:
        """Hand the session to the next waiting run (once; later calls do nothing)."""
        turns, self._turns = self._turns, None
        if turns is not None:
            turns.leave(self._session_id)
