"""Any agent (``SupportsAgentRun``) as a workflow executor.

``AgentExecutor`` accepts a ``str``, a ``Message``, a sequence of messages or a
previous agent's :class:`AgentTurn`, runs the agent, yields its
``AgentResponse`` (a final output when the node is an output executor) and, when
the node has outgoing edges, sends an :class:`AgentTurn` carrying the
conversation the next agent should see. It holds no run data.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal, cast

import attrs

from agentcore._types.messages import Message
from agentcore._types.responses import AgentResponse
from agentcore.protocols import SupportsAgentRun
from agentcore.workflows._context import WorkflowContext
from agentcore.workflows._events import ExecutorEvent

__all__ = ["AGENT_UPDATE", "AgentExecutor", "AgentTurn", "ContextMode"]

AGENT_UPDATE = "agent_update"
"""The ``name`` of the live :class:`ExecutorEvent` carrying an agent executor's
``AgentResponseUpdate`` under ``open_run``."""

ContextMode = Literal["full", "inputs", "last"] | Callable[["AgentTurn"], Sequence[Message]]


@attrs.frozen
class AgentTurn:
    """One agent executor's turn: its response and the conversation the next agent sees
    (the inputs so far plus this response's messages)."""

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


class AgentExecutor:
    """A ``SupportsAgentRun`` as an executor (what the builder wraps agents in).

    ``context`` chooses what an incoming :class:`AgentTurn` contributes: ``"full"``
    (its whole conversation), ``"inputs"`` (the conversation without its answer, e.g.
    after a triage agent), ``"last"`` (only its answer), or a function of the turn.
    """

    input_types: tuple[Any, ...] = (str, Message, Sequence[Message], AgentTurn)
    output_types: tuple[Any, ...] = (AgentTurn,)
    yield_types: tuple[Any, ...] = (AgentResponse,)

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
        inputs = self._inputs(message)
        live = ctx._live
        if live is None:
            response = await self._agent.run(list(inputs))
        else:
            # under open_run: each update reaches the consumer at once (not kept in the
            # run's events or checkpoints: the response is)
            stream = self._agent.run(list(inputs), stream=True)
            async for update in stream:
                await live(ExecutorEvent(self._id, AGENT_UPDATE, update))
            response = await stream.get_final_response()
        await ctx.yield_output(response)
        if ctx._node.reachable:  # an agent at the end of a graph sends nothing
            turn = AgentTurn(self._id, response, (*inputs, *response.messages), len(inputs))
            await ctx.send(turn)
