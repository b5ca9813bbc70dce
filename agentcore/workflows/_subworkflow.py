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

from typing import Any, Literal, cast

import attrs

from agentcore._types.usage import Usage
from agentcore.workflows._context import WorkflowContext
from agentcore.workflows._events import ExecutorEvent
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
        """Start a child run on ``message``, or resume one with the parent's answer."""
        child = self._workflow
        runs = dict((ctx.get_state(ChildRuns) or ChildRuns()).runs)
        if isinstance(message, SubWorkflowResponse):
            answer: SubWorkflowResponse[Any] = cast("Any", message)
            await self._resume(runs, answer.child_run_id, answer.request_id, answer.data, ctx)
            return
        child_run_id = f"{ctx.run_id}/{self._id}/{ctx.superstep}.{ctx.ordinal}"
        result = await child.run(message, run_id=child_run_id, ids=ctx._id_source(), deps=ctx._deps)
        ctx.add_usage(result.usage)
        await self._forward(runs, child_run_id, result, ctx)

    async def answer_child(self, data: Any, response: Any, ctx: WorkflowContext[Any, Any]) -> None:
        """``forward_requests="caller"``: the caller's answer to a child request that
        surfaced as this run's own; resumes that child run."""
        context = cast("dict[str, str]", ctx.request_context)
        runs = dict((ctx.get_state(ChildRuns) or ChildRuns()).runs)
        await self._resume(runs, context["child_run"], context["child_request"], response, ctx)

    async def _resume(
        self,
        runs: dict[str, str],
        child_run_id: str,
        request_id: str,
        value: Any,
        ctx: WorkflowContext[Any, Any],
    ) -> None:
        child = self._workflow
        saved = runs.pop(child_run_id, None)
        checkpoint = None if saved is None else child.restore(saved)
        pending = {} if checkpoint is None else {r.id: r for r in checkpoint.requests}
        request = pending.get(request_id)
        if checkpoint is None or request is None:
            raise UnknownRequestError(request_id, list(pending))
        before = None if checkpoint.state is None else checkpoint.state.usage
        result = await child.run(
            responses=[request.create_response(value)],
            checkpoint=checkpoint,
            ids=ctx._id_source(),
            deps=ctx._deps,
        )
        ctx.add_usage(_spent_since(before, result.usage))
        await self._forward(runs, child_run_id, result, ctx)

    async def _forward(
        self, runs: dict[str, str], child_run_id: str, result: Any, ctx: WorkflowContext[Any, Any]
    ) -> None:
        """Send the child's outputs on, re-emit its executors' events under this node's
        id, and keep a paused child, asking its questions (of the parent, or the caller)."""
        for event in result.events:
            if isinstance(event, ExecutorEvent):
                prefixed = f"{self._id}/{event.executor_id}"
                await ctx._emit(ExecutorEvent(prefixed, event.name, event.data))
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
