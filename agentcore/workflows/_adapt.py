"""Turning what the builder is given into executors: agents and sub-workflows."""

from __future__ import annotations

from typing import Any, Literal, cast

from agentcore.protocols import SupportsAgentRun
from agentcore.workflows._agent_executor import AgentExecutor
from agentcore.workflows._subworkflow import SubWorkflowExecutor
from agentcore.workflows._workflow import Workflow

__all__ = ["is_agent", "is_workflow", "sub_workflow"]


def sub_workflow(
    obj: object, ident: str | None, forward_requests: Literal["parent", "caller"] = "parent"
) -> SubWorkflowExecutor | None:
    """``obj`` as a sub-workflow node, if it is a workflow."""
    if not isinstance(obj, Workflow):
        return None
    child: Workflow[Any, Any] = cast("Any", obj)
    if ident is None:
        raise TypeError(
            f"a sub-workflow node needs an id: builder.add(<{child.name} workflow>, id=...)"
        )
    return SubWorkflowExecutor(child, id=ident, forward_requests=forward_requests)


def is_workflow(obj: object) -> bool:
    """Whether ``obj`` is a built workflow (it becomes a sub-workflow node)."""
    return isinstance(obj, Workflow)


def is_agent(obj: object) -> bool:
    """An agent that is not already an executor (those are read as they are).

    The structural ``isinstance`` against the protocol walks the protocol's members
    (~15 µs), so the one-attribute test that rules out every executor with a
    ``handle`` (each ``@executor`` function) comes first: a 10,000-way fan-out built
    from functions no longer pays 150 ms for it.
    """
    return (
        not hasattr(obj, "handle")
        and not isinstance(obj, AgentExecutor)
        and isinstance(obj, SupportsAgentRun)
    )
