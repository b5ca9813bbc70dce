"""A workflow as an agent: ``workflow.as_agent()`` satisfies ``SupportsAgentRun``.

Sessions map to runs. Without a checkpoint store the run's checkpoint is kept (as
JSON) in ``session.state["agentcore.workflow"]``, so saving the session saves a paused
workflow; with one (``as_agent(checkpoints=store)``) the session keeps only the run's id
there and the store keeps the run. Each final output becomes assistant messages. A
pending request comes back as a call to the caller-side ``request_info`` tool (seed 002's
``WorkflowAgent.REQUEST_INFO_FUNCTION_NAME``); the caller answers with a
``FunctionResultContent`` for that call in the next run on the same session. A
new user message while requests are pending cancels them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, Literal, Protocol, cast, overload

from agentcore._sessions.session import AgentSession
from agentcore._streams.stream import ResponseStream
from agentcore._types.contents import FunctionCallContent, FunctionResultContent
from agentcore._types.messages import Message
from agentcore._types.responses import AgentResponse, AgentResponseUpdate
from agentcore.errors import RunStateError
from agentcore.structured import json_schema_for
from agentcore.tools import FunctionTool
from agentcore.workflows._agent_executor import AgentTurn, caller_ids
from agentcore.workflows._codec import type_key
from agentcore.workflows._ids import NO_DEPS, IdSource
from agentcore.workflows._request_info import (
    REQUEST_INFO_TOOL,
    REQUEST_INFO_TOOL_NAME,
    RequestInfoArguments,
)
from agentcore.workflows._requests import PendingRequest, WorkflowResponse
from agentcore.workflows._typeexpr import compatible, describe
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


def _schema(tp: Any) -> dict[str, Any] | None:
    try:
        return json_schema_for(tp)[1]
    except Exception:  # a type the schema builder cannot describe: the key still names it
        return None


def _arguments(request: PendingRequest[Any, Any]) -> RequestInfoArguments:
    from agentcore.serialization import unstructure

    return RequestInfoArguments(
        request.id,
        request.executor_id,
        type_key(type(request.data)),
        unstructure(request.data),
        type_key(request.response_type),
        _schema(request.response_type),
        request.path,
    )


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
    raise TypeError(f"a workflow agent cannot turn a {type(value).__qualname__} into messages")


def _inputs(messages: object) -> list[Message]:
    if messages is None:
        return []
    if isinstance(messages, (str, Message)):
        messages = [messages]
    items = cast("Sequence[object]", messages) if isinstance(messages, Sequence) else [messages]
    out: list[Message] = []
    for m in items:
        if isinstance(m, str):
            out.append(Message("user", m))
        elif isinstance(m, Message):
            out.append(m)
        else:
            raise TypeError(f"a workflow agent takes text or messages, got {m!r}")
    return out


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

        return workflow_as_tool(self, name=name, description=description)

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
        results for its ``request_info`` calls answer them. ``deps`` reaches the
        workflow's handlers (``ctx.deps``), as ``workflow.run(..., deps=...)``."""
        turn = self._turn(messages, session, caller_ids(), deps)
        if not stream:
            return turn
        return ResponseStream.from_awaitable(_as_stream(turn))

    async def _turn(
        self, messages: object, session: AgentSession | None, ids: IdSource | None, deps: Any
    ) -> AgentResponse[Any]:
        """One turn; ``ids``: the calling workflow invocation's id source (the run's ids
        then follow the caller's, as the rest of the caller's run), else random."""
        inputs = _inputs(messages)
        saved = None if session is None else session.state.get(_STATE_KEY)
        run_id, checkpoint = await self._saved_run(saved)
        results = [c for m in inputs for c in m.contents if isinstance(c, FunctionResultContent)]
        said = [
            m for m in inputs if any(not isinstance(c, FunctionResultContent) for c in m.contents)
        ]
        runner: Any = self._workflow
        # With a store the run goes on by its id (the store holds it); without one, from
        # the checkpoint value the session keeps.
        where: dict[str, Any] = (
            {"checkpoint": checkpoint}
            if self._store is None
            else {"checkpoints": self._store, "run_id": run_id}
        )
        if results:
            if checkpoint is None:
                raise RunStateError("function results were given, but no workflow run is paused")
            responses = [self._response(checkpoint, r) for r in results]
            result = await runner.run(responses=responses, ids=ids, deps=deps, **where)
        else:
            start = self._start_value(tuple(said))
            paused = checkpoint is not None and checkpoint.status == "paused"
            result = await runner.run(start, cancel_pending=paused, ids=ids, deps=deps, **where)
        if session is not None:
            if self._store is not None:
                session.state[_STATE_KEY] = {"run_id": result.run_id}
            elif result.checkpoint is not None:
                from agentcore.serialization import to_json

                session.state[_STATE_KEY] = to_json(result.checkpoint)
        out: list[Message] = []
        for value in result.outputs:
            out.extend(self._output_adapter(value) if self._output_adapter else _messages_of(value))
        calls = [
            FunctionCallContent(r.id, REQUEST_INFO_TOOL_NAME, _arguments(r).to_dict())
            for r in result.requests
        ]
        if calls:
            out.append(Message("assistant", calls))
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

    def _start_value(self, messages: tuple[Message, ...]) -> Any:
        if self._input_adapter is not None:
            return self._input_adapter(messages)
        if self._takes_text:
            return "\n".join(m.text for m in messages if m.role == "user")
        return messages

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


async def _as_stream(
    turn: Any,
) -> ResponseStream[AgentResponseUpdate, AgentResponse[Any]]:
    response: AgentResponse[Any] = await turn

    async def updates() -> AsyncIterator[AgentResponseUpdate]:
        for message in response.messages:
            yield AgentResponseUpdate(
                message.contents, message.role, agent_name=response.agent_name
            )

    return ResponseStream(updates(), finalizer=lambda _: response)
