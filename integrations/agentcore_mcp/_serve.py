"""Agents and tools served as an MCP server.

:func:`to_mcp_server` builds an ``mcp`` low-level server whose tools are the given
tools (schemas as they are, effect hints as annotations) and agents (each a tool
taking one ``task`` string; an agent whose run pauses for approval or an answer asks
the client's user through MCP elicitation, see :mod:`agentcore_mcp._asking`). Run it
over stdio with :func:`serve_stdio`, or over streamable HTTP with
:func:`streamable_http_app` under any ASGI server, or with :func:`serve_http`, which
binds 127.0.0.1 unless told otherwise.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping, Sequence
from typing import Any, Literal, cast

from mcp import types
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from starlette.applications import Starlette

from agentcore import (
    AgentResponse,
    AgentSession,
    DataContent,
    FunctionApprovalRequestContent,
    FunctionApprovalResponseContent,
    FunctionCallContent,
    Message,
    RunContext,
    SupportsAgentRun,
    SupportsToolCall,
    TextContent,
    ToolContext,
    ToolResult,
    UriContent,
    UserInputRequestContent,
)
from agentcore.tools import ToolArgumentsError, UserInputRequired
from agentcore_mcp._asking import (
    Decision,
    Held,
    PausedRuns,
    Question,
    ToolAnswers,
    answers_of,
    can_elicit,
    decision,
    form,
    input_required,
    refusal,
)

__all__ = ["serve_http", "serve_stdio", "streamable_http_app", "to_mcp_server"]

_TASK_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "properties": {"task": {"type": "string", "description": "What the agent should do."}},
    "required": ["task"],
}


class _AgentTool:
    """An agent as a tool of the served server: one ``task`` string in, its answer out."""

    parameters = _TASK_SCHEMA
    approval_mode: Literal["always_require", "never_require"] = "never_require"
    return_directly = False
    read_only: bool | None = None
    idempotent: bool | None = None
    destructive: bool | None = None
    open_world: bool | None = None
    max_invocations: int | None = None
    timeout: float | None = None

    def __init__(self, agent: SupportsAgentRun) -> None:
        if not agent.name:
            raise ValueError(
                f"{agent!r} has no name; an agent served over MCP is a tool named after "
                f"it: give it one (Agent(..., name='researcher'))"
            )
        self.agent = agent
        self.name = agent.name
        self.description = agent.description or f"Ask the {agent.name} agent to do a task."

    def declaration(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "parameters": self.parameters}

    def parse_arguments(self, raw: str | bytes | Mapping[str, Any]) -> dict[str, Any]:
        value: object = json.loads(raw) if isinstance(raw, (str, bytes)) else dict(raw)
        task = cast("dict[str, object]", value).get("task") if isinstance(value, dict) else None
        if not isinstance(task, str):
            raise ToolArgumentsError("task: expected a string")
        return {"task": task}

    async def invoke(self, arguments: Mapping[str, Any], *, context: ToolContext) -> Any:
        # Called as a plain tool (no MCP request to ask through): a paused run is an error.
        response = await self.agent.run(arguments["task"], session=self.agent.create_session())
        questions = _questions(response)
        if questions:
            why = "there is no MCP client to ask"
            return ToolResult(refusal(self.name, questions, why), is_error=True)
        return response.text

    async def serve(
        self,
        ctx: Any,
        params: types.CallToolRequestParams,
        arguments: Mapping[str, Any],
        paused: PausedRuns,
    ) -> types.CallToolResult | types.InputRequiredResult:
        """Run the agent for one ``tools/call``, asking the client's user what its run
        pauses for (see :mod:`agentcore_mcp._asking`)."""
        if params.request_state is not None:  # a 2026-07-28 retry bringing answers
            taken = paused.take(params.request_state, self.name, arguments)
            if taken is None or not isinstance(taken[0], AgentSession):
                return _spent(self.name)
            session, asked_before = taken[0], taken[1]
            answers = answers_of(params)
            response = await self._resume(
                session, [(q, decision(q, answers.get(q.id))) for q in asked_before]
            )
        else:
            # A fresh session per call: MCP calls are independent tasks.
            session = self.agent.create_session()
            response = await self.agent.run(arguments["task"], session=session)
        for _ in range(_MAX_ROUNDS):
            questions = _questions(response)
            if not questions:
                return _call_result(response.text)
            answered = await _ask(ctx, self.name, arguments, self.name, session, questions, paused)
            if not isinstance(answered, list):
                return answered
            response = await self._resume(session, answered)
        return _error(
            f"Error: the {self.name} agent kept asking after {_MAX_ROUNDS} rounds of questions"
        )

    async def _resume(
        self, session: AgentSession, answered: Sequence[tuple[Question, Decision | None]]
    ) -> AgentResponse[Any]:
        unanswered = [
            q.prompt for q, d in answered if d is None and isinstance(q, UserInputRequestContent)
        ]
        if unanswered:
            # A question the user would not answer: a new message closes the paused
            # calls with an error result, and the agent carries on from there.
            said = "; ".join(repr(prompt) for prompt in unanswered)
            return await self.agent.run(f"The user did not answer {said}.", session=session)
        decisions = [d for _, d in answered if d is not None]
        return await self.agent.run(Message("user", decisions), session=session)


_MAX_ROUNDS = 16
"""Rounds of questions one call may ask before it gives up (an agent that asks forever)."""


async def _ask(
    ctx: Any,
    tool: str,
    arguments: Mapping[str, Any],
    agent: str | None,
    held: Held,
    questions: Sequence[Question],
    paused: PausedRuns,
) -> list[tuple[Question, Decision | None]] | types.CallToolResult | types.InputRequiredResult:
    """Put ``questions`` to the client's user: the answers (on older protocol versions),
    or the result to send instead (a refusal, or, on 2026-07-28, the questions with
    ``held`` kept for the retry)."""
    if not can_elicit(ctx):
        why = "this MCP client cannot ask its user (it did not declare elicitation)"
        return _error(refusal(agent, questions, why))
    if input_required(ctx):
        token = paused.keep(tool, arguments, held, questions)
        requests: types.InputRequests = {
            q.id: types.ElicitRequest(params=form(q, agent)) for q in questions
        }
        return types.InputRequiredResult(input_requests=requests, request_state=token)
    answered: list[tuple[Question, Decision | None]] = []
    for question in questions:
        asked = form(question, agent)
        try:
            answer = await ctx.session.elicit_form(
                asked.message, asked.requested_schema, related_request_id=ctx.request_id
            )
        except MCPError as exc:
            why = f"the MCP client could not ask its user ({exc})"
            return _error(refusal(agent, [question], why))
        answered.append((question, decision(question, answer)))
    return answered


async def _serve_tool(
    tool: SupportsToolCall,
    ctx: Any,
    params: types.CallToolRequestParams,
    arguments: Mapping[str, Any],
    paused: PausedRuns,
) -> types.CallToolResult | types.InputRequiredResult:
    """Run a tool served on its own for one ``tools/call``: asking the client's user
    for approval first when it needs that, and for each answer it asks for."""
    call_id = str(getattr(ctx, "request_id", None) or tool.name)
    call = FunctionCallContent(call_id, tool.name, dict(arguments))
    state = ToolAnswers(approved=tool.approval_mode != "always_require")
    answered: list[tuple[Question, Decision | None]] = []
    if params.request_state is not None:  # a 2026-07-28 retry bringing answers
        taken = paused.take(params.request_state, tool.name, arguments)
        if taken is None or not isinstance(taken[0], ToolAnswers):
            return _spent(tool.name)
        state, asked_before = taken[0], taken[1]
        answers = answers_of(params)
        answered = [(q, decision(q, answers.get(q.id))) for q in asked_before]
    for _ in range(_MAX_ROUNDS):
        for earlier, given in answered:
            if isinstance(given, FunctionApprovalResponseContent):
                if not given.approved:
                    return _error(
                        f"Error: the user did not approve this call; {tool.name} did not run"
                    )
                state.approved = True
            elif given is not None:
                state.answers[_prompt(earlier)] = given.text
            else:
                return _error(
                    f"Error: the user did not answer {_prompt(earlier)!r}; {tool.name} "
                    "stopped there"
                )
        question: Question
        if not state.approved:
            question = FunctionApprovalRequestContent(call)
        else:
            context = ToolContext(call_id, tool.name, RunContext(), answers=state.answers)
            try:
                return _call_result(await tool.invoke(arguments, context=context))
            except UserInputRequired as exc:
                question = UserInputRequestContent(call, exc.prompt)
        asked = await _ask(ctx, tool.name, arguments, None, state, [question], paused)
        if not isinstance(asked, list):
            return asked
        answered = asked
    return _error(f"Error: {tool.name} kept asking after {_MAX_ROUNDS} rounds of questions")


def _prompt(question: Question) -> str:
    """The prompt of a question the user answers with text."""
    return question.prompt if isinstance(question, UserInputRequestContent) else ""


def _spent(name: str) -> types.CallToolResult:
    return _error(
        f"Error: the questions of {name} that this call answers were already answered, "
        f"have expired, or belong to another call; call {name} again"
    )


def _questions(response: AgentResponse[Any]) -> list[Question]:
    return [*response.approval_requests, *response.user_input_requests]


def to_mcp_server(
    *items: SupportsAgentRun | SupportsToolCall,
    name: str,
    instructions: str | None = None,
    version: str = "",
) -> Server[Any]:
    """An MCP server whose tools are ``items``: tools as they are, agents as tools
    named after them that take a ``task`` string and answer with the agent's text.

    Tool errors go back as ``is_error`` results (an exception's text is not
    sent; a :class:`~agentcore.ToolResult` error's text is). Names must be unique.
    An agent's run that pauses for approval or for the user's answer asks the
    client's user through elicitation (an ``input_required`` result on 2026-07-28,
    ``elicitation/create`` before); a client without elicitation gets an error result.
    """
    tools: dict[str, SupportsToolCall] = {}
    for item in items:
        tool: SupportsToolCall
        if isinstance(item, SupportsToolCall):  # once per item, when the server is built
            tool = item
        elif isinstance(item, SupportsAgentRun):
            tool = _AgentTool(item)
        else:
            raise TypeError(
                f"cannot serve {item!r} over MCP: pass tools (FunctionTool, @tool "
                f"functions, anything with a tool's shape) or agents"
            )
        if tool.name in tools:
            raise ValueError(f"two tools named {tool.name!r}; MCP tool names must be unique")
        tools[tool.name] = tool

    async def list_tools(
        _ctx: Any, _params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[_listing(tool) for tool in tools.values()])

    paused = PausedRuns()

    async def call_tool(
        ctx: Any, params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        tool = tools.get(params.name)
        if tool is None:
            return _error(f"Unknown tool: {params.name}")
        try:
            arguments = tool.parse_arguments(params.arguments or {})
        except ToolArgumentsError as exc:
            return _error(f"Error: invalid arguments for {tool.name}: {exc}")
        if isinstance(tool, _AgentTool):
            try:
                return await tool.serve(ctx, params, arguments, paused)
            except Exception:  # like the tool loop: the client learns it failed, not why
                return _error(f"Error: {tool.name} failed.")
        try:
            return await _serve_tool(tool, ctx, params, arguments, paused)
        except TimeoutError:
            return _error(f"Error: {tool.name} timed out.")
        except Exception:  # like the tool loop: the client learns it failed, not why
            return _error(f"Error: {tool.name} failed.")

    return Server(
        name,
        version=version,
        instructions=instructions,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def _listing(tool: SupportsToolCall) -> types.Tool:
    hints = types.ToolAnnotations(
        read_only_hint=tool.read_only,
        destructive_hint=tool.destructive,
        idempotent_hint=tool.idempotent,
        open_world_hint=tool.open_world,
    )
    has_hints = any(
        h is not None for h in (tool.read_only, tool.destructive, tool.idempotent, tool.open_world)
    )
    return types.Tool(
        name=tool.name,
        description=tool.description,
        input_schema=dict(tool.parameters),
        annotations=hints if has_hints else None,
    )


def _error(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


def _call_result(result: Any) -> types.CallToolResult:
    is_error = False
    structured: Any = None
    if isinstance(result, ToolResult):
        is_error = result.is_error
        structured = result.structured
        result = result.value
    blocks = _blocks(result)
    if structured is None and isinstance(result, Mapping):
        structured = dict(cast("Mapping[str, Any]", result))
    return types.CallToolResult(
        content=blocks,
        structured_content=structured if isinstance(structured, dict) else None,
        is_error=is_error,
    )


def _blocks(value: Any) -> list[types.ContentBlock]:
    if isinstance(value, (TextContent, DataContent, UriContent)):
        value = (value,)
    if isinstance(value, (list, tuple)) and value:
        items: list[Any] = list(value)  # pyright: ignore[reportUnknownArgumentType]  # checked below
        if all(isinstance(item, (TextContent, DataContent, UriContent)) for item in items):
            return [_block(item) for item in items]
    text = value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
    return [types.TextContent(type="text", text=text)]


def _block(content: TextContent | DataContent | UriContent) -> types.ContentBlock:
    if isinstance(content, TextContent):
        return types.TextContent(type="text", text=content.text)
    if isinstance(content, UriContent):
        name = content.uri.rsplit("/", 1)[-1] or content.uri
        return types.ResourceLink(
            type="resource_link", uri=content.uri, name=name, mime_type=content.media_type
        )
    data = base64.b64encode(content.data).decode("ascii")
    if content.media_type.startswith("image/"):
        return types.ImageContent(type="image", data=data, mime_type=content.media_type)
    if content.media_type.startswith("audio/"):
        return types.AudioContent(type="audio", data=data, mime_type=content.media_type)
    resource = types.BlobResourceContents(
        uri=f"data:{content.media_type}", mime_type=content.media_type, blob=data
    )
    return types.EmbeddedResource(type="resource", resource=resource)


async def serve_stdio(server: Server[Any]) -> None:
    """Serve ``server`` on this process's stdin and stdout until the client leaves."""
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def streamable_http_app(
    server: Server[Any], *, path: str = "/mcp", host: str = "127.0.0.1"
) -> Starlette:
    """An ASGI app serving ``server`` over streamable HTTP at ``path``.

    ``host`` is where you will bind it: for a loopback host the app accepts only
    loopback ``Host`` and ``Origin`` headers (DNS-rebinding protection).
    """
    return server.streamable_http_app(streamable_http_path=path, host=host)


async def serve_http(
    server: Server[Any], *, host: str = "127.0.0.1", port: int = 8000, path: str = "/mcp"
) -> None:
    """Serve ``server`` over streamable HTTP with uvicorn (asyncio only).

    Binds 127.0.0.1 by default: pass ``host="0.0.0.0"`` only behind authentication.
    """
    import uvicorn

    app = streamable_http_app(server, path=path, host=host)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning")
    await uvicorn.Server(config).serve()
