"""The error a tool's arguments raise when they do not fit its signature."""

from __future__ import annotations

from collections.abc import Sequence

from agentcore.errors import ToolError

__all__ = ["ToolArgumentsError"]


class ToolArgumentsError(ToolError):
    """The model's arguments for a tool are not valid.

    The message names each problem with its field (``"city: expected str, got 42"``),
    ``"; "``-separated, so it can go back to the model as is; ``problems`` holds
    them one by one.
    """

    def __init__(self, problems: str | Sequence[str], *, tool_name: str | None = None) -> None:
        listed = (problems,) if isinstance(problems, str) else tuple(problems)
        super().__init__("; ".join(listed))
        self.problems: tuple[str, ...] = listed
        self.tool_name = tool_name
