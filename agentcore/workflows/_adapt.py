"""Turning what the builder is given into executors: agents and sub-workflows.

The agent executor's module loads with the first agent added to a builder, the
sub-workflow node's with the first built workflow added: a workflow of functions and
classes never needs either.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Literal, cast

from agentcore.protocols import SupportsAgentRun
from agentcore.workflows._workflow import Workflow

if TYPE_CHECKING:
    from agentcore.workflows._agent_executor import AgentExecutor, ContextMode
    from agentcore.workflows._subworkflow import SubWorkflowExecutor

__all__ = [
    "agent_executor",
    "as_sub_workflow",
    "is_agent",
    "is_workflow",
    "sub_workflow",
    "wraps_agent",
]

_SUB_WORKFLOW_MODULE = "agentcore.workflows._subworkflow"


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
    from agentcore.workflows._subworkflow import SubWorkflowExecutor

    return SubWorkflowExecutor(child, id=ident, forward_requests=forward_requests)


def as_sub_workflow(executor: object) -> SubWorkflowExecutor | None:
    """``executor`` if it is a sub-workflow node, else ``None``.

    A node of that class can only exist once its module is loaded, so a build that
    has none (no workflow added, none made by hand) does not load the module to ask.
    """
    module = sys.modules.get(_SUB_WORKFLOW_MODULE)
    if module is None:
        return None
    node_class: type[SubWorkflowExecutor] = module.SubWorkflowExecutor
    return executor if isinstance(executor, node_class) else None


def is_workflow(obj: object) -> bool:
    """Whether ``obj`` is a built workflow (it becomes a sub-workflow node)."""
    return isinstance(obj, Workflow)


def is_agent(obj: object) -> bool:
    """An agent that is not already an executor (those, an ``AgentExecutor`` among them,
    have a ``handle`` and are read as they are).

    The structural ``isinstance`` against the protocol walks the protocol's members
    (~15 µs), so the one-attribute test that rules out every executor with a
    ``handle`` (each ``@executor`` function) comes first: a 10,000-way fan-out built
    from functions no longer pays 150 ms for it.
    """
    return not hasattr(obj, "handle") and isinstance(obj, SupportsAgentRun)


def agent_executor(agent: object, ident: str | None, context: ContextMode) -> AgentExecutor:
    """``agent`` (:func:`is_agent`) as an executor."""
    from agentcore.workflows._agent_executor import AgentExecutor

    return AgentExecutor(cast("SupportsAgentRun", agent), id=ident, context=context)


def wraps_agent(executor: object, agent: object) -> bool:
    """Whether ``executor`` is an agent executor around ``agent`` (asked only when two
    executors claim one id)."""
    from agentcore.workflows._agent_executor import AgentExecutor

    return isinstance(executor, AgentExecutor) and executor.agent is agent
