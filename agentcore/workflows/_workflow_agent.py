"""A workflow as an agent: ``workflow.as_agent()`` satisfies ``SupportsAgentRun``.

Sessions map to runs. Without a checkpoint store the run's checkpoint is kept (as
JSON) in ``session.state["agentcore.workflow"]``, so saving the session saves a paused
workflow; with one (``as_agent(checkpoints=store)``) the session keeps only the run's id
there and the store keeps the run. Each final output becomes assistant messages. A
pending request that is already one of the kernel's request contents (an inner agent's
``FunctionApprovalRequestContent`` or ``UserInputRequestContent``) comes back as that
content, as a plain ``Agent`` returns it, and is answered with its own
``create_response(...)``; any other request comes back as a call to the caller-side
``request_info`` tool (seed 002's ``WorkflowAgent.REQUEST_INFO_FUNCTION_NAME``),
answered with a ``FunctionResultContent`` for that call. Answers go in the next run on
the same session. A new user message while requests are pending cancels them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, Literal, Protocol, cast, overload

import attrs

from agentcore._agent.input import normalize_input
from agentcore._sessions.session import AgentSession
from agentcore._streams.stream import ResponseStream
from agentcore._types.contents import (
    Content,
    FunctionApprovalRequestContent,
    FunctionApprovalResponseContent,
    FunctionCallContent,
    FunctionResultContent,
    UserInputRequestContent,
    UserInputResponseContent,
)
from agentcore._types.messages import Message
from agentcore._types.responses import AgentResponse, AgentResponseUpdate
from agentcore.errors import RunStateError
from agentcore.tools import FunctionTool
from agentcore.workflows._agent_executor import AgentTurn, caller_ids, check_answer
from agentcore.workflows._events import WorkflowOutput
from agentcore.workflows._ids import NO_DEPS, IdSource, RandomIds
from agentcore.workflows._request_info import (
    REQUEST_INFO_TOOL,
    REQUEST_INFO_TOOL_NAME,
    RequestInfoArguments,
)
from agentcore.workflows._requests import PendingRequest, WorkflowResponse
from agentcore.workflows._typeexpr import compatible, describe, with_article
from agentcore.workflows._value import WorkflowCheckpoint
from agentcore.workflows.protocols import CheckpointStore

__all__ = ["REQUEST_INFO_TOOL_NAME", "RequestInfoArguments", "WorkflowAgent"]

_STATE_KEY = "agentcore.workflow"
_MESSAGE_TYPES: tuple[Any, ...] = (str, Message, Sequence[Message], AgentResponse, AgentTurn)


class _Definition(Protocol):
    """What a WorkflowAgent needs of its workflow (``Workflow`` has this shape)."""

    @property
    def name(self) -> str: ...
    @property
    def description(self) -> str | None: ...
    @property
    def input_types(self) -> tuple[Any, ...]: ...
    @property
    def output_types(self) -> tuple[Any, ...]: ...
    def restore(self, record: Any) -> WorkflowCheckpoint: ...


def _messages_of(value: object) -> list[Message]:
    if isinstance(value, str):
        return [Message("assistant", value)]
    if isinstance(value, Message):
        return [value]
    if isinstance(value, AgentResponse):
        return list(value.messages)
    if isinstance(value, AgentTurn):
        return list(value.response.messages)
    if isinstance(value, Sequence):
        items = cast("Sequence[object]", value)
        return [m for m in items if isinstance(m, Message)]
    raise TypeError(
        f"a workflow agent cannot turn {with_article(type(value).__qualname__)} into messages"
    )


def _with_ids(messages: list[Message], ids: IdSource | None) -> list[Message]:
    """Each message an id where it has none (from ``ids``, the calling run's source, else
    random): a caller folding the turn's streamed updates (``AgentResponse.from_updates``)
    would otherwise read two adjacent messages of one role as one."""
    source = ids if ids is not None else RandomIds()
    return [
        m if m.message_id is not None else attrs.evolve(m, message_id=f"msg_{source.token(12)}")
        for m in messages
    ]


class WorkflowAgent:
    """A workflow as a ``SupportsAgentRun`` (made by ``workflow.as_agent()``)."""

    def __init__(
        self,
        workflow: _Definition,
        *,
        name: str | None = None,
        description: str | None = None,
        input_adapter: Callable[[tuple[Message, ...]], Any] | None = None,
        output_adapter: Callable[[Any], Sequence[Message]] | None = None,
        checkpoints: CheckpointStore | None = None,
    ) -> None:
        if checkpoints is not None and not callable(getattr(checkpoints, "load", None)):
            raise TypeError(
                f"checkpoints= takes a checkpoint store (SqliteCheckpointStore(path), "
                f"InMemoryCheckpointStore(), or an object with save and load), "
                f"got {type(checkpoints).__name__}"
            )
        takes = workflow.input_types
        if input_adapter is None and not any(
            compatible(t, accepted) for t in (str, tuple[Message, ...]) for accepted in takes
        ):
            raise TypeError(
                f"workflow {workflow.name!r} starts with "
                f"{' | '.join(describe(t) for t in takes)}; as_agent() passes str or messages, "
                f"so give input_adapter=(messages) -> input"
            )
        gives = workflow.output_types
        if output_adapter is None and not all(
            any(compatible(t, ok) for ok in _MESSAGE_TYPES) for t in gives
        ):
            raise TypeError(
                f"workflow {workflow.name!r} outputs {' | '.join(describe(t) for t in gives)}, "
                f"which are not messages; give output_adapter=(output) -> list[Message]"
            )
        self._workflow = workflow
        self._name = name or workflow.name
        self._description = description if description is not None else workflow.description
        self._input_adapter = input_adapter
        self._output_adapter = output_adapter
        self._store = checkpoints
        self._takes_text = input_adapter is None and not any(
            compatible(tuple[Message, ...], accepted) for accepted in takes
        )

    @property
    def name(self) -> str | None:
        return self._name

    @property
    def description(self) -> str | None:
        return self._description

    @property
    def workflow(self) -> _Definition:
        return self._workflow

    @property
    def request_info_tool(self) -> FunctionTool[..., Any]:
        """The declaration of the caller-side ``request_info`` tool, for
        ``FunctionInvocationConfiguration(additional_tools=[...])`` or a UI's tool list
        (calling it here raises ``RunStateError``: the caller answers it)."""
        return REQUEST_INFO_TOOL

    def as_tool(
        self, *, name: str | None = None, description: str | None = None
    ) -> FunctionTool[..., Any]:
        """This workflow as a function tool of another agent, as ``Agent.as_tool()``: it
        takes one ``task`` string and returns the outputs' text. A pending request pauses
        the calling agent with a ``UserInputRequestContent`` (through ``ToolContext.ask``);
        the answer (JSON for the response type, or text for ``str``) resumes the same
        workflow run. The calling agent needs a session to pause and resume."""
        from agentcore.workflows._workflow_tool import workflow_as_tool

        return workflow_as_tool(self, self._bridged, name=name, description=description)

    def create_session(self, *, session_id: str | None = None) -> AgentSession:
        """A new session: each session drives one workflow run, turn after turn."""
        return AgentSession() if session_id is None else AgentSession(session_id=session_id)

    @overload
    def run(
        self,
        messages: Any = None,
        *,
        session: AgentSession | None = None,
        stream: Literal[False] = False,
        deps: Any = ...,
    ) -> Awaitable[AgentResponse[Any]]: ...
    @overload
    def run(
        self,
        messages: Any = None,
        *,
        session: AgentSession | None = None,
        stream: Literal[True],
        deps: Any = ...,
    ) -> ResponseStream[AgentResponseUpdate, AgentResponse[Any]]: ...
    def run(
        self,
        messages: Any = None,
        *,
        session: AgentSession | None = None,
        stream: bool = False,
        deps: Any = NO_DEPS,
    ) -> Any:
        """Run one turn. Text or messages start (or continue) the session's run; function
        results for its ``request_info`` calls, and the ``create_response(...)`` of the
        approval and input requests it passed through, answer them. ``deps`` reaches the
        workflow's handlers (``ctx.deps``), as ``workflow.run(..., deps=...)``."""
        turn = self._turn(messages, session, caller_ids(), deps, pass_through=True)
        if not stream:
            return turn
        return ResponseStream.from_awaitable(_as_stream(turn))

    def _bridged(
        self, messages: object, *, session: AgentSession, deps: Any = NO_DEPS
    ) -> Awaitable[AgentResponse[Any]]:
        """A turn in which every pending request is a ``request_info`` call, kernel
        contents too: what ``as_tool()`` answers through ``ToolContext.ask``."""
        return self._turn(messages, session, caller_ids(), deps, pass_through=False)

    async def _turn(
        self,
        messages: object,
        session: AgentSession | None,
        ids: IdSource | None,
        deps: Any,
        *,
        pass_through: bool,
    ) -> AgentResponse[Any]:
        """One turn; ``ids``: the calling workflow invocation's id source (the run's ids
        then follow the caller's, as the rest of the caller's run), else random.
        ``pass_through``: pending approval and user-input requests come back as the
        kernel's own contents (else as ``request_info`` calls)."""
        inputs = normalize_input(messages)
        saved = None if session is None else session.state.get(_STATE_KEY)
        run_id, checkpoint = await self._saved_run(saved)
        results = [c for m in inputs for c in m.contents if isinstance(c, FunctionResultContent)]
        decisions = [c for m in inputs for c in m.contents if isinstance(c, _DECISIONS)]
        said = [m for m in inputs if any(not isinstance(c, _ANSWERS) for c in m.contents)]
        runner: Any = self._workflow
        # With a store the run goes on by its id (the store holds it); without one, from
        # the checkpoint value the session keeps.
        where: dict[str, Any] = (
            {"checkpoint": checkpoint}
            if self._store is None
            else {"checkpoints": self._store, "run_id": run_id}
        )
        if results or decisions:
            if said:
                raise RunStateError(
                    "this turn both answers the workflow's pending requests and says "
                    "something new; a paused workflow run takes only the answers. Send the "
                    "answers in one run() and the new message in the next"
                )
            if checkpoint is None:
                raise RunStateError(
                    "function results or approval/input responses were given, but no "
                    "workflow run is paused in this session"
                )
            responses = [self._response(checkpoint, r) for r in results]
            responses.extend(_decision(checkpoint, d) for d in decisions)
            result = await runner.run(responses=responses, ids=ids, deps=deps, **where)
        else:
            earlier = _conversation(session)
            start = self._start_value(tuple(said), earlier)
            paused = checkpoint is not None and checkpoint.status == "paused"
            result = await runner.run(start, cancel_pending=paused, ids=ids, deps=deps, **where)
        if session is not None:
            if self._store is not None:
                session.state[_STATE_KEY] = {"run_id": result.run_id}
            elif result.checkpoint is not None:
                from agentcore.serialization import to_json

                session.state[_STATE_KEY] = to_json(result.checkpoint)
        out: list[Message] = []
        producers = [e.executor_id for e in result.events if isinstance(e, WorkflowOutput)]
        if len(producers) != len(result.outputs):  # a run that kept no events
            producers = [""] * len(result.outputs)
        for value, producer in zip(result.outputs, producers, strict=True):
            made = self._output_adapter(value) if self._output_adapter else _messages_of(value)
            # a message its producer left unsigned carries the executor's id, as a
            # chat agent's carry its name
            out.extend(
                m if m.author_name or not producer else attrs.evolve(m, author_name=producer)
                for m in made
            )
        if session is not None:
            _remember(session, said, out)
        asked = [_asked(r, pass_through) for r in result.requests]
        if asked:
            out.append(Message("assistant", asked))
        if len(out) > 1:
            out = _with_ids(out, ids)
        return AgentResponse(messages=tuple(out), agent_name=self._name)

    async def _saved_run(self, saved: Any) -> tuple[str | None, WorkflowCheckpoint | None]:
        """The session's run: its id and latest checkpoint (``None``, ``None`` when the
        session has not run the workflow yet)."""
        if saved is None:
            return None, None
        if self._store is None:
            if not isinstance(saved, str):
                raise RunStateError(
                    "this session's workflow run lives in a checkpoint store; pass the same "
                    "store to as_agent(checkpoints=...) to continue it"
                )
            checkpoint = self._workflow.restore(saved)
            return checkpoint.run_id, checkpoint
        held = cast("dict[str, object]", saved) if isinstance(saved, dict) else {}
        run_id = held.get("run_id")
        if not isinstance(run_id, str):
            raise RunStateError(
                "this session holds its workflow run as a checkpoint, not a run id in a "
                "store; use the workflow agent made without checkpoints= to continue it"
            )
        record = await self._store.load(run_id)
        if record is None:
            raise RunStateError(
                f"the checkpoint store holds no run {run_id!r}, which this session drives "
                f"(was it pruned or deleted, or is this another store?)"
            )
        return run_id, self._workflow.restore(record)

    def _start_value(self, messages: tuple[Message, ...], earlier: tuple[Message, ...]) -> Any:
        """What the start executor receives: the conversation so far (``earlier``, the
        session's turns and answers) and this turn's messages; a workflow that starts
        with text gets this turn's user text."""
        if self._input_adapter is not None:
            return self._input_adapter((*earlier, *messages))
        if self._takes_text:
            return "\n".join(m.text for m in messages if m.role == "user")
        return (*earlier, *messages)

    @staticmethod
    def _response(
        checkpoint: WorkflowCheckpoint, result: FunctionResultContent
    ) -> WorkflowResponse[Any]:
        pending = {r.id: r for r in checkpoint.requests}
        request = pending.get(result.call_id)
        if request is None:
            raise RunStateError(
                f"no pending request has id {result.call_id!r}; pending: "
                f"{', '.join(pending) or 'none'}"
            )
        from agentcore.serialization import structure

        try:
            value = structure(result.result, request.response_type)
            return request.create_response(value)
        except (TypeError, ValueError) as exc:
            raise RunStateError(
                f"the answer to request {request.id!r} does not fit "
                f"{describe(request.response_type)}: {exc}"
            ) from exc


_CONVERSATION_KEY = "agentcore.workflow.conversation"
"""Where a session keeps its conversation with the workflow agent (JSON messages)."""


def _conversation(session: AgentSession | None) -> tuple[Message, ...]:
    """The session's conversation so far: what its turns said and the workflow answered."""
    if session is None:
        return ()
    kept = session.state.get(_CONVERSATION_KEY)
    if not kept:
        return ()
    from agentcore.serialization import structure

    return tuple(structure(kept, list[Message]))


def _remember(session: AgentSession, said: Sequence[Message], answered: Sequence[Message]) -> None:
    """Add a turn's messages and the workflow's answer to the session's conversation."""
    if not said and not answered:
        return
    from agentcore.serialization import unstructure

    kept = list(session.state.get(_CONVERSATION_KEY) or ())
    kept.extend(unstructure([*said, *answered]))
    session.state[_CONVERSATION_KEY] = kept


_QUESTIONS: dict[type[Any], type[Any]] = {
    FunctionApprovalRequestContent: FunctionApprovalResponseContent,
    UserInputRequestContent: UserInputResponseContent,
}
"""The kernel's request contents a workflow agent passes through, and their answers."""
_DECISIONS = (FunctionApprovalResponseContent, UserInputResponseContent)
_ANSWERS = (FunctionResultContent, *_DECISIONS)


def _passes_through(request: PendingRequest[Any, Any]) -> bool:
    data: object = request.data
    return _QUESTIONS.get(type(data)) is request.response_type


def _asked(request: PendingRequest[Any, Any], pass_through: bool) -> Content:
    """A pending request as the caller sees it: an inner agent's approval or input
    request as the content itself (as a plain Agent returns it), anything else as a
    ``request_info`` call. The content keeps its id, which is the request's, unless
    the run had to name the request otherwise (an agent that keeps its own ids asked
    under an id already pending): then it carries the request's id, so every question
    the caller sees has its own."""
    if pass_through and _passes_through(request):
        content: FunctionApprovalRequestContent | UserInputRequestContent = request.data
        return content if content.id == request.id else attrs.evolve(content, id=request.id)
    return FunctionCallContent(
        request.id, REQUEST_INFO_TOOL_NAME, RequestInfoArguments.from_request(request).to_dict()
    )


def _decision(
    checkpoint: WorkflowCheckpoint,
    decision: FunctionApprovalResponseContent | UserInputResponseContent,
) -> WorkflowResponse[Any]:
    """The workflow response carrying the caller's ``decision`` on a passed-through
    request (matched by id; the agent sees the answer under its content's own id)."""
    pending = {r.id: r for r in checkpoint.requests}
    request = pending.get(decision.id)
    if request is None or not _passes_through(request):
        raise RunStateError(
            f"no pending approval or input request has id {decision.id!r}; pending: "
            f"{', '.join(pending) or 'none'}"
        )
    question: FunctionApprovalRequestContent | UserInputRequestContent = request.data
    answer = decision if decision.id == question.id else attrs.evolve(decision, id=question.id)
    check_answer(request.executor_id, question, answer)
    return request.create_response(answer)


async def _as_stream(
    turn: Any,
) -> ResponseStream[AgentResponseUpdate, AgentResponse[Any]]:
    response: AgentResponse[Any] = await turn

    async def updates() -> AsyncIterator[AgentResponseUpdate]:
        for message in response.messages:
            yield AgentResponseUpdate(
                message.contents,
                message.role,
                author_name=message.author_name,
                agent_name=response.agent_name,
                message_id=message.message_id,
                additional_properties=message.additional_properties,
            )

    return ResponseStream(updates(), finalizer=lambda _: response)
