"""One MCP connection, owned by one task, and the policy for making it again.

An ``mcp.Client`` holds task groups and cancel scopes, so it must be entered and
left by the same task: entering it in one task and leaving it in another fails
on both backends. The owner task here is the only one that enters or leaves the
client; any task may make calls through it. When the connection breaks (a call
finds it dead, or a stdio server's process ends while nobody is calling), the
owner leaves the dead client and waits until someone needs the server again, then
connects afresh, as often as the :class:`ReconnectPolicy` allows.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable

import anyio
import anyio.abc
import attrs
from mcp import Client

from agentcore.errors import RunStateError, ToolServerError

__all__ = ["Connection", "ReconnectPolicy", "first_leaf"]

_MAX_BACKOFF = 8.0


def first_leaf(exc: BaseException) -> BaseException:
    """The first non-group exception inside ``exc`` (``exc`` itself when it is none)."""
    while True:
        inner: object = getattr(exc, "exceptions", None)  # an exception group (3.10: backport)
        if not isinstance(inner, tuple) or not inner:
            return exc
        first: object = inner[0]  # pyright: ignore[reportUnknownVariableType]  # group members
        if not isinstance(first, BaseException):
            return exc
        exc = first


def _positive_int(_instance: object, attribute: attrs.Attribute[int], value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(
            f"ReconnectPolicy.{attribute.name} must be an int of 1 or more, got {value!r}"
        )


def _non_negative(_instance: object, attribute: attrs.Attribute[float], value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
        raise ValueError(
            f"ReconnectPolicy.{attribute.name} must be a number of seconds (0 or more), "
            f"got {value!r}"
        )


@attrs.frozen
class ReconnectPolicy:
    """How an :class:`~agentcore_mcp.MCPToolset` connects again after losing its server.

    A call (or a run's tool listing) that finds the connection gone connects afresh,
    up to ``attempts`` times, waiting ``backoff`` seconds before the second attempt and
    twice as long before each further one (at most 8 s). A call lost *in flight* is
    sent again on the fresh connection only when the server marks the tool read-only
    or idempotent (``readOnlyHint``/``idempotentHint``); otherwise the model gets an
    error result saying the outcome is unknown. A call the server never received (a
    stdio server already gone, an HTTP server that forgot the session) is always sent
    again.
    """

    attempts: int = attrs.field(default=2, validator=_positive_int)
    """Connections tried per failing call, at least 1."""
    backoff: float = attrs.field(default=0.5, validator=_non_negative)
    """Seconds before the second attempt, doubled for each further one."""

    def delay(self, retry: int) -> float:
        """Seconds to wait before retry number ``retry`` (1 for the first retry)."""
        delay: float = self.backoff * 2.0 ** (retry - 1)
        return min(delay, _MAX_BACKOFF)


class _Link:
    """One connection made by the owner; ``ended`` once the server's side is gone."""

    def __init__(self, wake: Callable[[], None]) -> None:
        self.ended = False
        self._wake = wake

    def end(self) -> None:
        if not self.ended:
            self.ended = True
            self._wake()


class Connection:
    """The owner task of one server's client, and the way calls reach it.

    ``async with connection:`` is reference-counted: the first entry starts the
    owner (and raises :class:`~agentcore.errors.ToolServerError` if the server
    cannot be reached), the last exit closes the client in the owner. Enter and
    leave it in the same task, as with any anyio task group.

    ``make_client(on_end)`` builds a client; a transport that can tell when the server
    has gone calls ``on_end`` then (see ``watched_stdio``).
    """

    def __init__(
        self,
        make_client: Callable[[Callable[[], None]], Client],
        *,
        server: str,
        transport: str,
        connect_timeout: float,
        reconnect: ReconnectPolicy | None,
        on_connected: Callable[[Client], Awaitable[None]],
    ) -> None:
        self._make_client = make_client
        self.server = server
        self.transport = transport
        self.reconnect = reconnect
        self._connect_timeout = connect_timeout
        self._on_connected = on_connected
        self.client: Client | None = None
        self.generation = 0  # counts connections made, so callers can tell a reconnect
        self._link: _Link | None = None
        self._users = 0
        self._group: anyio.abc.TaskGroup | None = None
        self._signal = anyio.Event()
        self._stopping = False
        self._broken = False
        self._want_connect = False
        self._attempt = anyio.Event()
        self._failure: BaseException | None = None
        self._up = False

    @property
    def entered(self) -> bool:
        return self._group is not None

    @property
    def up(self) -> bool:
        """Whether the current client is connected, as far as anything has shown."""
        link = self._link
        return self.client is not None and not self._broken and link is not None and not link.ended

    async def __aenter__(self) -> Connection:
        if self._users == 0:
            group = anyio.create_task_group()
            await group.__aenter__()
            self._stopping = False
            try:
                await group.start(self._own)
            except BaseException as exc:
                # Nothing runs in the group now: leave it (same task) and report.
                await group.__aexit__(None, None, None)
                if isinstance(exc, ToolServerError):
                    raise exc from exc.__cause__
                raise
            self._group = group
        self._users += 1
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self._users -= 1
        if self._users > 0 or self._group is None:
            return
        group, self._group = self._group, None
        self._stopping = True
        self._signal.set()
        await group.__aexit__(None, None, None)

    async def ensure(self) -> Client:
        """The connected client; after a break, connect again as the policy allows.

        Raises :class:`~agentcore.errors.ToolServerError` when no connection could be
        made (or ``reconnect=None`` forbids making one), and
        :class:`~agentcore.errors.RunStateError` outside ``async with``.
        """
        client = self.client
        if client is not None and self.up:
            return client
        if self._group is None:
            raise RunStateError(
                f"the MCP toolset {self.server!r} is not connected; use `async with toolset:` "
                f"or `async with agent:` around the runs that use it"
            )
        policy = self.reconnect
        if policy is None:
            raise self._error(
                "lost its connection, and reconnect=None turns reconnecting off; leave the "
                "toolset and enter it again, or pass reconnect=ReconnectPolicy()",
                self._failure,
            )
        for attempt in range(policy.attempts):
            if attempt:
                await anyio.sleep(policy.delay(attempt))
            client = await self._connect_once()
            if client is not None:
                return client
        raise self._error(f"cannot reconnect ({policy.attempts} attempts)", self._failure)

    async def _connect_once(self) -> Client | None:
        # The owner may still be leaving a dead client: it connects again right after.
        attempt = self._attempt
        if not self._want_connect:
            self._want_connect = True
            self._signal.set()
        await attempt.wait()
        return self.client if self.up else None

    def mark_broken(self, client: Client) -> None:
        """A call found ``client`` dead: the owner leaves it; the next call reconnects."""
        if client is self.client and not self._broken:
            self._broken = True
            self._signal.set()

    def error(self, what: str, cause: BaseException | None) -> ToolServerError:
        """A :class:`~agentcore.errors.ToolServerError` naming this server."""
        return self._error(what, cause)

    def _error(self, what: str, cause: BaseException | None) -> ToolServerError:
        leaf = None if cause is None else first_leaf(cause)
        detail = f": {type(leaf).__name__}: {leaf}" if leaf is not None else ""
        error = ToolServerError(
            f"MCP server {self.server!r} ({self.transport}) {what}{detail}",
            server=self.server,
            transport=self.transport,
        )
        error.__cause__ = leaf
        return error

    async def _wait_signal(self) -> None:
        await self._signal.wait()
        self._signal = anyio.Event()

    async def _own(self, *, task_status: anyio.abc.TaskStatus[None]) -> None:
        first = True
        while not self._stopping:
            if not first and not self._want_connect:
                await self._wait_signal()
                continue
            self._want_connect = False
            self._up = False
            try:
                await self._serve(task_status if first else None)
            except (
                Exception
            ) as exc:  # the owner never raises into the group (it would cancel the user)
                if first and not self._up:
                    error = self._error("cannot be reached", exc)
                    raise error from error.__cause__
                if not self._up:
                    self._failure = exc
                    self._finish_attempt()
                else:
                    self._failure = exc  # why the connection ended, for the next error
            finally:
                self.client = None
                self._link = None
                self._broken = False
            first = False
        self._finish_attempt()  # callers still waiting learn that the toolset closed

    def _finish_attempt(self) -> None:
        attempt, self._attempt = self._attempt, anyio.Event()
        attempt.set()

    async def _serve(self, task_status: anyio.abc.TaskStatus[None] | None) -> None:
        link = _Link(self._signal_set)
        # The deadline covers connecting only; it is lifted once the client is up.
        with anyio.CancelScope(deadline=anyio.current_time() + self._connect_timeout) as scope:
            async with self._make_client(link.end) as client:
                scope.deadline = math.inf
                self._up = True
                self.client = client
                self._link = link
                self.generation += 1
                self._failure = None
                self._finish_attempt()
                if task_status is not None:
                    task_status.started()
                async with anyio.create_task_group() as watchers:
                    watchers.start_soon(_quietly, self._on_connected, client)
                    while not (self._stopping or self._broken or link.ended):
                        await self._wait_signal()
                    watchers.cancel_scope.cancel()
        if not self._up and scope.cancelled_caught:
            raise TimeoutError(f"no connection within {self._connect_timeout} seconds")

    def _signal_set(self) -> None:
        self._signal.set()


async def _quietly(watch: Callable[[Client], Awaitable[None]], client: Client) -> None:
    try:
        await watch(client)
    except Exception:  # a lost watcher only costs list-change updates
        return
