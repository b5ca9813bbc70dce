"""Output guards on a stream: hold back a window of text until it passes, then release it.

The text of each assistant message is checked as a whole every time enough of it is
pending, and only the part at least ``window`` characters behind the newest text is
released; so a phrase up to ``window`` characters long is always seen whole before any
of it goes out. Non-text updates (tool calls, usage, the finish) first flush the held
text through a final check. Guards that are not incremental hold the whole message.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from typing import Generic, TypeVar

import anyio
import attrs

from agentcore import AgentResponseUpdate, ChatResponseUpdate, ResponseStream, TextContent
from agentcore_contrib.guardrails._base import GuardrailViolation, TextGuard, run_text_guards

__all__ = ["guard_stream"]

U = TypeVar("U", ChatResponseUpdate, AgentResponseUpdate)
F = TypeVar("F")


def _plain_text(content: object) -> bool:
    return isinstance(content, TextContent) and not content.annotations


class _Segment(Generic[U]):
    """The text of one message seen so far: what went out, and what is held."""

    __slots__ = ("emitted", "guarded", "message_id", "pending", "role", "template")

    def __init__(self, template: U) -> None:
        self.template: U = template
        self.role: str = template.role or "assistant"
        self.message_id: str | None = template.message_id
        self.guarded: bool = self.role == "assistant"
        self.emitted: str = ""
        self.pending: str = ""


class _Holdback(Generic[U]):
    def __init__(self, guards: Sequence[TextGuard], window: int) -> None:
        self.guards = guards
        self.window = window
        self.incremental = all(getattr(g, "incremental", False) for g in guards)
        self.segment: _Segment[U] | None = None
        self.template: U | None = None
        self.modified = False

    def _starts_new(self, segment: _Segment[U], update: U) -> bool:
        role, message_id = update.role, update.message_id
        return (role is not None and role != segment.role) or (
            message_id is not None
            and segment.message_id is not None
            and message_id != segment.message_id
        )

    async def feed(self, update: U) -> list[U]:
        contents = update.contents
        if not contents and update.finish_reason is None:
            return [update]  # an event or bare metadata: nothing to hold back
        out: list[U] = []
        segment = self.segment
        if segment is not None and self._starts_new(segment, update):
            out += await self.flush()
            segment = None
        texts = [c for c in contents if _plain_text(c)]
        others = tuple(c for c in contents if not _plain_text(c))
        if texts:
            if segment is None:
                segment = self.segment = _Segment(update)
                self.template = update
            segment.pending += "".join(c.text for c in texts if isinstance(c, TextContent))
        if others or update.finish_reason is not None:
            out += await self.flush()
            out.append(attrs.evolve(update, contents=others))
        elif segment is not None and (
            not segment.guarded or len(segment.pending) >= max(2 * self.window, 1)
        ):
            out += await self.release(segment, final=False)
        return out

    async def release(self, segment: _Segment[U], *, final: bool) -> list[U]:
        if segment.guarded:
            if not (final or self.incremental):
                return []
            full = segment.emitted + segment.pending
            checked = await run_text_guards(self.guards, full, "output")
            if checked != full:
                self.modified = True
                if not checked.startswith(segment.emitted):
                    raise GuardrailViolation(
                        "holdback",
                        "a redaction reached text already sent; raise holdback_chars",
                        stage="output",
                    )
                segment.pending = checked[len(segment.emitted) :]
        keep = 0 if final or not segment.guarded else self.window
        cut = max(len(segment.pending) - keep, 0)
        text, segment.pending = segment.pending[:cut], segment.pending[cut:]
        if not text:
            return []
        segment.emitted += text
        return [attrs.evolve(segment.template, contents=(TextContent(text),), finish_reason=None)]

    async def flush(self) -> list[U]:
        segment, self.segment = self.segment, None
        if segment is None:
            return []
        return await self.release(segment, final=True)


def guard_stream(
    stream: ResponseStream[U, F],
    guards: Sequence[TextGuard],
    *,
    window: int,
    fold: Callable[[Sequence[U]], F],
    on_violation: Callable[[GuardrailViolation, U | None], Awaitable[U | None]],
) -> ResponseStream[U, F]:
    """``stream`` with ``guards`` applied to its assistant text as it flows.

    On a block the source is closed and ``on_violation(violation, template)`` either
    raises or returns a last update to send instead of the held text.
    """
    holdback: _Holdback[U] = _Holdback(guards, window)
    # What went out, for the final value of a stream whose text a guard changed.
    released: list[U] = []

    async def updates() -> AsyncGenerator[U, None]:
        iterator = stream.__aiter__()
        blocked: GuardrailViolation | None = None
        try:
            async for update in iterator:
                for out in await holdback.feed(update):
                    released.append(out)
                    yield out
            for out in await holdback.flush():
                released.append(out)
                yield out
        except GuardrailViolation as violation:
            blocked = violation
        finally:
            with anyio.CancelScope(shield=True):
                await iterator.aclose()
        if blocked is not None:
            holdback.modified = True
            replacement = await on_violation(blocked, holdback.template)
            if replacement is not None:
                released.append(replacement)
                yield replacement

    async def final() -> F:
        # Read unchanged to the end: the inner stream's own final value, unless a
        # guard changed the text (then the fold of the text that went out).
        if holdback.modified:
            return fold(released)
        return await stream.get_final_response()

    return ResponseStream(updates(), finalizer=fold, final=final)
