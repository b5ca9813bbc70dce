"""Atomic message groups: the units compaction and truncation keep, drop or summarize whole.

A step (an assistant message with its function calls and the tool messages answering
them, with any reasoning-only assistant messages before it) is one group, so nothing
that works on groups can leave a call without its result or a result without its call.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal, NamedTuple, TypeAlias

from agentcore._types.contents import FunctionCallContent, FunctionResultContent, ReasoningContent
from agentcore._types.messages import Message

__all__ = [
    "SUMMARY_MARKER",
    "GroupKind",
    "MessageGroup",
    "call_problems",
    "group_messages",
    "is_summary",
]

GroupKind: TypeAlias = Literal["system", "context", "summary", "user", "step", "answer", "orphan"]
"""What a :class:`MessageGroup` holds."""

SUMMARY_MARKER = "agentcore.compaction"
"""The ``additional_properties`` key marking a user message as a compaction summary."""


def is_summary(message: Message) -> bool:
    """Whether ``message`` is a summary compaction put in place of older messages."""
    props = message.additional_properties
    return message.role == "user" and props is not None and SUMMARY_MARKER in props


class MessageGroup(NamedTuple):
    """Messages ``[start, end)`` of a transcript that are kept, dropped or summarized whole.

    ``turn`` is the index of the ``user`` group that opened the group's turn (-1 before
    the first); ``call_ids`` the function calls the group makes (for an orphan, the calls
    its results claim to answer). A ``protected`` group is never dropped, summarized or
    cleared; ``reason`` says why. ``result_tokens`` is what a step's tool messages weigh
    (what clearing its results could save).

    A named tuple rather than an attrs class: a transcript of 1,000 messages makes about
    750 groups at every compaction, and a frozen attrs instance costs five times as much
    to build (about 3.8 µs against 0.8 µs; planning 1,000 messages has 2 ms).
    """

    index: int  # type: ignore[assignment]  # pyright: ignore[reportIncompatibleMethodOverride, reportIncompatibleVariableOverride]  # the group's index, in place of tuple.index
    start: int
    end: int
    kind: GroupKind
    tokens: int
    turn: int = -1
    call_ids: tuple[str, ...] = ()
    protected: bool = False
    reason: str = ""
    result_tokens: int = 0


def _is_reasoning_only(message: Message) -> bool:
    return (
        message.role == "assistant"
        and bool(message.contents)
        and all(c.type == "reasoning" for c in message.contents)
    )


def _calls(message: Message) -> tuple[str, ...]:
    return tuple([c.call_id for c in message.contents if type(c) is FunctionCallContent])


def _results(message: Message) -> tuple[str, ...]:
    return tuple([c.call_id for c in message.contents if type(c) is FunctionResultContent])


def group_messages(
    messages: Sequence[Message],
    *,
    tokens: Callable[[Message], int],
    origin: Callable[[Message], str] | None = None,
    keep_first: int = 0,
) -> tuple[MessageGroup, ...]:
    """The transcript ``messages`` cut into atomic groups, in one pass.

    ``tokens`` counts one message; ``origin`` tells where a message came from (as
    :meth:`~agentcore.ChatContext.origin_of` does): a ``"context"`` message is a group of
    its own and protected. Protected too: system messages, the last user message, the
    last group, and the first ``keep_first`` groups. A tool message answering no call of
    the step before it is an ``orphan`` group, which no plan keeps.
    """
    spans: list[tuple[int, int, GroupKind, tuple[str, ...]]] = []
    count = len(messages)
    index = 0
    while index < count:
        message = messages[index]
        start = index
        role = message.role
        if role == "system":
            spans.append((start, index + 1, "system", ()))
            index += 1
            continue
        if origin is not None and origin(message) == "context":
            spans.append((start, index + 1, "context", ()))
            index += 1
            continue
        if role == "user":
            spans.append((start, index + 1, "summary" if is_summary(message) else "user", ()))
            index += 1
            continue
        if role == "tool":
            spans.append((start, index + 1, "orphan", _results(message)))
            index += 1
            continue
        # assistant: reasoning-only messages lead into the message they belong to
        while (
            index + 1 < count
            and message.contents
            and type(message.contents[0]) is ReasoningContent
            and _is_reasoning_only(message)
            and messages[index + 1].role == "assistant"
            and not (origin is not None and origin(messages[index + 1]) == "context")
        ):
            index += 1
            message = messages[index]
        calls = _calls(message)
        index += 1
        if not calls:
            spans.append((start, index, "answer", ()))
            continue
        wanted = set(calls)
        while index < count and messages[index].role == "tool":
            results = _results(messages[index])
            if not results or not wanted.issuperset(results):
                break
            index += 1
        spans.append((start, index, "step", calls))
    last_user = -1
    for position, span in enumerate(spans):
        if span[2] == "user":
            last_user = position
    groups: list[MessageGroup] = []
    turn = -1
    last = len(spans) - 1
    for position, (start, end, kind, call_ids) in enumerate(spans):
        if kind == "user":
            turn = position
        reason = ""
        if kind == "system" or kind == "context":
            reason = kind
        elif position == last_user:
            reason = "latest user message"
        elif position == last and kind != "orphan":
            reason = "latest group"
        elif position < keep_first and kind != "orphan":
            reason = "keep_first"
        if end - start == 1:
            weight = tokens(messages[start])
            result_weight = 0
        else:
            weight = result_weight = 0
            for message in messages[start:end]:
                counted = tokens(message)
                weight += counted
                if message.role == "tool":
                    result_weight += counted
        groups.append(
            MessageGroup(
                position,
                start,
                end,
                kind,
                weight,
                turn,
                call_ids,
                bool(reason),
                reason,
                result_weight if kind == "step" else 0,
            )
        )
    return tuple(groups)


def call_problems(messages: Sequence[Message]) -> list[str]:
    """How ``messages`` break the pairing of calls and results every provider needs
    (empty when they do not): each function call has exactly one result, in the tool
    messages right after its assistant message; each result answers a call of that
    message; calls live in assistant messages, results in tool messages; call ids are
    unique."""
    problems: list[str] = []
    seen_calls: dict[str, int] = {}
    index = 0
    count = len(messages)
    while index < count:
        message = messages[index]
        for content in message.contents:
            if isinstance(content, FunctionCallContent) and message.role != "assistant":
                problems.append(
                    f"message {index} ({message.role}) holds function call "
                    f"{content.call_id!r}: only assistant messages carry calls"
                )
            if isinstance(content, FunctionResultContent) and message.role != "tool":
                problems.append(
                    f"message {index} ({message.role}) holds the result of call "
                    f"{content.call_id!r}: only tool messages carry results"
                )
        if message.role == "tool":
            results = _results(message)
            for call_id in results:
                problems.append(
                    f"message {index} (tool) answers call {call_id!r}, which is not a "
                    "call of the assistant message right before the tool messages"
                )
            if not results:
                problems.append(f"message {index} (tool) holds no function result")
            index += 1
            continue
        calls = [c for c in message.contents if isinstance(c, FunctionCallContent)]
        if message.role != "assistant" or not calls:
            index += 1
            continue
        wanted: dict[str, str] = {}
        for call in calls:
            if call.call_id in seen_calls or call.call_id in wanted:
                first = seen_calls.get(call.call_id, index)
                problems.append(
                    f"call id {call.call_id!r} is used again in message {index} "
                    f"(first in message {first}); call ids must be unique in a request"
                )
            wanted[call.call_id] = call.name
            seen_calls.setdefault(call.call_id, index)
        answered: set[str] = set()
        after = index + 1
        while after < count and messages[after].role == "tool":
            results = _results(messages[after])
            for call_id in results:
                if call_id not in wanted:
                    problems.append(
                        f"message {after} (tool) answers call {call_id!r}, which is not a "
                        f"call of message {index}"
                    )
                elif call_id in answered:
                    problems.append(
                        f"message {after} (tool) answers call {call_id!r} a second time"
                    )
                else:
                    answered.add(call_id)
            if not results:
                problems.append(f"message {after} (tool) holds no function result")
            after += 1
        for call_id, name in wanted.items():
            if call_id not in answered:
                problems.append(
                    f"call {call_id!r} ({name}) of message {index} has no result in the tool "
                    "messages right after it"
                )
        index = after
    return problems
