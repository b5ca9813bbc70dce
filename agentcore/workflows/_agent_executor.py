"""Any agent (``SupportsAgentRun``) as a workflow executor.

``AgentExecutor`` accepts a ``str``, a ``Message``, a sequence of messages or a
previous agent's :class:`AgentTurn`, runs the agent, yields its
``AgentResponse`` (a final output when the node is an output executor) and, when
the node has outgoing edges, sends an :class:`AgentTurn` carrying the
conversation the next agent should see. It holds no run data.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import AsyncGenerator, Callable, Generator, Sequence
from contextlib import aclosing, contextmanager
from contextvars import ContextVar
from typing import Any, Literal, TypeVar, cast

import attrs

from agentcore._equality import fields_eq, fields_hash
from agentcore._repr import fields_repr
from agentcore._sessions.session import AgentSession
from agentcore._types.contents import (
    FunctionApprovalRequestContent,
    FunctionApprovalResponseContent,
    FunctionCallContent,
    FunctionResultContent,
    UserInputRequestContent,
    UserInputResponseContent,
)
from agentcore._types.messages import Message
from agentcore._types.responses import AgentResponse
from agentcore.protocols import SupportsAgentRun
from agentcore.workflows._context import WorkflowContext
from agentcore.workflows._decorators import response_handler
from agentcore.workflows._events import ExecutorEvent
from agentcore.workflows._ids import NO_DEPS, IdSource
from agentcore.workflows._typeexpr import with_article
from agentcore.workflows.errors import WorkflowTypeError

__all__ = [
    "AGENT_UPDATE",
    "AgentExecutor",
    "AgentPauses",
    "AgentTurn",
    "ContextMode",
    "caller_ids",
    "calling_agent",
    "check_answer",
]

AGENT_UPDATE = "agent_update"
"""The ``name`` of the live :class:`ExecutorEvent` carrying an agent executor's
``AgentResponseUpdate`` (under ``open_run``, and in ``run(stream=True)`` when the agent
is the only invocation of its superstep)."""

ContextMode = Literal["full", "inputs", "last"] | Callable[["AgentTurn"], Sequence[Message]]


# While an agent executor calls its agent, the invocation's ids (in a context variable,
# which loads with the first agent: a workflow of functions never needs one).
_caller_ids: ContextVar[IdSource | None] = ContextVar("agentcore_workflow_caller_ids", default=None)


@contextmanager
def calling_agent(ids: IdSource) -> Generator[None]:
    """While an agent executor calls ``agent.run(...)``: a workflow agent called there
    takes its ids from the invocation (:func:`caller_ids`), not at random."""
    token = _caller_ids.set(ids)
    try:
        yield
    finally:
        _caller_ids.reset(token)


def caller_ids() -> IdSource | None:
    """The id source of the workflow invocation calling this agent, if any."""
    return _caller_ids.get()


@attrs.frozen
class AgentTurn:
    """One agent executor's turn: its response and the conversation the next agent sees
    (the inputs so far plus this response's messages)."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    executor_id: str
    response: AgentResponse[Any]
    conversation: tuple[Message, ...]
    inputs: int = 0
    """How many messages of ``conversation`` came before this turn's response."""

    @property
    def text(self) -> str:
        """The response's text."""
        return self.response.text

    def with_text(self, text: str) -> AgentTurn:
        """The same turn with its answer replaced by ``text``; the context is kept."""
        answer = Message("assistant", text)
        return AgentTurn(
            self.executor_id,
            attrs.evolve(self.response, messages=(answer,)),
            (*self.conversation[: self.inputs], answer),
            self.inputs,
        )


@attrs.frozen
class AgentPauses:
    """An agent executor's state: answers received so far for its agents' paused runs
    (pause id, the answer as JSON), kept until every request of that pause is answered."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    answers: tuple[tuple[str, str], ...] = ()


Answer = FunctionApprovalResponseContent | UserInputResponseContent
AgentCtx = WorkflowContext[AgentTurn, AgentResponse[Any]]
_Kept = TypeVar("_Kept", bound="Answer | FunctionResultContent")


class AgentExecutor:
    """A ``SupportsAgentRun`` as an executor (what the builder wraps agents in).

    ``context`` chooses what an incoming :class:`AgentTurn` contributes: ``"full"``
    (its whole conversation), ``"inputs"`` (the conversation without its answer, e.g.
    after a triage agent), ``"last"`` (only its answer), or a function of the turn.
    """

    input_types: tuple[Any, ...] = (str, Message, Sequence[Message], AgentTurn)
    output_types: tuple[Any, ...] = (AgentTurn,)
    yield_types: tuple[Any, ...] = (AgentResponse,)
    state_type = AgentPauses

    def __init__(
        self, agent: SupportsAgentRun, *, id: str | None = None, context: ContextMode = "full"
    ) -> None:
        ident = id or agent.name
        if not ident:
            raise TypeError(f"the agent {agent!r} has no name: give it one, or pass id= to add()")
        if not (callable(context) or context in ("full", "inputs", "last")):
            raise ValueError(
                f'context must be "full", "inputs", "last" or a function, got {context!r}'
            )
        self._id = ident
        self._agent = agent
        self._context = context
        self._runner: Any = agent  # its run() may take deps= beside the protocol's arguments
        self._takes_deps = _takes_deps(agent)

    @property
    def id(self) -> str:
        return self._id

    @property
    def agent(self) -> SupportsAgentRun:
        return self._agent

    def _inputs(self, message: object) -> tuple[Message, ...]:
        if isinstance(message, str):
            return (Message("user", message),)
        if isinstance(message, Message):
            return (message,)
        if isinstance(message, AgentTurn):
            context = self._context
            if callable(context):
                return tuple(context(message))
            if context == "inputs":
                return message.conversation[: message.inputs]
            if context == "last":
                return message.response.messages
            return message.conversation
        return tuple(cast("Sequence[Message]", message))  # the remaining accepted input type

    async def handle(
        self,
        message: str | Message | Sequence[Message] | AgentTurn,
        ctx: WorkflowContext[AgentTurn, AgentResponse[Any]],
    ) -> None:
        """Run the agent on the message; yield its response, send the turn on."""
        live = ctx._live
        if live is not None:
            # under open_run: each update reaches the consumer at once (not kept in the
            # run's events or checkpoints: the response is)
            async with aclosing(self.handle_live(message, ctx)) as updates:
                async for event in updates:
                    await live(event)
            return
        inputs = self._inputs(message)
        session = self._session(ctx)
        with calling_agent(ctx._id_source()):
            running = self._runner.run(list(inputs), session=session, **self._deps(ctx))
        response = await running
        await self._commit(inputs, response, ctx, session)

    async def handle_live(
        self,
        message: str | Message | Sequence[Message] | AgentTurn,
        ctx: WorkflowContext[AgentTurn, AgentResponse[Any]],
    ) -> AsyncGenerator[ExecutorEvent, None]:
        """The streaming form of :meth:`handle` (same effects): the agent runs streaming
        and each ``AgentResponseUpdate`` is yielded as it arrives, as an
        ``ExecutorEvent`` named :data:`AGENT_UPDATE`."""
        inputs = self._inputs(message)
        session = self._session(ctx)
        with calling_agent(ctx._id_source()):
            stream = self._runner.run(list(inputs), session=session, stream=True, **self._deps(ctx))
        async with stream:
            async for update in stream:
                yield ExecutorEvent(self._id, AGENT_UPDATE, update)
            response = await stream.get_final_response()
        await self._commit(inputs, response, ctx, session)

    def _deps(self, ctx: AgentCtx) -> dict[str, Any]:
        """``deps=`` for the agent's run: the workflow call's, when it gave some and the
        agent's ``run`` takes them (agentcore's agents and workflow agents do)."""
        if ctx._deps is NO_DEPS or not self._takes_deps:
            return {}
        return {"deps": ctx._deps}

    def _session(self, ctx: AgentCtx) -> AgentSession:
        """A new session of the agent for one invocation, named after it
        (``"{run_id}/{node}/{superstep}.{ordinal}"``), so a run's checkpoints do not
        depend on a random session id."""
        session = self._agent.create_session()
        session.session_id = f"{ctx.run_id}/{self._id}/{ctx.superstep}.{ctx.ordinal}"
        return session

    @response_handler(
        request=FunctionApprovalRequestContent,
        response=FunctionApprovalResponseContent,
        output=AgentTurn,
        yields=AgentResponse,
    )
    async def on_approval(
        self,
        request: FunctionApprovalRequestContent,
        answer: FunctionApprovalResponseContent,
        ctx: AgentCtx,
    ) -> None:
        """An approval for the agent's paused run (see :meth:`_resume`)."""
        await self._resume(request, answer, ctx)

    @response_handler(
        request=UserInputRequestContent,
        response=UserInputResponseContent,
        output=AgentTurn,
        yields=AgentResponse,
    )
    async def on_user_input(
        self, request: UserInputRequestContent, answer: UserInputResponseContent, ctx: AgentCtx
    ) -> None:
        """A user's answer for the agent's paused run (see :meth:`_resume`)."""
        await self._resume(request, answer, ctx)

    @response_handler(
        request=FunctionCallContent,
        response=FunctionResultContent,
        output=AgentTurn,
        yields=AgentResponse,
    )
    async def on_function_result(
        self, call: FunctionCallContent, result: FunctionResultContent, ctx: AgentCtx
    ) -> None:
        """The caller's result for a call the agent left to it (a tool in
        ``additional_tools``); once every such call of the turn has one, the agent goes
        on with them in the same session."""
        if result.call_id != call.call_id:
            raise WorkflowTypeError(
                f"{self._id!r} was given the result of call {result.call_id!r} for its call "
                f"{call.call_id!r} ({call.name}); answer with "
                f"pending.create_response(FunctionResultContent(pending.data.call_id, ...))"
            )
        results = _collect(ctx, result.call_id, result, _read_result, _result_key)
        if results is None:
            return
        context = cast("dict[str, Any]", ctx.request_context)
        from agentcore.serialization import from_json, structure

        session = from_json(context["session"], AgentSession)
        inputs = tuple(structure(context["inputs"], list[Message]))
        answered = tuple(structure(context["answered"], list[Message]))
        results_message = Message("tool", results)
        # an agent that keeps the conversation (a history store, or a service's) has the
        # turn that made the calls: it gets the results alone; any other gets it again
        remembers = getattr(self._agent, "history", None) is not None or bool(
            session.service_conversation_id
        )
        again = () if remembers else (*inputs, *answered)
        with calling_agent(ctx._id_source()):
            running = self._runner.run(
                [*again, results_message], session=session, **self._deps(ctx)
            )
        response = await running
        await self._commit((*inputs, *answered, results_message), response, ctx, session)

    async def _resume(
        self,
        request: FunctionApprovalRequestContent | UserInputRequestContent,
        answer: Answer,
        ctx: AgentCtx,
    ) -> None:
        """Keep ``answer``; once every request of its pause is answered, resume the agent
        in the paused session with all of them at once (the kernel's own resume)."""
        check_answer(self._id, request, answer)
        answers = _collect(ctx, answer.id, answer, _read_answer, _answer_key)
        if answers is None:
            return
        context = cast("dict[str, Any]", ctx.request_context)
        from agentcore.serialization import from_json, structure

        session = from_json(context["session"], AgentSession)
        inputs = tuple(structure(context["inputs"], list[Message]))
        decisions = Message("user", answers)
        # An agent that keeps the conversation itself (a history store, or a service's
        # conversation) stored the inputs with the paused turn: it gets the decisions
        # alone, else the model would read the inputs twice. So does one that keeps its
        # pause elsewhere than ``session.paused`` (a workflow agent keeps its paused run
        # in the session's state, and refuses new input beside the answers).
        remembers = (
            getattr(self._agent, "history", None) is not None
            or bool(session.service_conversation_id)
            or session.paused is None
        )
        again = () if remembers else inputs
        with calling_agent(ctx._id_source()):
            running = self._runner.run([*again, decisions], session=session, **self._deps(ctx))
        response = await running
        await self._commit(inputs, response, ctx, session)

    async def _commit(
        self,
        inputs: tuple[Message, ...],
        response: AgentResponse[Any],
        ctx: AgentCtx,
        session: AgentSession,
    ) -> None:
        ctx.add_usage(response.usage)
        pauses: tuple[FunctionApprovalRequestContent | UserInputRequestContent, ...] = (
            *response.approval_requests,
            *response.user_input_requests,
        )
        if pauses:
            # the agent's own pause becomes the workflow's: one request per question,
            # with what resuming needs (the session and the inputs) as request context
            pauses = _renamed(pauses, session, ctx)
            from agentcore.serialization import to_json, unstructure

            context = {
                "pause": pauses[0].id,
                "ids": [p.id for p in pauses],
                "session": to_json(session),
                "inputs": unstructure(list(inputs)),
            }
            # each request is named by its content's id (design §3.10), so the caller
            # sees one id for the question whichever way it looks at it
            for p in pauses:
                if isinstance(p, FunctionApprovalRequestContent):
                    ctx._stage_request(p, FunctionApprovalResponseContent, context, p.id)
                else:
                    ctx._stage_request(p, UserInputResponseContent, context, p.id)
            return
        calls = _left_to_caller(response)
        if calls:
            # calls to tools the agent only declared (additional_tools) pause the workflow
            # as requests answered with a FunctionResultContent, named by their call ids
            from agentcore.serialization import to_json, unstructure

            context = {
                "pause": calls[0].call_id,
                "ids": [c.call_id for c in calls],
                "session": to_json(session),
                "inputs": unstructure(list(inputs)),
                "answered": unstructure(list(response.messages)),
            }
            for call in calls:
                ctx._stage_request(call, FunctionResultContent, context, call.call_id)
            return
        await ctx.yield_output(response)
        if ctx._node.reachable:  # an agent at the end of a graph sends nothing
            turn = AgentTurn(self._id, response, (*inputs, *response.messages), len(inputs))
            await ctx.send(turn)


Question = FunctionApprovalRequestContent | UserInputRequestContent


def check_answer(executor_id: str, request: Question, answer: Answer) -> None:
    """Refuse an answer that is not ``request``'s own (another id, another call, or the
    other kind of answer): the kernel would ignore it and the agent would wait on."""
    kind = (
        FunctionApprovalResponseContent
        if isinstance(request, FunctionApprovalRequestContent)
        else UserInputResponseContent
    )
    if (
        answer.id != request.id
        or answer.function_call != request.function_call
        or not isinstance(answer, kind)
    ):
        raise WorkflowTypeError(
            f"{executor_id!r} was given {with_article(type(answer).__name__)} for {answer.id!r} "
            f"({answer.function_call.name}) to its request {request.id!r} "
            f"({request.function_call.name}); answer with "
            f"pending.create_response(pending.data.create_response(...))"
        )


def _takes_deps(agent: SupportsAgentRun) -> bool:
    try:
        parameters = inspect.signature(agent.run).parameters.values()
    except (TypeError, ValueError):  # a run() whose signature cannot be read: pass none
        return False
    return any(p.name == "deps" or p.kind is p.VAR_KEYWORD for p in parameters)


def _renamed(
    pauses: tuple[Question, ...], session: AgentSession, ctx: AgentCtx
) -> tuple[Question, ...]:
    """The pause's requests under ids from the workflow run's id source instead of the
    agent run's (which is random), in the requests and in the paused session alike, so
    the workflow's checkpoints depend on its own ids only. An agent that keeps its
    pause elsewhere than ``session.paused`` keeps its own ids (it checks the answers)."""
    paused = session.paused
    held = {} if paused is None else {r.id: r for r in paused.requests}
    if paused is None or any(held.get(p.id) != p for p in pauses):
        return pauses
    ids = ctx._id_source()
    renamed: dict[str, Question] = {
        p.id: attrs.evolve(p, id=f"apr_{ids.token(16)}") for p in pauses
    }
    requests = [renamed.get(r.id, r) for r in paused.requests]
    session.paused = attrs.evolve(paused, requests=requests)
    return tuple(renamed[p.id] for p in pauses)


def _left_to_caller(response: AgentResponse[Any]) -> tuple[FunctionCallContent, ...]:
    """The function calls of ``response`` it holds no result for: calls the agent's loop
    left to its caller (tools declared in ``additional_tools``)."""
    results = {
        c.call_id
        for m in response.messages
        for c in m.contents
        if isinstance(c, FunctionResultContent)
    }
    return tuple(
        c
        for m in response.messages
        for c in m.contents
        if isinstance(c, FunctionCallContent) and c.call_id not in results
    )


def _collect(
    ctx: AgentCtx,
    key: str,
    value: _Kept,
    read: Callable[[str], _Kept],
    key_of: Callable[[_Kept], str],
) -> list[_Kept] | None:
    """Keep ``value`` (under ``key``) among the answers of its pause, in the executor's
    state; once every request of the pause has one, drop them from the state and return
    them in request order, else ``None``: one pause answered piece by piece."""
    context = cast("dict[str, Any]", ctx.request_context)
    pause: str = context["pause"]
    ids: list[str] = context["ids"]
    kept = (ctx.get_state(AgentPauses) or AgentPauses()).answers
    mine = {key_of(v): v for v in (read(text) for p, text in kept if p == pause)}
    mine[key] = value
    others = tuple((p, text) for p, text in kept if p != pause)
    if len(mine) < len(ids):
        kept_now = tuple((pause, _write_answer(v)) for v in mine.values())
        ctx.set_state(AgentPauses((*others, *kept_now)))
        return None
    if kept:
        ctx.set_state(AgentPauses(others))
    return [mine[i] for i in ids]


def _result_key(result: FunctionResultContent) -> str:
    return result.call_id


def _answer_key(answer: Answer) -> str:
    return answer.id


def _read_result(text: str) -> FunctionResultContent:
    from agentcore.serialization import structure

    return structure(json.loads(text), FunctionResultContent)


def _read_answer(text: str) -> Answer:
    """An answer kept in :class:`AgentPauses`, read back by its content tag."""
    from agentcore.serialization import structure

    data = json.loads(text)
    if data.get("type") == "function_approval_response":
        return structure(data, FunctionApprovalResponseContent)
    return structure(data, UserInputResponseContent)


def _write_answer(answer: Answer | FunctionResultContent) -> str:
    from agentcore.serialization import unstructure

    return json.dumps(unstructure(answer))
