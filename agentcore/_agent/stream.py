"""A streaming agent run: the tool loop's updates, read in place as agent updates.

The run is one :class:`ResponseStream`. Its source prepares the run, delegates to
the tool loop (which delegates to each model stream), then commits; each chat
update becomes an agent update on the way out, and custom events are injected in
order. Read unchanged, the stream's final value is the committed response.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable, Sequence
from contextlib import aclosing
from typing import TYPE_CHECKING, Any

import attrs

from agentcore._agent.run import (
    RunSupport,
    after_run,
    commit,
    on_agent_termination,
    prepare,
    with_run_events,
)
from agentcore._loop.config import FunctionInvocationConfiguration
from agentcore._loop.loop import drive
from agentcore._streams.reader import Delegate
from agentcore._streams.replay import StreamEnd
from agentcore._streams.stream import ResponseStream
from agentcore._types.responses import AgentResponse, AgentResponseUpdate, CustomEvent
from agentcore.errors import RunStateError
from agentcore.middleware._contexts import AgentContext
from agentcore.middleware._pipeline import Pipelines, run_pipeline
from agentcore.structured import parse_answer

if TYPE_CHECKING:
    from agentcore._agent.agent import Agent

__all__ = ["open_run_stream", "run_streaming"]


async def run_streaming(
    agent: Agent,
    support: RunSupport,
    context: AgentContext,
    pipelines: Pipelines,
    config: FunctionInvocationConfiguration,
) -> ResponseStream[AgentResponseUpdate, AgentResponse[Any]]:
    """The setup of a streaming run: agent middleware around opening the stream."""
    observers = support.observers
    run = context.run
    if observers:
        from agentcore.observers import RunStarted

        await observers.notify(
            "on_run_start", RunStarted(run.run_id, agent.name, tuple(context.messages))
        )

    async def core(ctx: AgentContext) -> None:
        ctx.result = open_run_stream(agent, support, ctx, pipelines, config)

    try:
        await run_pipeline(pipelines.agent, context, core, on_agent_termination)
    except BaseException as exc:
        if observers:
            from agentcore.observers import RunEnded

            await observers.notify("on_run_end", RunEnded(run.run_id, agent.name, error=exc))
        raise
    result = context.result
    if isinstance(result, ResponseStream):
        return result
    # Short-circuited or terminated with a response: replay it as the stream.
    if result is None:
        result = AgentResponse(agent_name=agent.name)
    response = with_run_events(result, run)
    replay = ResponseStream.from_response(response)
    observers = support.observers
    if not observers:
        return replay

    async def ended(end: StreamEnd[AgentResponse[Any]]) -> None:
        if end.how == "completed":
            from agentcore.observers import RunEnded

            await observers.notify("on_run_end", RunEnded(run.run_id, agent.name, response))

    return replay.on_end(ended)


def open_run_stream(
    agent: Agent,
    support: RunSupport,
    context: AgentContext,
    pipelines: Pipelines,
    config: FunctionInvocationConfiguration,
) -> ResponseStream[AgentResponseUpdate, AgentResponse[Any]]:
    """The run as a stream: the loop's updates, each made an agent update.

    Read as the run produced them, the updates fold into the response the run
    commits, so that is the final value; transforms stacked by agent middleware
    get the fold of what they produced. The stream keeps the loop's updates, not
    the agent updates made of them, for the fold it needs only if it is closed
    early: the caller's agent updates are freed as soon as the caller drops them.
    """
    record = _StreamRecord()
    convert = support.to_agent_update
    stream: ResponseStream[AgentResponseUpdate, AgentResponse[Any]] = ResponseStream._of(  # pyright: ignore[reportPrivateUsage]  # the agent builds its run's stream
        _stream_source(agent, support, context, pipelines, config, record),
        finalizer=_stream_finalizer(context.options.get("response_format"), convert),
        direct=record.committed,
        transform=convert,
        collects_inputs=True,
    )
    record.stream = stream
    return stream


def _stream_finalizer(
    response_format: Any, convert: Callable[[Any], AgentResponseUpdate]
) -> Callable[[Sequence[Any]], AgentResponse[Any]]:
    """The final value of a stream that was closed early or transformed by agent
    middleware: the fold of what was read, with structured output parsed from it.

    ``updates`` are what the consumer read: the loop's (chat) updates of a stream
    closed early, or the agent updates of a transformed one; ``convert`` makes
    each an agent update (agent updates pass unchanged). The finalizer holds the
    run's ``response_format``, not its context: the context holds the stream, and
    a cycle between them would be left for the garbage collector.
    """

    def finalize(updates: Sequence[Any]) -> AgentResponse[Any]:
        folded = AgentResponse.from_updates(map(convert, updates))
        if response_format is None or folded.approval_requests:
            return folded
        value = parse_answer(response_format, folded.messages)
        if value is None:
            return folded
        return attrs.evolve(folded, value=value)

    return finalize


async def _stream_source(
    agent: Agent,
    support: RunSupport,
    context: AgentContext,
    pipelines: Pipelines,
    config: FunctionInvocationConfiguration,
    record: _StreamRecord,
) -> AsyncGenerator[AgentResponseUpdate | Delegate, None]:
    observers = support.observers
    run = context.run
    session_id = None if context.session is None else context.session.session_id
    turns = support.turns
    try:
        if session_id is not None and not turns.try_enter(session_id):
            await turns.enter(session_id)  # runs of one session take turns
        try:
            prepared = await prepare(agent, support, context, pipelines, config)
            # Taken off the record, which the stream holds: no reference cycle is
            # left for the garbage collector once the run is over.
            stream, record.stream = record.stream, None
            assert stream is not None
            name = agent.name

            def deliver(event: CustomEvent) -> None:
                # In order with the rest: before the next update read.
                stream._inject(AgentResponseUpdate(event=event, agent_name=name))  # pyright: ignore[reportPrivateUsage]  # the agent owns its run's stream

            # Events agent middleware or context providers emitted before the stream
            # started come first.
            for event in run.events:
                deliver(event)
            run._sink = deliver  # pyright: ignore[reportPrivateUsage]  # the agent owns the run's event sink
            try:
                async with aclosing(drive(prepared.state)) as loop_updates:
                    yield Delegate(loop_updates)  # the loop's updates, read in place
            finally:
                run._sink = None  # pyright: ignore[reportPrivateUsage]  # the agent owns the run's event sink
            response = record.response = await commit(agent, context, prepared)
        finally:
            if session_id is not None:
                turns.leave(session_id)
        if agent.context_providers:
            # after_run sees the response; the caller's context keeps the stream.
            await after_run(agent, attrs.evolve(context, result=response))
    except BaseException as exc:
        if observers:
            from agentcore.observers import RunEnded

            await observers.notify("on_run_end", RunEnded(run.run_id, agent.name, error=exc))
        raise
    if observers:
        from agentcore.observers import RunEnded

        await observers.notify("on_run_end", RunEnded(run.run_id, agent.name, response))


class _StreamRecord:
    """A streaming run's stream, and the response it committed."""

    __slots__ = ("response", "stream")

    def __init__(self) -> None:
        self.stream: ResponseStream[AgentResponseUpdate, AgentResponse[Any]] | None = None
        self.response: AgentResponse[Any] | None = None

    def committed(self) -> AgentResponse[Any]:
        """The committed response (the stream's final value when read unchanged)."""
        if self.response is None:  # pragma: no cover  # the source ends only after committing
            raise RunStateError("the run ended without committing a response")
        return self.response
