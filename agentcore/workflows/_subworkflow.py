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

from typing import Any, cast

from agentcore.serialization import to_json
from agentcore.workflows._context import WorkflowContext
from agentcore.workflows._subtypes import ChildRuns, SubWorkflowRequest, SubWorkflowResponse
from agentcore.workflows.errors import UnknownRequestError

__all__ = ["SubWorkflowExecutor"]


class SubWorkflowExecutor:
    """A workflow as a node (what the builder wraps a ``Workflow`` in; ``id`` required)."""

    state_type = ChildRuns

    def __init__(self, workflow: Any, *, id: str) -> None:
        if not id:
            raise TypeError("a sub-workflow node needs an id: builder.add(workflow, id=...)")
        self._workflow = workflow
        self._id = id
        asks = workflow.asks_outside
        self.input_types: tuple[Any, ...] = (*workflow.input_types, SubWorkflowResponse)
        self.output_types: tuple[Any, ...] = (
            *workflow.output_types,
            *((SubWorkflowRequest,) if asks else ()),
        )
        self.yield_types: tuple[Any, ...] = ()

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
            saved = runs.pop(answer.child_run_id, None)
            checkpoint = None if saved is None else child.restore(saved)
            pending = {} if checkpoint is None else {r.id: r for r in checkpoint.requests}
            request = pending.get(answer.request_id)
            if checkpoint is None or request is None:
                raise UnknownRequestError(answer.request_id, list(pending))
            child_run_id = answer.child_run_id
            result = await child.run(
                responses=[request.create_response(answer.data)], checkpoint=checkpoint
            )
        else:
            child_run_id = f"{ctx.run_id}/{self._id}/{ctx.superstep}.{ctx.ordinal}"
            result = await child.run(message, run_id=child_run_id)
        for output in result.outputs:
            await ctx.send(output)
        if result.status == "paused":
            runs[child_run_id] = to_json(result.checkpoint)
            for request in result.requests:
                await ctx.send(SubWorkflowRequest(request, self._id, child_run_id))
        ctx.set_state(ChildRuns(tuple(sorted(runs.items()))))
