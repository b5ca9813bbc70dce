"""The messages between a sub-workflow node and its parent, and the node's state."""

from __future__ import annotations

from typing import Generic, TypeVar

import attrs

from agentcore._equality import fields_eq, fields_hash
from agentcore._repr import fields_repr
from agentcore.workflows._requests import PendingRequest, check_response_value

__all__ = ["ChildRuns", "SubWorkflowRequest", "SubWorkflowResponse"]

ReqT = TypeVar("ReqT")
RespT = TypeVar("RespT")


@attrs.frozen
class SubWorkflowResponse(Generic[RespT]):
    """The parent's answer to a child's request, addressed to the sub-workflow node."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    request_id: str
    executor_id: str
    child_run_id: str
    data: RespT


@attrs.frozen
class SubWorkflowRequest(Generic[ReqT, RespT]):
    """A child workflow's request, sent from its node along the parent's edges."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    request: PendingRequest[ReqT, RespT]
    executor_id: str
    child_run_id: str

    def create_response(self, value: RespT) -> SubWorkflowResponse[RespT]:
        """The answer; ``TypeError`` unless ``value`` fits the child request's response type."""
        check_response_value(value, self.request.response_type, self.request.id)
        return SubWorkflowResponse(self.request.id, self.executor_id, self.child_run_id, value)


@attrs.frozen
class ChildRuns:
    """A sub-workflow node's paused child runs: (child run id, checkpoint JSON) pairs."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    runs: tuple[tuple[str, str], ...] = ()
