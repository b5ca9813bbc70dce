"""Turning what a caller passes to ``run`` into messages."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agentcore._sessions.history import history_view
from agentcore._types.contents import (
    CONTENT_TYPES,
    Content,
    FunctionApprovalResponseContent,
    UserInputResponseContent,
)
from agentcore._types.messages import Message

__all__ = ["normalize_input", "split_decisions"]


def normalize_input(value: Any) -> list[Message]:
    """``None``, a str, a Message, a content object, or a sequence of those -> messages.

    Loose strings and contents become user messages; consecutive contents are
    grouped into one user message.
    """
    if value is None:
        return []
    if isinstance(value, str):
        return [Message("user", value)]
    if isinstance(value, Message):
        return [value]
    if isinstance(value, CONTENT_TYPES):
        return [Message("user", (value,))]
    if not isinstance(value, Sequence):
        raise TypeError(
            "run() takes a str, a Message, a content object, or a sequence of those; "
            f"got {type(value).__name__}"
        )
    messages: list[Message] = []
    loose: list[Content] = []
    for item in value:  # pyright: ignore[reportUnknownVariableType]  # isinstance on a generic
        if isinstance(item, Message):
            if loose:
                messages.append(Message("user", tuple(loose)))
                loose = []
            messages.append(item)
        elif isinstance(item, str):
            messages.append(Message("user", item))
        elif isinstance(item, CONTENT_TYPES):
            loose.append(item)
        else:
            raise TypeError(
                "run() takes a str, a Message, a content object, or a sequence of those; "
                f"the sequence holds a {type(item).__name__}"  # pyright: ignore[reportUnknownArgumentType]  # isinstance on a generic
            )
    if loose:
        messages.append(Message("user", tuple(loose)))
    return messages


def split_decisions(
    messages: list[Message],
) -> tuple[list[Message], Sequence[FunctionApprovalResponseContent | UserInputResponseContent]]:
    """The input without approval decisions and answers, and those it carried (an
    empty tuple, shared, when it carried none: the run keeps it while in flight)."""
    decisions: list[FunctionApprovalResponseContent | UserInputResponseContent] = [
        c
        for m in messages
        for c in m.contents
        if isinstance(c, (FunctionApprovalResponseContent, UserInputResponseContent))
    ]
    if not decisions:
        return messages, ()
    return history_view(messages), decisions
