"""Workflows: typed graphs of executors exchanging messages in supersteps.

Build a definition once with :class:`WorkflowBuilder`, run it any number of times
at once with :meth:`Workflow.run`. See ``docs/workflows.md``.

Agents as executors (:class:`AgentExecutor`, which the builder makes of an agent), a
workflow as a node of another (:class:`SubWorkflowExecutor`, which the builder makes of a
built workflow, and the messages it exchanges with its parent) and a workflow run as an
agent (``Workflow.as_agent()``: :class:`WorkflowAgent`, with its ``request_info`` tool)
load on first use, as the SQLite store does, and so do a switch's cases (:class:`Case`,
:class:`Default`) and what ``Workflow.inspect`` returns: a workflow of functions and
classes never pays for them.
"""

import importlib
from typing import TYPE_CHECKING, Any

from agentcore.workflows._builder import WorkflowBuilder
from agentcore.workflows._checkpoint import (
    CHECKPOINT_FORMAT,
    CheckpointInfo,
    CheckpointRecord,
    Durability,
    RunStatus,
    WorkflowCheckpoint,
)
from agentcore.workflows._context import SharedState, WorkflowContext
from agentcore.workflows._decorators import FunctionExecutor, executor, handler, response_handler
from agentcore.workflows._events import (
    DeliveryRecord,
    DeliveryStatus,
    EdgeDelivery,
    EdgeGroupKind,
    ErrorInfo,
    EventSource,
    ExecutorCompleted,
    ExecutorEvent,
    ExecutorFailed,
    ExecutorInvoked,
    ExecutorReplayed,
    IntermediateOutput,
    RequestCancelled,
    RequestInfo,
    RunCompleted,
    RunFailed,
    RunPaused,
    RunStarted,
    SuperstepAborted,
    SuperstepCompleted,
    SuperstepStarted,
    WorkflowEvent,
    WorkflowOutput,
    WorkflowWarning,
)
from agentcore.workflows._graph import RetryPolicy
from agentcore.workflows._ids import SeededIds
from agentcore.workflows._requests import PendingRequest, WorkflowResponse
from agentcore.workflows._result import WorkflowRunResult
from agentcore.workflows._stores import InMemoryCheckpointStore, SqliteCheckpointStore
from agentcore.workflows._workflow import Workflow
from agentcore.workflows.errors import (
    CheckpointError,
    CheckpointIncompatibleError,
    ExecutorFailedError,
    ExecutorTimeoutError,
    SharedStateConflictError,
    UnknownRequestError,
    WorkflowBuildError,
    WorkflowBuildWarning,
    WorkflowConvergenceError,
    WorkflowError,
    WorkflowStalledError,
    WorkflowTypeError,
)
from agentcore.workflows.protocols import (
    CheckpointStore,
    Executor,
    IdSource,
    SupportsCombinedClaims,
    SupportsListRuns,
    SupportsPendingWrites,
    SupportsRunClaims,
)

if TYPE_CHECKING:
    from agentcore.workflows._agent_executor import AGENT_UPDATE, AgentExecutor, AgentTurn
    from agentcore.workflows._describe import (
        EdgeGroupDescription,
        NodeDescription,
        TypeRef,
        WorkflowDescription,
    )
    from agentcore.workflows._snapshot import RunSnapshot
    from agentcore.workflows._subtypes import SubWorkflowRequest, SubWorkflowResponse
    from agentcore.workflows._subworkflow import SubWorkflowExecutor
    from agentcore.workflows._switch import Case, Default
    from agentcore.workflows._workflow_agent import (
        REQUEST_INFO_TOOL_NAME,
        RequestInfoArguments,
        WorkflowAgent,
    )

__all__ = [
    "AGENT_UPDATE",
    "CHECKPOINT_FORMAT",
    "REQUEST_INFO_TOOL_NAME",
    "AgentExecutor",
    "AgentTurn",
    "Case",
    "CheckpointError",
    "CheckpointIncompatibleError",
    "CheckpointInfo",
    "CheckpointRecord",
    "CheckpointStore",
    "Default",
    "DeliveryRecord",
    "DeliveryStatus",
    "Durability",
    "EdgeDelivery",
    "EdgeGroupDescription",
    "EdgeGroupKind",
    "ErrorInfo",
    "EventSource",
    "Executor",
    "ExecutorCompleted",
    "ExecutorEvent",
    "ExecutorFailed",
    "ExecutorFailedError",
    "ExecutorInvoked",
    "ExecutorReplayed",
    "ExecutorTimeoutError",
    "FunctionExecutor",
    "IdSource",
    "InMemoryCheckpointStore",
    "IntermediateOutput",
    "NodeDescription",
    "PendingRequest",
    "RequestCancelled",
    "RequestInfo",
    "RequestInfoArguments",
    "RetryPolicy",
    "RunCompleted",
    "RunFailed",
    "RunPaused",
    "RunSnapshot",
    "RunStarted",
    "RunStatus",
    "SeededIds",
    "SharedState",
    "SharedStateConflictError",
    "SqliteCheckpointStore",
    "SubWorkflowExecutor",
    "SubWorkflowRequest",
    "SubWorkflowResponse",
    "SuperstepAborted",
    "SuperstepCompleted",
    "SuperstepStarted",
    "SupportsCombinedClaims",
    "SupportsListRuns",
    "SupportsPendingWrites",
    "SupportsRunClaims",
    "TypeRef",
    "UnknownRequestError",
    "Workflow",
    "WorkflowAgent",
    "WorkflowBuildError",
    "WorkflowBuildWarning",
    "WorkflowBuilder",
    "WorkflowCheckpoint",
    "WorkflowContext",
    "WorkflowConvergenceError",
    "WorkflowDescription",
    "WorkflowError",
    "WorkflowEvent",
    "WorkflowOutput",
    "WorkflowResponse",
    "WorkflowRunResult",
    "WorkflowStalledError",
    "WorkflowTypeError",
    "WorkflowWarning",
    "executor",
    "handler",
    "response_handler",
]

_ON_FIRST_USE = {
    "AGENT_UPDATE": "_agent_executor",
    "AgentExecutor": "_agent_executor",
    "AgentTurn": "_agent_executor",
    "Case": "_switch",
    "Default": "_switch",
    "EdgeGroupDescription": "_describe",
    "NodeDescription": "_describe",
    "REQUEST_INFO_TOOL_NAME": "_workflow_agent",
    "RequestInfoArguments": "_workflow_agent",
    "RunSnapshot": "_snapshot",
    "SubWorkflowExecutor": "_subworkflow",
    "SubWorkflowRequest": "_subtypes",
    "SubWorkflowResponse": "_subtypes",
    "TypeRef": "_describe",
    "WorkflowAgent": "_workflow_agent",
    "WorkflowDescription": "_describe",
}


def __getattr__(name: str) -> Any:
    module_name = _ON_FIRST_USE.get(name)
    if module_name is None:
        raise AttributeError(f"module 'agentcore.workflows' has no attribute {name!r}")
    module = importlib.import_module(f"agentcore.workflows.{module_name}")
    value = getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
