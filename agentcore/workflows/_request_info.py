"""The ``request_info`` bridge's call arguments: how a workflow agent hands a pending
request to its caller (seed 002's ``WorkflowAgent.RequestInfoFunctionArgs``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, Final

import attrs

from agentcore._equality import fields_eq, fields_hash
from agentcore._repr import fields_repr
from agentcore._types.contents import FunctionCallContent, FunctionResultContent
from agentcore.errors import RunStateError
from agentcore.tools import FunctionTool

if TYPE_CHECKING:
    from agentcore.workflows._requests import PendingRequest

__all__ = ["REQUEST_INFO_TOOL", "REQUEST_INFO_TOOL_NAME", "RequestInfoArguments"]

REQUEST_INFO_TOOL_NAME: Final = "request_info"
"""The name of the caller-side tool a paused workflow agent calls for each request."""


@attrs.frozen
class RequestInfoArguments:
    """The arguments of the ``request_info`` call a workflow agent returns for a pending
    request; JSON both ways."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    request_id: str
    executor_id: str
    request_type: str
    request: Any
    response_type: str
    response_schema: Mapping[str, Any] | None = None
    path: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "request_id": self.request_id,
            "executor_id": self.executor_id,
            "request_type": self.request_type,
            "request": self.request,
            "response_type": self.response_type,
            "response_schema": None if self.response_schema is None else dict(self.response_schema),
            "path": list(self.path),
        }

    @classmethod
    def from_dict(cls, payload: Mapping[str, Any]) -> RequestInfoArguments:
        """``ValueError`` when ``request_id`` is missing or empty or ``request`` is missing."""
        request_id = payload.get("request_id")
        if not isinstance(request_id, str) or not request_id:
            raise ValueError("request_info arguments need a non-empty 'request_id'")
        if "request" not in payload:
            raise ValueError("request_info arguments need the 'request'")
        schema = payload.get("response_schema")
        return cls(
            request_id,
            str(payload.get("executor_id", "")),
            str(payload.get("request_type", "")),
            payload["request"],
            str(payload.get("response_type", "")),
            None if schema is None else dict(schema),
            tuple(payload.get("path", ())),
        )

    @classmethod
    def from_request(cls, request: PendingRequest[Any, Any]) -> RequestInfoArguments:
        """The arguments presenting a workflow's pending ``request`` to whoever answers
        it: the request as JSON, its type key and its response type's key, the JSON
        schema an answer must match (``None`` when the type has none that can be
        written) and the sub-workflow path it came through."""
        from agentcore.serialization import unstructure
        from agentcore.workflows._codec import type_key

        return cls(
            request.id,
            request.executor_id,
            type_key(type(request.data)),
            unstructure(request.data),
            type_key(request.response_type),
            _schema(request.response_type),
            request.path,
        )

    @classmethod
    def from_call(cls, call: FunctionCallContent) -> RequestInfoArguments:
        """``ValueError`` unless ``call.name`` is ``request_info``."""
        if call.name != REQUEST_INFO_TOOL_NAME:
            raise ValueError(f"not a {REQUEST_INFO_TOOL_NAME} call: {call.name!r}")
        arguments = call.arguments
        if isinstance(arguments, str):
            import json

            arguments = json.loads(arguments or "{}")
        return cls.from_dict(arguments)

    def create_result(self, response: Any) -> FunctionResultContent:
        """The function result answering this request (``call_id`` is the request id)."""
        from agentcore.serialization import unstructure

        return FunctionResultContent(self.request_id, unstructure(response))


def _schema(tp: Any) -> dict[str, Any] | None:
    from agentcore.structured import json_schema_for

    try:
        return json_schema_for(tp)[1]
    except Exception:  # a type the schema builder cannot describe: the key still names it
        return None


def _request_info(
    request_id: Annotated[str, "The id of the workflow's pending request (answer under it)."],
    executor_id: Annotated[str, "The executor that asked."],
    request_type: Annotated[str, "The request's type key."],
    request: Annotated[Any, "The request, as JSON."],
    response_type: Annotated[str, "The response's type key."],
    response_schema: Annotated[
        dict[str, Any] | None, "The JSON schema the answer must match."
    ] = None,
    path: Annotated[list[str] | None, "Sub-workflow nodes the request came through."] = None,
) -> None:
    raise RunStateError(
        f"{REQUEST_INFO_TOOL_NAME} is answered by the caller, not run here: declare it with "
        f"FunctionInvocationConfiguration(additional_tools=[...]) and answer each call with a "
        f"function result (RequestInfoArguments.create_result)"
    )


REQUEST_INFO_TOOL: FunctionTool[..., None] = FunctionTool(
    _request_info,
    name=REQUEST_INFO_TOOL_NAME,
    description=(
        "A workflow is waiting for this answer. Answer with a value matching "
        "response_schema; the workflow resumes with it."
    ),
)
"""The caller-side ``request_info`` tool's declaration (``WorkflowAgent.request_info_tool``)."""
