"""A workflow as a function tool of another agent (``WorkflowAgent.as_tool()``).

The tool takes one ``task`` string and runs the workflow agent on it in a private
session. When the workflow pauses, the tool asks the outer run's user through
``ToolContext.ask`` (one prompt per pending request, which names the request), after
keeping the paused run in the outer run's run-local values; the outer agent pauses
with a ``UserInputRequestContent``. When the answer comes, the kernel calls the tool
again: it finds the paused run there, answers the request and resumes that run
instead of starting the workflow again.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Mapping
from typing import TYPE_CHECKING, Annotated, Any, Protocol, cast

from agentcore._sessions.session import AgentSession
from agentcore._types.contents import FunctionCallContent
from agentcore._types.messages import Message
from agentcore.errors import RunStateError
from agentcore.tools import FunctionTool, ToolContext
from agentcore.workflows._request_info import REQUEST_INFO_TOOL_NAME, RequestInfoArguments

if TYPE_CHECKING:
    from agentcore._types.responses import AgentResponse


class _WorkflowAgent(Protocol):
    """What the tool needs of a ``WorkflowAgent``."""

    @property
    def name(self) -> str | None: ...
    @property
    def description(self) -> str | None: ...
    def create_session(self) -> AgentSession: ...


class _Run(Protocol):
    """How the tool runs the workflow agent: a turn whose pending requests are all
    ``request_info`` calls (``WorkflowAgent._bridged``)."""

    def __call__(
        self, messages: Any, *, session: AgentSession, deps: Any = ...
    ) -> Awaitable[AgentResponse[Any]]: ...


__all__ = ["workflow_as_tool"]

_LOCALS_PREFIX = "agentcore.workflow_tool:"
"""Run-local key prefix (plus the call id) of a paused workflow run and its questions."""


def workflow_as_tool(
    agent: _WorkflowAgent, run: _Run, *, name: str | None = None, description: str | None = None
) -> FunctionTool[..., Any]:
    """A tool that runs ``agent``'s workflow (through ``run``) on a task, asking the
    outer run's user for each pending request, and returns the answer's text."""
    tool_name = name or agent.name
    if not tool_name:
        raise ValueError("as_tool() needs a name: name the workflow or pass name=...")

    async def run_workflow(
        task: Annotated[str, "What the workflow should do, in plain language."],
        context: ToolContext,
    ) -> str:
        from agentcore.serialization import from_json, to_json

        key = _LOCALS_PREFIX + context.call_id
        saved = context.locals.get(key)
        response: AgentResponse[Any] | None = None
        refused: dict[str, str] = {}
        # the outer run's deps reach the workflow's handlers (ctx.deps)
        deps: dict[str, Any] = {"deps": context.run.deps} if context.run.has_deps else {}
        if saved is None:
            session = agent.create_session()
            response = await run(task, session=session, **deps)
            asked = _questions(response)
        else:
            held = cast("Mapping[str, Any]", saved)
            session = from_json(str(held["session"]), AgentSession)
            asked = [RequestInfoArguments.from_dict(a) for a in held["asked"]]
            refused = dict(held.get("refused", {}))
        while asked:
            answers: list[Any] = []
            for question in asked:
                prompt = _prompt(tool_name, question, refused.get(question.request_id))
                if prompt not in context.answers:
                    context.locals[key] = {
                        "session": to_json(session),
                        "asked": [a.to_dict() for a in asked],
                        "refused": refused,
                    }
                answer = context.ask(prompt)  # pauses the outer run until answered
                answers.append(question.create_result(_parse(question, answer)))
            try:
                response = await run(Message("user", answers), session=session, **deps)
            except RunStateError as exc:
                # an answer did not fit: nothing ran; ask again, saying why (the run is kept)
                refused = {q.request_id: str(exc) for q in asked}
                continue
            refused = {}
            asked = _questions(response)
        if key in context.locals:
            del context.locals[key]
        if response is None:  # only when a saved run had no questions left (never written so)
            return ""
        if response.usage is not None:
            context.run.add_usage(response.usage)
        return response.text

    return FunctionTool(
        run_workflow,
        name=tool_name,
        description=description
        or agent.description
        or f"Run the {tool_name} workflow on a task; it may ask the user questions.",
    )


def _questions(response: AgentResponse[Any]) -> list[RequestInfoArguments]:
    return [
        RequestInfoArguments.from_call(c)
        for m in response.messages
        for c in m.contents
        if isinstance(c, FunctionCallContent) and c.name == REQUEST_INFO_TOOL_NAME
    ]


def _prompt(tool_name: str, question: RequestInfoArguments, refused: str | None) -> str:
    """The question shown to the user: stable across re-runs, unique per request (and
    per refusal, so a refused answer is asked for again)."""
    asked = json.dumps(question.request, ensure_ascii=False, sort_keys=True)
    schema = question.response_schema
    if schema is not None and schema.get("type") == "string":
        how = "Answer in text."
    elif schema is not None:
        how = f"Answer with JSON matching {json.dumps(schema, sort_keys=True)}."
    else:
        how = f"Answer with JSON for a {question.response_type}."
    again = "" if refused is None else f" The last answer was refused ({refused})."
    return (
        f"The {tool_name} workflow ({question.executor_id}, request {question.request_id}) "
        f"asks: {asked}. {how}{again}"
    )


def _parse(question: RequestInfoArguments, answer: str) -> Any:
    """The answer as JSON for the request's response type (text stays text)."""
    schema = question.response_schema
    if schema is not None and schema.get("type") == "string":
        return answer
    try:
        return json.loads(answer)
    except json.JSONDecodeError:
        return answer  # the workflow agent reports that it does not fit the response type
