"""``MCPToolset``: the tools of one MCP server, handed to each agent run.

The toolset is a :class:`agentcore.ToolProvider`: a run asks it once for its tools,
so a run sees one consistent list. The list is cached until the server says it
changed (``list_changed``), the connection is made again, or
:meth:`MCPToolset.invalidate_tools` is called.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, Literal, TypeAlias

import anyio
from mcp import Client, StdioServerParameters
from typing_extensions import Self

from agentcore import AgentContext, ToolContext, ToolResult
from agentcore.protocols import SupportsGetResponse
from agentcore.tools import ApprovalMode, ToolArgumentsError, read_arguments
from agentcore_mcp import _calls
from agentcore_mcp._connection import Connection, ReconnectPolicy
from agentcore_mcp._results import ResultMode
from agentcore_mcp._sampling import sampling_callback
from agentcore_mcp._target import default_name, transport_label, watched_stdio
from agentcore_mcp._tool import MCPToolInfo, check_prefix, tool_info, tool_name

__all__ = ["ApprovalSpec", "MCPFunctionTool", "MCPToolset", "ServerInstructions"]

logger = logging.getLogger("agentcore_mcp")

ApprovalSpec: TypeAlias = (
    ApprovalMode | Mapping[str, ApprovalMode] | Callable[[MCPToolInfo], ApprovalMode]
)
"""One mode for every tool, a mode per remote tool name (others never ask), or a
function of the tool's listing."""

_MODERN_PREFIX = "2026-"
_RESULT_MODES = ("content_first", "structured_first", "content_only", "structured_only", "both")
_LIST_CHANGED = "notifications/tools/list_changed"


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
    ``reconnect`` says how a lost connection is made again (``None``: never; see
    :class:`ReconnectPolicy`).

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
        reconnect: ReconnectPolicy | None = ReconnectPolicy(),  # noqa: B008  # frozen, shared safely
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
        if reconnect is not None and not isinstance(reconnect, ReconnectPolicy):
            raise TypeError(
                f"reconnect takes a ReconnectPolicy or None, got {type(reconnect).__name__}"
            )
        self.target = target
        self.name: str = name or default_name(target)
        self.tool_prefix: str | None = check_prefix(tool_prefix)
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
        self._listed: dict[str, MCPToolInfo] = {}
        self._connection = Connection(
            self._make_client,
            server=self.name,
            transport=transport_label(target),
            connect_timeout=connect_timeout,
            reconnect=reconnect,
            on_connected=self._watch_tool_changes,
        )

    @property
    def reconnect(self) -> ReconnectPolicy | None:
        """How a lost connection is made again (``None``: it is not)."""
        return self._connection.reconnect

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
        (``HOME``, ``PATH``, ...), not your whole environment. The default name is the
        server's package or script (``npx -y @scope/server-files`` is ``server-files``,
        ``python -m my_server`` is ``my_server``), not the launcher.
        """
        params = StdioServerParameters(
            command=command, args=list(args), env=dict(env) if env else None, cwd=cwd
        )
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
        """Whether a connection is up right now: ``False`` once a call found it lost or a
        stdio server's process ended, until the next call or run connects again."""
        return self._connection.up

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
        """The tools a run gets: listed once and cached (see the module docstring).

        A server that cannot be reached, or whose connection is lost while listing
        (and cannot be made again), raises :class:`~agentcore.errors.ToolServerError`
        for this run; the next run connects again.
        """
        await self._connection.ensure()
        tools = self._tools
        if (
            tools is None
            or not self.cache_tools
            or self._tools_generation != self._connection.generation
        ):
            infos = await _calls.fetch(self._connection, self._refreshed, what="list its tools")
            tools = self._tools = self._build_tools(infos)
            self._tools_generation = self._connection.generation
        return list(tools)  # a copy: callers may change their list

    async def list_tools(self, *, refresh: bool = False) -> list[MCPToolInfo]:
        """Everything the server lists, before filters and prefixes (tools that need MCP
        tasks included: see :attr:`MCPToolInfo.task_support`)."""
        listing = self._refreshed if refresh else self._cached
        return await _calls.fetch(self._connection, listing, what="list its tools")

    def invalidate_tools(self) -> None:
        """Forget the cached tool list: the next run lists the tools again."""
        self._tools = None

    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any],
        *,
        timeout: float | None = None,  # noqa: ASYNC109  # reset by each progress notification
        context: ToolContext | None = None,
    ) -> ToolResult:
        """Call the server's tool ``name`` (its own name, without the prefix).

        An MCP error answer becomes an error result the model sees; so does a server
        that cannot be reached again. A lost connection is made again (see
        :class:`ReconnectPolicy`), and the call sent again when the server never got
        it or the tool is read-only or idempotent (as the last listing said);
        otherwise the model is told the outcome is unknown. ``timeout`` (the
        toolset's by default) counts from the last progress notification; overrunning
        it raises ``TimeoutError``, which the tool loop reports as a timeout. With
        ``context``, progress notifications reach the caller as custom events
        (``"tool_progress"``, data ``{"progress", "total", "message"}``).
        """
        info = self._listed.get(name)
        return await _calls.call_tool(
            self._connection,
            name,
            arguments,
            retry_safe=info is not None and info.retry_safe,
            timeout=timeout if timeout is not None else self.timeout,
            context=context,
            result_mode=self.result_mode,
        )

    # -- internals -----------------------------------------------------------------------

    def _make_client(self, on_end: Callable[[], None]) -> Client:
        options = dict(self._client_options)
        theirs = options.pop("message_handler", None)
        options["message_handler"] = self._message_handler(theirs)
        target = self.target
        if isinstance(target, StdioServerParameters):
            # Noticing the process end lets an idle toolset know it lost the server.
            return Client(watched_stdio(target, on_end), **options)
        return Client(target, **options)

    def _message_handler(self, theirs: Any) -> Callable[[Any], Any]:
        async def handle(message: Any) -> None:
            # Handshake-era servers announce a changed tool list as a notification;
            # a message_handler of your own gets every message as well.
            if getattr(message, "method", None) == _LIST_CHANGED:
                self.invalidate_tools()
            if theirs is not None:
                await theirs(message)
            else:
                await anyio.lowlevel.checkpoint()

        return handle

    async def _refreshed(self, client: Client) -> list[MCPToolInfo]:
        return await self._list(client, refresh=True)

    async def _cached(self, client: Client) -> list[MCPToolInfo]:
        return await self._list(client, refresh=False)

    async def _list(self, client: Client, *, refresh: bool) -> list[MCPToolInfo]:
        infos: list[MCPToolInfo] = []
        cursor: str | None = None
        while True:
            page = await client.list_tools(
                cursor=cursor, cache_mode="refresh" if refresh else "use"
            )
            infos.extend(tool_info(tool, self.name) for tool in page.tools)
            cursor = page.next_cursor
            if cursor is None:
                self._listed = {info.name: info for info in infos}
                return infos

    def _build_tools(self, infos: list[MCPToolInfo]) -> list[MCPFunctionTool]:
        tools: list[MCPFunctionTool] = []
        seen: dict[str, str] = {}
        for info in infos:
            if not self._chosen(info):
                continue
            if info.task_support == "required":
                logger.warning(
                    "MCP server %r: left out tool %r, which runs only as an MCP task (this "
                    "client does not start tasks); filter it with blocked_tools= to silence this",
                    self.name,
                    info.name,
                )
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


class MCPFunctionTool:
    """A tool of an MCP server, callable in an agent's tool loop.

    It satisfies :class:`agentcore.SupportsToolCall`. Arguments are checked against
    the server's input schema before any request; the call goes through the
    toolset's connection, and the result is a :class:`~agentcore.ToolResult`.
    Built by :class:`~agentcore_mcp.MCPToolset`, not by hand.
    """

    return_directly = False
    max_invocations: int | None = None

    def __init__(
        self,
        toolset: MCPToolset,
        info: MCPToolInfo,
        *,
        name: str,
        approval_mode: ApprovalMode,
        timeout: float | None,
    ) -> None:
        self.toolset = toolset
        self.info = info
        self.name = name
        self.description: str = info.description
        self.parameters: Mapping[str, Any] = info.input_schema
        self.approval_mode: Literal["always_require", "never_require"] = approval_mode
        self.timeout = timeout
        hints = info.annotations
        self.read_only: bool | None = hints.get("readOnlyHint")
        self.idempotent: bool | None = hints.get("idempotentHint")
        self.destructive: bool | None = hints.get("destructiveHint")
        self.open_world: bool | None = hints.get("openWorldHint")
        self._validator: Any = None

    def __repr__(self) -> str:
        return f"MCPFunctionTool(name={self.name!r}, server={self.info.server!r})"

    def declaration(self) -> dict[str, Any]:
        """What a provider adapter sends: ``{"name", "description", "parameters"}``."""
        return {"name": self.name, "description": self.description, "parameters": self.parameters}

    def parse_arguments(self, raw: str | bytes | Mapping[str, Any]) -> dict[str, Any]:
        """The model's arguments as a dict, checked against the server's schema.

        Raises :class:`~agentcore.tools.ToolArgumentsError` naming each problem by
        its path (``"a: 'x' is not of type 'integer'"``); nothing is sent then.
        """
        arguments = dict(read_arguments(raw, tool_name=self.name))
        problems = [
            f"{'.'.join(str(p) for p in error.absolute_path) or '(arguments)'}: {error.message}"
            for error in self._schema_validator().iter_errors(arguments)
        ]
        if problems:
            raise ToolArgumentsError("; ".join(sorted(problems)))
        return arguments

    async def invoke(self, arguments: Mapping[str, Any], *, context: ToolContext) -> ToolResult:
        """Call the tool on its server (see :meth:`MCPToolset.call_tool`); the server's
        progress notifications reach the run's caller as ``"tool_progress"`` events."""
        return await self.toolset.call_tool(
            self.info.name, arguments, timeout=self.timeout, context=context
        )

    def _schema_validator(self) -> Any:
        if self._validator is None:
            from jsonschema import (  # type: ignore[import-untyped]  # no stubs; kept behind Any
                validators,
            )

            schema = dict(self.parameters)
            self._validator = validators.validator_for(schema)(schema)
        return self._validator


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
