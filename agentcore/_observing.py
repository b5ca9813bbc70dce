"""Delivering observer events: the run never waits on, or fails because of, an observer."""

from __future__ import annotations

import inspect
from collections.abc import Sequence

__all__ = ["ObserverSet"]


class ObserverSet(tuple[object, ...]):
    """Delivers events to observers, isolating the run from their failures.

    Observers are called in order; each may define any of the hooks, sync or async.
    A tuple, so that ``if observers:`` (asked several times per run) costs nothing.
    """

    __slots__ = ()

    def __new__(cls, observers: Sequence[object] = ()) -> ObserverSet:
        return super().__new__(cls, observers)

    async def notify(self, hook: str, event: object) -> None:
        """Call ``hook`` of every observer that has it; log and swallow what they raise."""
        for observer in self:
            method = getattr(observer, hook, None)
            if method is None:
                continue
            try:
                outcome = method(event)
                if inspect.isawaitable(outcome):
                    await outcome
            except Exception:
                import logging  # only when an observer fails

                logging.getLogger("agentcore.observers").exception(
                    "observer %r failed in %s; the run goes on", observer, hook
                )
