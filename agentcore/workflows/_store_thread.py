"""The SQLite store's own thread: the one user of its connection.

Every call of a :class:`~agentcore.workflows.SqliteCheckpointStore` runs here, in the
order the calls were made (SQLite's rule of one connection per thread, as aiosqlite
keeps it). The caller waits for its call shielded from cancellation, as with
``anyio.to_thread.run_sync``: a write that was started completes, and a cancellation
lands at the caller's next checkpoint. The thread wakes the caller through its event
loop's own thread-safe entry (asyncio's ``call_soon_threadsafe``, trio's token), which
sets an ``anyio.Event``; the thread never waits for the loop.

Why not ``anyio.to_thread.run_sync``: its call suspends the caller three times (a
checkpoint, its capacity limiter's checkpoint, the result), and each resumption runs
through the whole coroutine stack of the run that saves (a superstep's barrier sits
under the run, its stream and its cancel scopes); this call suspends once.
Measured in docs/performance.md ("SQLite: the store's own thread").
"""

from __future__ import annotations

import contextlib
import sys
import threading
import weakref
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast

import anyio

if TYPE_CHECKING:
    from queue import SimpleQueue

__all__ = ["StoreThread"]

_T = TypeVar("_T")


class _Call(Generic[_T]):
    """One call: the function, its arguments, how to wake its caller, its outcome."""

    __slots__ = ("args", "error", "func", "value", "wake")

    def __init__(self, func: Callable[..., _T], args: tuple[Any, ...], wake: Callable[[], Any]):
        self.func = func
        self.args = args
        self.wake = wake
        self.value: _T | None = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.value = self.func(*self.args)
        except BaseException as error:  # handed to the caller, raised there
            self.error = error
        # a closed asyncio loop or a finished trio run (both RuntimeError): nobody waits
        with contextlib.suppress(RuntimeError):
            self.wake()


def _serve(calls: SimpleQueue[_Call[Any] | None]) -> None:
    """The thread's body: run the calls in order until the ``None`` that ends it. It
    holds no reference to its store, so a store dropped without ``close()`` is
    collected and its finalizer ends the thread."""
    while (call := calls.get()) is not None:
        call.run()
        del call  # not kept while waiting: it holds the store's bound method


def _waker(done: anyio.Event) -> Callable[[], Any]:
    """Set ``done`` from another thread, through the current event loop's own
    thread-safe entry (no wait for the loop)."""
    asyncio = sys.modules.get("asyncio")  # no asyncio loop runs unless it is imported
    if asyncio is not None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            pass
        else:
            return partial(loop.call_soon_threadsafe, done.set)
    import trio  # anyio's other backend: running, so already imported

    return partial(trio.lowlevel.current_trio_token().run_sync_soon, done.set)


class StoreThread:
    """A thread, started by the first call, that runs calls one at a time in order."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._calls: SimpleQueue[_Call[Any] | None] | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._finalizer: weakref.finalize[..., StoreThread] | None = None

    def _start(self) -> SimpleQueue[_Call[Any] | None]:
        with self._lock:
            if self._calls is None:
                from queue import SimpleQueue  # loads with a store's first call, not its import

                calls: SimpleQueue[_Call[Any] | None] = SimpleQueue()
                thread = threading.Thread(target=_serve, args=(calls,), name=self.name, daemon=True)
                thread.start()
                self._finalizer = weakref.finalize(self, calls.put, None)
                self._calls, self._thread = calls, thread
            return self._calls

    async def call(self, func: Callable[..., _T], *args: Any) -> _T:
        """``func(*args)`` in the thread, after every call made before it; its result,
        or its exception raised here. Waits shielded from cancellation."""
        calls = self._calls or self._start()
        done = anyio.Event()
        call = _Call(func, args, _waker(done))
        with anyio.CancelScope(shield=True):
            calls.put(call)
            await done.wait()
        if call.error is not None:
            raise call.error
        return cast("_T", call.value)  # set by the call, which returned

    def stop(self) -> None:
        """End the thread once the calls already made have run, and wait for it."""
        with self._lock:
            calls, thread, finalizer = self._calls, self._thread, self._finalizer
            self._calls = self._thread = self._finalizer = None
        if finalizer is not None:
            finalizer.detach()
        if calls is not None and thread is not None:
            calls.put(None)
            if thread is not threading.current_thread():
                thread.join()
