"""Questions a run asks the outside, and their typed answers."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from typing import Any, Generic, TypeVar

import attrs

from agentcore._equality import fields_eq, fields_hash
from agentcore._repr import fields_repr
from agentcore.workflows._typeexpr import describe, matches, runtime_class, with_article

__all__ = [
    "GENERATED_PREFIX",
    "PendingRequest",
    "WorkflowResponse",
    "check_response_value",
    "generated_request_id",
    "sub_workflow_messages",
    "unique_request",
]

ReqT = TypeVar("ReqT")
RespT = TypeVar("RespT")


_SUB_WORKFLOW_MESSAGES = "agentcore.workflows._subtypes"


def sub_workflow_messages() -> tuple[type[Any], type[Any]] | None:
    """The classes of a sub-workflow's messages to its parent and back
    (``SubWorkflowRequest``, ``SubWorkflowResponse``), or ``None`` while their module
    (which imports this one) is not loaded.

    They load with the first sub-workflow (or when named): until then no message,
    state or checkpoint value can be one of them, so a run of a workflow without
    sub-workflows asks this instead of loading them.
    """
    module = sys.modules.get(_SUB_WORKFLOW_MESSAGES)
    if module is None:
        return None
    request: type[Any] = module.SubWorkflowRequest
    response: type[Any] = module.SubWorkflowResponse
    return request, response


def check_response_value(value: object, response_type: Any, request_id: str) -> None:
    """Refuse ``value`` unless it is a ``response_type``, checked with the kernel's
    strict converter (``"1"`` is not an ``int``, ``1`` not a ``bool``)."""
    problem: str | None = None
    cls = runtime_class(response_type)
    if cls is not None and not isinstance(value, cls):
        problem = f"got {type(value).__qualname__}"
    elif not matches(value, response_type):
        problem = f"got {value!r}"
    else:
        from agentcore.serialization import structure, unstructure

        try:
            structure(unstructure(value), response_type)
        except (ValueError, TypeError) as exc:
            problem = str(exc)
    if problem is not None:
        raise TypeError(
            f"the response to request {request_id!r} must be "
            f"{with_article(describe(response_type))}: {problem}"
        )


@attrs.frozen
class WorkflowResponse(Generic[RespT]):
    """An answer to a pending request, made by :meth:`PendingRequest.create_response`."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    request_id: str
    data: RespT
    path: tuple[str, ...] = ()


@attrs.frozen
class PendingRequest(Generic[ReqT, RespT]):
    """A question a run is waiting on. Answer it with :meth:`create_response`."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    id: str
    executor_id: str
    data: ReqT
    response_type: type[RespT] = attrs.field(eq=False)
    superstep: int
    path: tuple[str, ...] = ()

    def create_response(self, value: RespT) -> WorkflowResponse[RespT]:
        """The answer; ``TypeError`` if ``value`` is not a ``response_type``."""
        check_response_value(value, self.response_type, self.id)
        return WorkflowResponse(self.id, value, self.path)


GENERATED_PREFIX = "req_"
"""The prefix of the ids the engine makes for requests (never taken from an executor)."""


def generated_request_id(superstep: int, ordinal: int, n: int) -> str:
    """The engine's id for request ``n`` of invocation ``ordinal`` of ``superstep``:
    unique in the run, since the triple is."""
    return f"{GENERATED_PREFIX}{superstep}_{ordinal}_{n}"


def unique_request(
    request: PendingRequest[Any, Any],
    key: tuple[int, int, int],
    pending: Mapping[str, object],
    staged: Iterable[PendingRequest[Any, Any]],
) -> PendingRequest[Any, Any]:
    """``request``, named by its executor (an agent's own approval id; the barrier
    calls this for such ids only), as committed under its order ``key``: an id that a
    pending request of the run, or one ``staged`` before it at this barrier, already
    holds is replaced by the generated one. Only agents that keep their own request
    ids can collide (see ``AgentExecutor``); their answers still reach them, since an
    agent executor matches answers by the content's id, not the request's."""
    if request.id in pending or any(r.id == request.id for r in staged):
        return attrs.evolve(request, id=generated_request_id(*key))
    return request
