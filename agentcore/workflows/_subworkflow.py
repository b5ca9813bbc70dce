"""Sub-workflows: a workflow as a node of another, asking its parent.

Each input message starts a fresh child run inside one invocation of the node; the
child's final outputs are sent along the node's edges. A child's pending request
travels to the parent as a :class:`SubWorkflowRequest` message; a parent executor
answers with ``ctx.send(message.create_response(value))``, which type-checks the
value and addresses the :class:`SubWorkflowResponse` to the node (other edges drop
it as a target mismatch). The node resumes that child run with the answer. Paused
child runs are kept in the node's executor state, so the parent's checkpoint holds
them.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import Any, Literal, cast

import attrs

from agentcore._types.usage import Usage
from agentcore.workflows._context import WorkflowContext
from agentcore.workflows._events import ExecutorEvent, IntermediateOutput
from agentcore.workflows._requests import PendingRequest
from agentcore.workflows._subtypes import ChildRuns, SubWorkflowRequest, SubWorkflowResponse
from agentcore.workflows.errors import UnknownRequestError

__all__ = ["SubWorkflowExecutor"]


def _spent_since(before: Usage | None, after: Usage | None) -> Usage | None:
    """What a child run spent in this call (its usage counts its whole lineage)."""
    if before is None or after is None:
        return after
    counts = {
        f.name: (getattr(after, f.name) or 0) - (getattr(before, f.name) or 0)
        for f in attrs.fields(Usage)
        if getattr(after, f.name) is not None
    }
    return Usage(**counts) if any(counts.values()) else None


class SubWorkflowExecutor:
    """A workflow as a node (what the builder wraps a ``Workflow`` in; ``id`` required)."""

    state_type = ChildRuns

    def __init__(
        self, workflow: Any, *, id: str, forward_requests: Literal["parent", "caller"] = "parent"
    ) -> None:
        if not id:
            raise TypeError("a sub-workflow node needs an id: builder.add(workflow, id=...)")
        if forward_requests not in ("parent", "caller"):
            raise ValueError(
                f'forward_requests must be "parent" or "caller", got {forward_requests!r}'
            )
        self._workflow = workflow
        self._id = id
        self._caller = forward_requests == "caller"
        asks = workflow.asks_outside and not self._caller
        answers = () if self._caller else (SubWorkflowResponse,)
        self.input_types: tuple[Any, ...] = (*workflow.input_types, *answers)
        self.output_types: tuple[Any, ...] = (
            *workflow.output_types,
            *((SubWorkflowRequest,) if asks else ()),
        )
        self.yield_types: tuple[Any, ...] = ()
        self.forwarded_pairs: tuple[tuple[Any, Any, tuple[Any, ...]], ...] = (
            tuple((req, resp, self.output_types) for req, resp in workflow.request_pairs)
            if self._caller
            else ()
        )
        """``forward_requests="caller"``: the (request, response) pairs the child may ask,
        answered by :meth:`answer_child` (read by the builder as response handlers)."""

    @property
    def id(self) -> str:
        return self._id

    @property
    def workflow(self) -> Any:
        return self._workflow

    async def handle(self, message: Any, ctx: WorkflowContext[Any, Any]) -> None:
        """Start a child run on ``message``, or resume one with the parent's answer.
        Under ``open_run`` the child runs streaming, so its events and intermediate
        outputs reach the consumer as they happen (:meth:`handle_live`)."""
        if ctx._live is not None:
            async with aclosing(self.handle_live(message, ctx)) as relayed:
                async for _ in relayed:
                    pass  # each was delivered when it was staged
            return
        runs = dict((ctx.get_state(ChildRuns) or ChildRuns()).runs)
        child_run_id, kwargs, before = self._call(runs, message, ctx)
        result = await self._workflow.run(**kwargs)
        for event in result.events:
            self._relay(event, ctx)
        await self._forward(runs, child_run_id, result, before, ctx)

    async def handle_live(
        self, message: Any, ctx: WorkflowContext[Any, Any]
    ) -> AsyncGenerator[Any, None]:
        """The streaming form of :meth:`handle` (same effects): the child runs
        streaming and each of its executor events and intermediate outputs is staged
        under ``node/executor`` and yielded as it arrives."""
        runs = dict((ctx.get_state(ChildRuns) or ChildRuns()).runs)
        child_run_id, kwargs, before = self._call(runs, message, ctx)
        stream = self._workflow.run(stream=True, **kwargs)
        async with stream:
            async for event in stream:
                relayed = self._relay(event, ctx)
                if relayed is not None:
                    live = ctx._live
                    if live is not None:
                        await live(relayed)
                    yield relayed
            result = await stream.get_final_response()
        await self._forward(runs, child_run_id, result, before, ctx)

    def _call(
        self, runs: dict[str, str], message: Any, ctx: WorkflowContext[Any, Any]
    ) -> tuple[str, dict[str, Any], Usage | None]:
        """The child run a message starts (or an answer resumes): its id, the
        arguments of its ``run`` call and its usage so far."""
        common: dict[str, Any] = {"ids": ctx._id_source(), "deps": ctx._deps}
        if not isinstance(message, SubWorkflowResponse):
            child_run_id = f"{ctx.run_id}/{self._id}/{ctx.superstep}.{ctx.ordinal}"
            return child_run_id, {"message": message, "run_id": child_run_id, **common}, None
        answer: SubWorkflowResponse[Any] = cast("Any", message)
        checkpoint, request = self._paused(runs, answer.child_run_id, answer.request_id)
        before = None if checkpoint.state is None else checkpoint.state.usage
        kwargs = {
            "responses": [request.create_response(answer.data)],
            "checkpoint": checkpoint,
            **common,
        }
        return answer.child_run_id, kwargs, before

    def _paused(
        self, runs: dict[str, str], child_run_id: str, request_id: str
    ) -> tuple[Any, PendingRequest[Any, Any]]:
        """The paused child run ``child_run_id`` (taken out of ``runs``) and its
        request ``request_id`` (``UnknownRequestError`` when either is gone)."""
        saved = runs.pop(child_run_id, None)
        checkpoint = None if saved is None else self._workflow.restore(saved)
        pending = {} if checkpoint is None else {r.id: r for r in checkpoint.requests}
        request = pending.get(request_id)
        if checkpoint is None or request is None:
            raise UnknownRequestError(request_id, list(pending))
        return checkpoint, request

    def _relay(self, event: Any, ctx: WorkflowContext[Any, Any]) -> Any | None:
        """Stage a child's executor event or intermediate output under this node
        (``node/executor``) and return it; other events stay the child's."""
        if isinstance(event, ExecutorEvent):
            prefixed = ExecutorEvent(f"{self._id}/{event.executor_id}", event.name, event.data)
            ctx._stage_event(prefixed)
            return prefixed
        if isinstance(event, IntermediateOutput):
            output = IntermediateOutput(
                f"{self._id}/{event.executor_id}", event.data, ctx.superstep
            )
            ctx._stage_child_output(output)
            return output
        return None

    async def answer_child(self, data: Any, response: Any, ctx: WorkflowContext[Any, Any]) -> None:
        """``forward_requests="caller"``: the caller's answer to a child request that
        surfaced as this run's own; resumes that child run."""
        context = cast("dict[str, str]", ctx.request_context)
        runs = dict((ctx.get_state(ChildRuns) or ChildRuns()).runs)
        child_run_id = context["child_run"]
        checkpoint, request = self._paused(runs, child_run_id, context["child_request"])
        before = None if checkpoint.state is None else checkpoint.state.usage
        result = await self._workflow.run(
            responses=[request.create_response(response)],
            checkpoint=checkpoint,
            ids=ctx._id_source(),
            deps=ctx._deps,
        )
        for event in result.events:
            relayed = self._relay(event, ctx)
            if relayed is not None and ctx._live is not None:
                await ctx._live(relayed)
        await self._forward(runs, child_run_id, result, before, ctx)

    async def _forward(
        self,
        runs: dict[str, str],
        child_run_id: str,
        result: Any,
        before: Usage | None,
        ctx: WorkflowContext[Any, Any],
    ) -> None:
        """Count what the child spent, send its outputs on, and keep a paused child,
        asking its questions (of the parent, or the caller)."""
        ctx.add_usage(_spent_since(before, result.usage))
        for output in result.outputs:
            await ctx.send(output)
        if result.status == "paused":
            from agentcore.serialization import to_json

            runs[child_run_id] = to_json(result.checkpoint)
            for request in result.requests:
                if not self._caller:
                    await ctx.send(SubWorkflowRequest(request, self._id, child_run_id))
                    continue
                context = {"child_run": child_run_id, "child_request": request.id}
                # under the child's id when it is not the engine's own (an agent's
                # approval id), so the question keeps one id up to the caller
                ctx._stage_request(request.data, request.response_type, context, request.id)
                # the question keeps its way down: this node, then the child's own path
                staged = cast("list[tuple[PendingRequest[Any, Any], Any]]", ctx._requests)
                asked, kept = staged[-1]
                staged[-1] = (attrs.evolve(asked, path=(self._id, *request.path)), kept)
        ctx.set_state(ChildRuns(tuple(sorted(runs.items()))))
