"""The workflow seams, as protocols."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from agentcore.workflows._context import WorkflowContext

__all__ = ["Executor"]


@runtime_checkable
class Executor(Protocol):
    """A workflow node: an id and one coroutine that handles one message.

    The annotations of ``handle`` (or explicit ``input_types`` / ``output_types`` /
    ``yield_types`` attributes) tell the builder what the node accepts, sends and
    yields; they are read once when the node is added, never per message.
    """

    @property
    def id(self) -> str: ...

    async def handle(self, message: Any, ctx: WorkflowContext[Any, Any]) -> None: ...
