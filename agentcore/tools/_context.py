"""``ToolContext``: what a tool may ask for besides its arguments."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Generic

import attrs
from typing_extensions import TypeVar

from agentcore._equality import fields_eq, fields_hash
from agentcore._repr import fields_repr
from agentcore._run_context import RunContext, RunLocals
from agentcore._types.responses import CustomEvent

if TYPE_CHECKING:
    from agentcore._sessions.session import AgentSession

__all__ = ["ToolContext", "UserInputRequired"]


class UserInputRequired(Exception):  # a signal, not an error
    """Raised by :meth:`ToolContext.ask` when the user has not answered yet.

    The tool loop catches it and pauses the run with a ``UserInputRequestContent``;
    let it propagate (do not catch it in the tool).
    """

    def __init__(self, prompt: str) -> None:
        super().__init__(prompt)
        self.prompt = prompt


DepsT = TypeVar("DepsT", default=Any)

NO_ANSWERS: Mapping[str, str] = MappingProxyType({})


def _answers(value: Mapping[str, str]) -> Mapping[str, str]:
    # Read-only; the shared empty mapping is kept as is (the usual case, no copy).
    return value if value is NO_ANSWERS else MappingProxyType(dict(value))


@attrs.frozen
class ToolContext(Generic[DepsT]):
    """The call a tool is serving and the run it belongs to.

    Declare a parameter of this type and the tool loop passes it in; it never
    appears in the schema the model sees. ``ToolContext[Deps]`` types
    :attr:`deps` as ``Deps`` (the ``deps=`` given to ``agent.run``).
    """

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    call_id: str
    """The model's id for this call (the id its result is sent back under)."""
    tool_name: str
    """The name the tool was called by."""
    run: RunContext
    """The run: run-local values, the session, the event emitter."""
    answers: Mapping[str, str] = attrs.field(default=NO_ANSWERS, converter=_answers)
    """The user's answers to this call's questions so far, by prompt."""

    @property
    def idempotency_key(self) -> str:
        """``"<run id>:<call id>"``: the same each time this call runs, for a tool to pass
        to a service that deduplicates requests. A durable run's id is the same after
        recovery, so a call repeated after a crash sends the same key."""
        return f"{self.run.run_id}:{self.call_id}"

    @property
    def deps(self) -> DepsT:
        """The dependencies the run was given with ``deps=`` (a database handle, an
        HTTP client, the current user); ``LookupError`` when it was given none."""
        deps: DepsT = self.run.deps
        return deps

    @property
    def session(self) -> AgentSession | None:
        """The run's session, when the run has one."""
        return self.run.session

    @property
    def locals(self) -> RunLocals:
        """Run-local values shared with middleware and the other tools of the run."""
        return self.run.locals

    async def emit(self, data: Any, *, name: str = "tool_progress") -> None:
        """Send a custom event to the caller, marked as coming from this tool."""
        await self.run.emit(CustomEvent(name=name, data=data, source=self.tool_name))

    def ask(self, prompt: str) -> str:
        """The user's answer to ``prompt``; pauses the run to ask when there is none.

        The run pauses with a ``UserInputRequestContent`` in the response; once the
        caller sends ``request.create_response(text)`` in the same session, the tool
        runs again from the start and this call returns the answer. Ask before any
        side effect, since everything before the question runs twice.
        """
        answer = self.answers.get(prompt)
        if answer is None:
            raise UserInputRequired(prompt)
        return answer
