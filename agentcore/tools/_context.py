"""``ToolContext``: what a tool may ask for besides its arguments."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from agentcore._responses import CustomEvent
from agentcore._run import RunContext, RunLocals

if TYPE_CHECKING:
    from agentcore._sessions import AgentSession

__all__ = ["ToolContext"]


@attrs.frozen
class ToolContext:
    """The call a tool is serving and the run it belongs to.

    Declare a parameter of this type and the tool loop passes it in; it never
    appears in the schema the model sees.
    """

    call_id: str
    """The model's id for this call (the id its result is sent back under)."""
    tool_name: str
    """The name the tool was called by."""
    run: RunContext
    """The run: run-local values, the session, the event emitter."""

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
