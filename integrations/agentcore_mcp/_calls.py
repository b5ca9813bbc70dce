"""Requests through a :class:`Connection` that survive losing it.

A failed request is one of three things:

- **never received**: the server forgot the session (an HTTP server that restarted
  answers 404 or 400 to the old session id), so nothing ran; it is sent again on a
  fresh connection;
- **lost in flight**: the connection ended while the request was out, so it may or may
  not have run; it is sent again only when repeating it does no harm (a tool the
  server marks read-only or idempotent, a listing);
- **an answer**: an error the server meant, which the caller sees.

A call's timeout counts from the last sign of life: each progress notification the
server sends for the call starts it again.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Literal, TypeVar

import anyio
from mcp import Client, MCPError, types
from mcp_types import CONNECTION_CLOSED, INTERNAL_ERROR, INVALID_REQUEST, REQUEST_TIMEOUT

from agentcore import ToolContext, ToolResult
from agentcore.errors import ToolServerError
from agentcore_mcp._connection import Connection
from agentcore_mcp._results import ResultMode, to_tool_result

__all__ = ["call_tool", "fetch"]

_T = TypeVar("_T")

Failure = Literal["unsent", "lost"]

_SESSION_GONE = ("session not found", "session terminated")
_LOST = (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError)
_CLOSED = "Connection closed"
_PROBE_TIMEOUT = 10.0
_MODERN_PREFIX = "2026-"


def _suspect(exc: MCPError) -> bool:
    # Errors a server gives a request it rejected at the HTTP layer (a 400/404 to an
    # unknown session id): JSON-RPC's invalid request, the transport's stand-in for a
    # bare error status, and the implementation-defined server errors.
    return exc.code in (INVALID_REQUEST, INTERNAL_ERROR) or -32099 <= exc.code <= -32000


async def _session_alive(client: Client) -> bool:
    if client.protocol_version.startswith(_MODERN_PREFIX):
        return True  # 2026-era connections have no session to lose
    try:  # a request every server answers (ping is deprecated, and warns)
        with anyio.fail_after(_PROBE_TIMEOUT):
            await client.list_tools(cache_mode="refresh")
    except (MCPError, TimeoutError, *_LOST):
        return False
    return True


async def classify(client: Client, exc: BaseException) -> Failure | None:
    """What a request's failure ``exc`` says about the connection (``None``: an answer)."""
    if isinstance(exc, _LOST):
        return "lost"
    if not isinstance(exc, MCPError):
        return None
    if exc.code == CONNECTION_CLOSED and exc.message == _CLOSED:
        return "lost"  # the SDK's own: the transport ended (servers use the code too)
    if exc.message.lower().startswith(_SESSION_GONE):
        return "unsent"
    if _suspect(exc) and not await _session_alive(client):
        return "unsent"  # the session itself is refused: the request never ran
    return None


async def fetch(
    connection: Connection, request: Callable[[Client], Awaitable[_T]], *, what: str
) -> _T:
    """``request(client)`` for something that may be asked twice (a listing), connecting
    again as the policy allows; a failure is a :class:`~agentcore.errors.ToolServerError`
    saying the server could not ``what``."""
    tries = 1 if connection.reconnect is None else 1 + connection.reconnect.attempts
    failure: BaseException | None = None
    for _ in range(tries):
        client = await connection.ensure()
        try:
            return await request(client)
        except (MCPError, *_LOST) as exc:
            failure = exc
            answered = await classify(client, exc) is None
            connection.mark_broken(client)  # the next run connects afresh either way
            if answered:
                break
    raise connection.error(f"could not {what}", failure)


async def call_tool(
    connection: Connection,
    name: str,
    arguments: Mapping[str, Any],
    *,
    retry_safe: bool,
    timeout: float | None,  # noqa: ASYNC109  # the call's own idle timeout, reset by progress
    context: ToolContext | None,
    result_mode: ResultMode,
) -> ToolResult:
    """Call tool ``name`` through ``connection`` (see the module docstring)."""
    policy = connection.reconnect
    retries = 0 if policy is None else policy.attempts
    while True:
        try:
            client = await connection.ensure()
        except ToolServerError as exc:
            return ToolResult(f"Error: {exc}", is_error=True)  # the model may go on without it
        try:
            result = await _send(client, name, arguments, timeout, context)
        except TimeoutError:
            raise TimeoutError(_overran(connection.server, name, timeout)) from None
        except (MCPError, *_LOST) as exc:
            if isinstance(exc, MCPError) and exc.code == REQUEST_TIMEOUT:
                raise TimeoutError(_overran(connection.server, name, timeout)) from None
            failure = await classify(client, exc)
            if failure is None:  # an answer: only an MCPError is one
                message = exc.message if isinstance(exc, MCPError) else str(exc)
                return ToolResult(f"Error: {message}", is_error=True)
            connection.mark_broken(client)
            if retries and (failure == "unsent" or retry_safe):
                retries -= 1
                continue
            return _failed(connection, name, failure, policy is not None)
        return to_tool_result(result, result_mode)


async def _send(
    client: Client,
    name: str,
    arguments: Mapping[str, Any],
    timeout: float | None,  # noqa: ASYNC109
    context: ToolContext | None,
) -> types.CallToolResult:
    # Asking for progress sends a progress token; each notification restarts the clock
    # and reaches the caller as a custom event of the tool call.
    scope = anyio.CancelScope(
        deadline=math.inf if timeout is None else anyio.current_time() + timeout
    )

    done = False

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        if done:  # a late notification: the call (and perhaps the run) is over
            return
        if timeout is not None:
            scope.deadline = anyio.current_time() + timeout
        if context is not None:
            await context.emit({"progress": progress, "total": total, "message": message})

    try:
        with scope:
            return await client.call_tool(name, dict(arguments), progress_callback=on_progress)
    finally:
        done = True
    raise TimeoutError(f"no answer or progress within {timeout} seconds")


def _overran(server: str, name: str, timeout: float | None) -> str:
    return (
        f"MCP tool {name!r} of {server!r} did not answer within {timeout} seconds "
        f"(nor report progress)"
    )


def _failed(connection: Connection, name: str, failure: Failure, reconnects: bool) -> ToolResult:
    server = connection.server
    after = "The next call reconnects." if reconnects else "reconnect=None: it stays disconnected."
    if failure == "unsent":
        text = (
            f"Error: the connection to the MCP server {server!r} was lost before the call to "
            f"{name!r} reached it, and it could not be sent again; the tool did not run. {after}"
        )
    else:
        text = (
            f"Error: the connection to the MCP server {server!r} was lost during the call to "
            f"{name!r}; the outcome is unknown (it may or may not have run), and it was not "
            f"sent again because the server does not mark {name!r} read-only or idempotent. "
            f"{after}"
        )
    return ToolResult(text, is_error=True)
