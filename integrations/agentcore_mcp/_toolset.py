"""``MCPToolset``: the tools of one MCP server, handed to each agent run.

The toolset is a :class:`agentcore.ToolProvider`: a run asks it once for its tools,
so a run sees one consistent list. The list is cached until the server says it
changed (``list_changed``), the connection is made again, or
:meth:`MCPToolset.invalidate_tools` is called.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, TypeAlias

import anyio
from mcp import Client, MCPError, StdioServerParameters
from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT
from typing_extensions import Self

from agentcore import AgentContext, ToolResult
from agentcore.errors import ToolServerError
from agentcore.protocols import SupportsGetResponse
from agentcore.tools import ApprovalMode
from agentcore_mcp._connection import Connection
from agentcore_mcp._results import ResultMode, to_tool_result
from agentcore_mcp._sampling import sampling_callback
from agentcore_mcp._tool import MCPFunctionTool, MCPToolInfo, tool_name

__all__ = ["ApprovalSpec", "MCPToolset", "ServerInstructions"]

ApprovalSpec: TypeAlias = (
    ApprovalMode | Mapping[str, ApprovalMode] | Callable[[MCPToolInfo], ApprovalMode]
)
"""One mode for every tool, a mode per remote tool name (others never ask), or a
function of the tool's listing."""

_MODERN_PREFIX = "2026-"
_SESSION_GONE = ("session not found", "session terminated")
_RESULT_MODES = ("content_first", "structured_first", "content_only", "structured_only", "both")
_LOST = (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError)


class MCPToolset:
    """The tools of one MCP server (stdio, streamable HTTP, or an in-process server).

    ``target`` is anything ``mcp.Client`` takes: a URL, ``StdioServerParameters``,
    a transport, or a server object (in tests). Use it in ``async with toolset:``
    (or ``async with agent:``, which enters it); the connection lives in one owner
    task, so any task may call through it.

    Tools are named ``{tool_prefix}_{name}`` with a prefix; ``allowed_tools``,
    ``blocked_tools`` and ``tool_filter`` choose which the model sees.
    ``approval_mode`` makes calls pause for approval like any tool's. ``timeout``
    bounds each call (a timeout is an error result, the run goes on).
    ``result_mode`` says what the model sees of results with structured content.

    Server instructions and sampling stay off unless asked for: a server's text
    reaches the model only through :meth:`instructions_provider` (or your own use of
    :attr:`instructions`), and a server may have ``sampling=client`` generate text
    only when you pass that chat client.
    """

    def __init__(
        self,
        target: Any,
        *,
        name: str | None = None,
        tool_prefix: str | None = None,
        allowed_tools: Collection[str] | None = None,
        blocked_tools: Collection[str] = (),
        tool_filter: Callable[[MCPToolInfo], bool] | None = None,
        approval_mode: ApprovalSpec = "never_require",
        cache_tools: bool = True,
        timeout: float | None = 60.0,
        connect_timeout: float = 30.0,
        result_mode: ResultMode = "content_first",
        sampling: SupportsGetResponse[Any] | None = None,
        client_options: Mapping[str, Any] | None = None,
    ) -> None:
        if result_mode not in _RESULT_MODES:
            raise ValueError(
                f"result_mode must be one of {', '.join(_RESULT_MODES)}; got {result_mode!r}"
            )
        if isinstance(allowed_tools, str) or isinstance(blocked_tools, str):
            raise TypeError("allowed_tools and blocked_tools are collections of names, not one str")
        if timeout is not None and timeout <= 0:
            raise ValueError(f"timeout must be positive or None, got {timeout!r}")
        if connect_timeout <= 0:
            raise ValueError(f"connect_timeout must be positive, got {connect_timeout!r}")
        if tool_prefix is not None and not tool_prefix:
            raise ValueError("tool_prefix must be a non-empty str or None")
        self.target = target
        self.name: str = name or _derive_name(target)
        self.tool_prefix = tool_prefix
        self.allowed_tools: frozenset[str] | None = (
            None if allowed_tools is None else frozenset(allowed_tools)
        )
        self.blocked_tools: frozenset[str] = frozenset(blocked_tools)
        self.tool_filter = tool_filter
        self.approval_mode = approval_mode
        self.cache_tools = cache_tools
        self.timeout = timeout
        self.result_mode: ResultMode = result_mode
        self._client_options = dict(client_options or {})
        if sampling is not None:
            if "sampling_callback" in self._client_options:
                raise ValueError(
                    "pass sampling= or client_options['sampling_callback'], not both: both "
                    "answer the server's sampling requests"
                )
            if not isinstance(sampling, SupportsGetResponse):
                raise TypeError(
                    f"sampling= takes a chat client (with get_response), got "
                    f"{type(sampling).__name__}"
                )
            self._client_options["sampling_callback"] = sampling_callback(
                sampling, server=self.name
            )
        self._tools: list[MCPFunctionTool] | None = None
        self._tools_generation = -1
        self._connection = Connection(
            self._make_client,
            server=self.name,
            transport=_transport(target),
            connect_timeout=connect_timeout,
            on_connected=self._watch_tool_changes,
        )

    @classmethod
    def stdio(
        cls,
        command: str,
        args: Sequence[str] = (),
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        **options: Any,
    ) -> MCPToolset:
        """A server started as a child process, speaking MCP on its stdin/stdout.

        The child gets only the variables in ``env`` plus the SDK's short list
        (``HOME``, ``PATH``, ...), not your whole environment.
        """
        params = StdioServerParameters(
            command=command, args=list(args), env=dict(env) if env else None, cwd=cwd
        )
        options.setdefault("name", os.path.basename(command))
        return cls(params, **options)

    @classmethod
    def http(cls, url: str, **options: Any) -> MCPToolset:
        """A server reached over streamable HTTP at ``url`` (for example ``.../mcp``)."""
        if not url.startswith(("http://", "https://")):
            raise ValueError(f"an MCP server URL starts with http:// or https://, got {url!r}")
        return cls(url, **options)

    def __repr__(self) -> str:
        return f"MCPToolset({self.name!r})"

    # -- lifecycle ---------------------------------------------------------------------

    async def __aenter__(self) -> Self:
        await self._connection.__aenter__()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self._connection.__aexit__(*exc_info)

    @property
    def connected(self) -> bool:
        """Whether a connection is up right now."""
        return self._connection.client is not None

    @property
    def protocol_version(self) -> str | None:
        client = self._connection.client
        return None if client is None else client.protocol_version

    @property
    def instructions(self) -> str | None:
        """What the server says about using it; reaches a model only through
        :meth:`instructions_provider`."""
        client = self._connection.client
        return None if client is None else client.instructions

    async def fetch_instructions(self) -> str | None:
        """The server's instructions, connecting again first if the connection broke."""
        client = await self._connection.ensure()
        return client.instructions

    def instructions_provider(self) -> ServerInstructions:
        """A context provider that adds the server's instructions to each run's.

        The opt-in for server instructions: ``Agent(..., tools=[toolset],
        context_providers=[toolset.instructions_provider()])``. The text is added
        after your instructions, under a line naming the server.
        """
        return ServerInstructions(self)

    # -- tools ---------------------------------------------------------------------------

    async def get_tools(self, context: AgentContext | None = None) -> list[MCPFunctionTool]:
        """The tools a run gets: listed once and cached (see the module docstring)."""
        client = await self._connection.ensure()
        tools = self._tools
        if (
            tools is None
            or not self.cache_tools
            or self._tools_generation != self._connection.generation
        ):
            infos = await self._list(client, refresh=True)
            tools = self._tools = self._build_tools(infos)
            self._tools_generation = self._connection.generation
        return list(tools)  # a copy: callers may change their list

    async def list_tools(self, *, refresh: bool = False) -> list[MCPToolInfo]:
        """Everything the server lists, before filters and prefixes."""
        client = await self._connection.ensure()
        return await self._list(client, refresh=refresh)

    def invalidate_tools(self) -> None:
        """Forget the cached tool list: the next run lists the tools again."""
        self._tools = None

    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any],
        *,
        timeout: float | None = None,  # noqa: ASYNC109  # the SDK's per-request read timeout
    ) -> ToolResult:
        """Call the server's tool ``name`` (its own name, without the prefix).

        An MCP error answer becomes an error result the model sees; so do a lost
        connection (the call may or may not have run; the next call reconnects) and a
        server that cannot be reached again. A
        timeout raises ``TimeoutError``, which the tool loop reports as a timeout.
        """
        try:
            client = await self._connection.ensure()
        except ToolServerError as exc:
            return ToolResult(f"Error: {exc}", is_error=True)  # the model may go on without it
        limit = timeout if timeout is not None else self.timeout
        try:
            result = await client.call_tool(name, dict(arguments), read_timeout_seconds=limit)
        except MCPError as exc:
            if exc.code == REQUEST_TIMEOUT:
                raise TimeoutError(
                    f"MCP tool {name!r} of {self.name!r} did not answer within {limit} seconds"
                ) from None
            if exc.code == CONNECTION_CLOSED or exc.message.lower().startswith(_SESSION_GONE):
                self._connection.mark_broken(client)
                return _lost(self.name)
            return ToolResult(f"Error: {exc.message}", is_error=True)
        except _LOST:
            self._connection.mark_broken(client)
            return _lost(self.name)
        return to_tool_result(result, self.result_mode)

    # -- internals -----------------------------------------------------------------------

    def _make_client(self) -> Client:
        options: dict[str, Any] = {"message_handler": self._on_message, **self._client_options}
        return Client(self.target, **options)

    async def _list(self, client: Client, *, refresh: bool) -> list[MCPToolInfo]:
        infos: list[MCPToolInfo] = []
        cursor: str | None = None
        while True:
            page = await client.list_tools(
                cursor=cursor, cache_mode="refresh" if refresh else "use"
            )
            for tool in page.tools:
                annotations = (
                    {}
                    if tool.annotations is None
                    else tool.annotations.model_dump(by_alias=True, exclude_none=True)
                )
                infos.append(
                    MCPToolInfo(
                        server=self.name,
                        name=tool.name,
                        title=tool.title,
                        description=tool.description or "",
                        input_schema=tool.input_schema,
                        output_schema=tool.output_schema,
                        annotations=annotations,
                    )
                )
            cursor = page.next_cursor
            if cursor is None:
                return infos

    def _build_tools(self, infos: list[MCPToolInfo]) -> list[MCPFunctionTool]:
        tools: list[MCPFunctionTool] = []
        seen: dict[str, str] = {}
        for info in infos:
            if not self._chosen(info):
                continue
            name = tool_name(info.name, self.tool_prefix)
            if name in seen:
                raise ValueError(
                    f"MCP server {self.name!r} lists {seen[name]!r} and {info.name!r}, which "
                    f"both become the tool name {name!r}; block one with blocked_tools="
                )
            seen[name] = info.name
            tools.append(
                MCPFunctionTool(
                    self, info, name=name, approval_mode=self._approval(info), timeout=self.timeout
                )
            )
        return tools

    def _chosen(self, info: MCPToolInfo) -> bool:
        if self.allowed_tools is not None and info.name not in self.allowed_tools:
            return False
        if info.name in self.blocked_tools:
            return False
        return self.tool_filter is None or self.tool_filter(info)

    def _approval(self, info: MCPToolInfo) -> ApprovalMode:
        spec = self.approval_mode
        if isinstance(spec, str):
            mode: object = spec
        elif callable(spec):
            mode = spec(info)
        else:
            mode = spec.get(info.name, "never_require")
        if mode not in ("always_require", "never_require"):
            raise ValueError(
                f"approval_mode for MCP tool {info.name!r} must be 'always_require' or "
                f"'never_require', got {mode!r}"
            )
        return "always_require" if mode == "always_require" else "never_require"

    async def _on_message(self, message: object) -> None:
        # Handshake-era servers announce a changed tool list as a notification.
        if getattr(message, "method", None) == "notifications/tools/list_changed":
            self.invalidate_tools()
        await anyio.lowlevel.checkpoint()

    async def _watch_tool_changes(self, client: Client) -> None:
        # 2026-era servers announce changes on a listen stream, when they can.
        tools = client.server_capabilities.tools
        if not client.protocol_version.startswith(_MODERN_PREFIX) or tools is None:
            return
        if not tools.list_changed:
            return
        async with client.listen(tools_list_changed=True) as subscription:
            async for _ in subscription:
                self.invalidate_tools()


class ServerInstructions:
    """Adds an MCP server's instructions to a run's (see
    :meth:`MCPToolset.instructions_provider`)."""

    def __init__(self, toolset: MCPToolset) -> None:
        self.toolset = toolset

    async def before_run(self, context: AgentContext) -> None:
        text = (await self.toolset.fetch_instructions() or "").strip()
        if not text:
            return
        added = f"Instructions from the MCP server {self.toolset.name!r}:\n{text}"
        mine = context.instructions
        context.instructions = f"{mine}\n\n{added}" if mine else added

    async def after_run(self, context: AgentContext) -> None:
        return None


def _lost(server: str) -> ToolResult:
    return ToolResult(
        f"Error: the connection to the MCP server {server!r} was lost; the call may or may "
        f"not have run. The next call reconnects.",
        is_error=True,
    )


def _transport(target: object) -> str:
    if isinstance(target, str):
        return "streamable HTTP"
    if isinstance(target, StdioServerParameters):
        return "stdio"
    return type(target).__name__


def _derive_name(target: object) -> str:
    if isinstance(target, StdioServerParameters):
        return os.path.basename(target.command)
    if isinstance(target, str):
        from urllib.parse import urlsplit

        return urlsplit(target).netloc or target
    return getattr(target, "name", None) or type(target).__name__
