"""Per-run state shared by every scope and tool of one run."""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Callable, Iterator, MutableMapping, Sequence
from typing import TYPE_CHECKING, Any

from agentcore._types.responses import CustomEvent
from agentcore._types.usage import Usage

if TYPE_CHECKING:
    from agentcore._replay import DurableRun
    from agentcore._sessions.ledger import TranscriptLedger
    from agentcore._sessions.session import AgentSession

__all__ = ["RunContext", "RunLocals", "bind_deps"]


_run_pid = os.getpid()
_run_prefix = os.urandom(6).hex()
_run_numbers = itertools.count(1)


def new_run_id() -> str:
    """A run id unique across processes: random per process, counted within one.

    A forked child notices the new pid and draws its own prefix (no fork hook is
    registered: importing agentcore changes nothing global).
    """
    global _run_pid, _run_prefix, _run_numbers
    pid = os.getpid()
    if pid != _run_pid:
        _run_pid, _run_prefix, _run_numbers = pid, os.urandom(6).hex(), itertools.count(1)
    return f"run_{_run_prefix}_{next(_run_numbers):x}"


_NO_LOCALS: dict[str, Any] = {}  # never written to


class RunLocals(MutableMapping[str, Any]):
    """Run-local values: shared by the middleware and tools of one run, isolated
    between runs, and kept with the run state when a run pauses.

    Values must be JSON-serializable; setting one that is not raises ``TypeError``
    at once, naming the key.
    """

    __slots__ = ("_data",)

    def __init__(self, data: dict[str, Any] | None = None) -> None:
        # A shared empty dict until the first value is set (most runs set none).
        self._data: dict[str, Any] = _NO_LOCALS if data is None else data

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __setitem__(self, key: str, value: Any) -> None:
        try:
            json.dumps(value)
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"run-local value {key!r} must be JSON-serializable so a paused run can be "
                f"saved: {exc}"
            ) from None
        if self._data is _NO_LOCALS:
            self._data = {}
        self._data[key] = value

    def __delitem__(self, key: str) -> None:
        del self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return f"RunLocals({self._data!r})"

    def to_dict(self) -> dict[str, Any]:
        """A copy of the values, for serialization."""
        return dict(self._data)


class RunContext:
    """The state of one run: its id, run-local values, the session, and emitted events.

    Every context of a run (``AgentContext``, ``ChatContext``,
    ``FunctionInvocationContext``) and every ``ToolContext`` points at the same
    ``RunContext`` as ``.run``.
    """

    __slots__ = (
        "_cache",
        "_deps",
        "_events",
        "_extra_usage",
        "_ledger",
        "_locals",
        "_saved",
        "_sink",
        "durable",
        "run_id",
        "session",
    )

    _deps: Any  # set only by bind_deps

    def __init__(
        self,
        *,
        session: AgentSession | None = None,
        locals: dict[str, Any] | None = None,
        run_id: str | None = None,
    ) -> None:
        self.run_id: str = run_id or new_run_id()
        self.session: AgentSession | None = session
        self._saved = locals
        self._locals: RunLocals | None = None  # made on first use: most runs keep none
        # Created on first use: most runs emit nothing and spend no tokens elsewhere.
        self._events: list[CustomEvent] | None = None
        self._extra_usage: list[Usage] | None = None
        self._sink: Callable[[CustomEvent], None] | None = None
        # Set by a durable wrapper (agentcore.durable) for a run that an engine replays.
        self.durable: DurableRun | None = None
        self._cache: dict[str, Any] | None = None
        # Set by the agent when the transcript holds history or context messages.
        self._ledger: TranscriptLedger | None = None
        # ``_deps`` is left unset (no work for a run without deps): see bind_deps.

    @property
    def has_deps(self) -> bool:
        """Whether the call that started (or resumed) this run gave ``deps=``."""
        return hasattr(self, "_deps")

    @property
    def deps(self) -> Any:
        """The dependencies the call that started (or resumed) this run gave with
        ``deps=``: a database handle, an HTTP client, the current user.

        They live in memory for this call only: never saved with a paused run, so a
        resumed run has the ``deps=`` of the call that resumes it. Raises
        ``LookupError`` when the call gave none.
        """
        try:
            return self._deps
        except AttributeError:
            raise LookupError(
                "this run has no deps: pass them to the call that starts or resumes the "
                "run, e.g. agent.run(..., deps=...)"
            ) from None

    @property
    def locals(self) -> RunLocals:
        """The run-local values (a mapping; values must be JSON-serializable)."""
        run_locals = self._locals
        if run_locals is None:
            run_locals = self._locals = RunLocals(self._saved)
        return run_locals

    def locals_dict(self) -> dict[str, Any]:
        """A copy of the run-local values, for saving a paused run."""
        if self._locals is None:
            return dict(self._saved) if self._saved else {}
        return self._locals.to_dict()

    @property
    def cache(self) -> dict[str, Any]:
        """A run-scoped scratch dict for middleware (token counts, snapshots).

        Unlike :attr:`locals` it takes any value and is **not** saved with a paused run:
        a resumed run starts with an empty cache.
        """
        cache = self._cache
        if cache is None:
            cache = self._cache = {}
        return cache

    @property
    def events(self) -> Sequence[CustomEvent]:
        """The custom events emitted so far, in order."""
        return self._events if self._events is not None else ()

    @property
    def extra_usage(self) -> Sequence[Usage]:
        """Usage added with :meth:`add_usage` so far."""
        return self._extra_usage if self._extra_usage is not None else ()

    def get(self, key: str, default: Any = None) -> Any:
        """A run-local value, or ``default``."""
        return self.locals.get(key, default)

    def set(self, key: str, value: Any) -> None:
        """Set a run-local value (must be JSON-serializable)."""
        self.locals[key] = value

    def delete(self, key: str) -> None:
        """Remove a run-local value if present."""
        self.locals.pop(key, None)

    def add_usage(self, usage: Usage) -> None:
        """Count tokens spent on this run's behalf outside its own model calls
        (for example by an agent used as a tool); they add to the run's usage."""
        if self._extra_usage is None:
            self._extra_usage = []
        self._extra_usage.append(usage)

    async def emit(self, event: CustomEvent | Any, *, name: str = "custom") -> None:
        """Send a custom event to the caller.

        In a streaming run it reaches the stream as an update whose ``event`` is
        set; in a non-streaming run it is collected on ``response.events``.
        A plain value is wrapped as ``CustomEvent(name, value)``.
        """
        if not isinstance(event, CustomEvent):
            event = CustomEvent(name=name, data=event)
        if self._events is None:
            self._events = []
        self._events.append(event)
        sink = self._sink
        if sink is not None:
            sink(event)


def bind_deps(run: RunContext, deps: object) -> None:
    """Give ``run`` the caller's dependencies (read back as ``run.deps``)."""
    run._deps = deps  # pyright: ignore[reportPrivateUsage]  # the one writer of the slot
