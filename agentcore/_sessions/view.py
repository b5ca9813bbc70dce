"""The compacted view of a session: its log with each compaction record applied.

A history store's log holds every message ever appended, records included; the model
sees the view, where each effective record's range of positions is replaced by its
summary (or by nothing) and records themselves are gone. Every view message keeps
its log position, so a later compaction can say which positions it covers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from agentcore._equality import fields_eq, fields_hash
from agentcore._repr import fields_repr
from agentcore._types.contents import CompactionContent
from agentcore._types.groups import SUMMARY_MARKER
from agentcore._types.messages import Message

__all__ = [
    "HistoryView",
    "compacted_view",
    "effective_records",
    "record_of",
    "summary_message",
    "view_from_parts",
    "visible_ranges",
]


def _to_messages(value: Sequence[Message]) -> tuple[Message, ...]:
    return tuple(value)


def _to_positions(value: Sequence[int]) -> tuple[int, ...]:
    return tuple(value)


def _to_ids(value: frozenset[str] | set[str] | Sequence[str]) -> frozenset[str]:
    return frozenset(value)


@attrs.frozen
class HistoryView:
    """What a model may see of a session: ``messages`` at their log ``positions``.

    A summary's position is its slot, the first position of the range it replaces.
    ``next_position`` is the position the next appended message gets;
    ``covered_call_ids`` are the calls a summary or a drop hides (made and answered,
    as far as a new run is concerned); ``ignored_records`` counts records that were
    not effective (written for another position, or over a malformed range).
    """

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    messages: tuple[Message, ...] = attrs.field(default=(), converter=_to_messages)
    positions: tuple[int, ...] = attrs.field(default=(), converter=_to_positions)
    next_position: int = 0
    covered_call_ids: frozenset[str] = attrs.field(default=frozenset(), converter=_to_ids)
    ignored_records: int = 0


def record_of(message: Message) -> CompactionContent | None:
    """The record ``message`` is, or ``None`` for a message of the conversation."""
    contents = message.contents
    if len(contents) == 1 and message.role == "user":
        only = contents[0]
        if isinstance(only, CompactionContent):
            return only
    return None


def summary_message(record: CompactionContent) -> Message:
    """The user-role note a record's summary shows as in the view."""
    marker: dict[str, Any] = {"start": record.start, "end": record.end, "at": record.at}
    if record.label is not None:
        marker["label"] = record.label
    return Message("user", record.summary or "", additional_properties={SUMMARY_MARKER: marker})


def effective_records(
    records: Sequence[tuple[int, CompactionContent]],
) -> tuple[list[tuple[int, CompactionContent]], int]:
    """The records that apply, in log order, and how many were ignored.

    A record applies at the position it was written for (``at``), over a range
    ``0 <= start < end <= at``; any other record hides nothing.
    """
    applied: list[tuple[int, CompactionContent]] = []
    ignored = 0
    for position, record in records:
        if record.at == position and 0 <= record.start < record.end <= record.at:
            applied.append((position, record))
        else:
            ignored += 1
    return applied, ignored


def visible_ranges(
    records: Sequence[tuple[int, CompactionContent]], end: int
) -> list[tuple[int, int]]:
    """The half-open ranges of positions ``[0, end)`` no effective record covers, in
    order: what a store must read of its log to build the view with
    :func:`view_from_parts`."""
    applied, _ = effective_records(records)
    out: list[tuple[int, int]] = []
    cursor = 0
    for start, stop in sorted((r.start, r.end) for _, r in applied):
        if start > cursor:
            out.append((cursor, start))
        cursor = max(cursor, stop)
    if cursor < end:
        out.append((cursor, end))
    return out


def _owners(
    applied: Sequence[tuple[int, CompactionContent]],
) -> dict[int, CompactionContent]:
    """Each covered position's record: the latest effective one covering it."""
    owner: dict[int, CompactionContent] = {}
    for _, record in applied:
        for position in range(record.start, record.end):
            owner[position] = record
    return owner


def view_from_parts(
    messages: Sequence[tuple[int, Message]],
    records: Sequence[tuple[int, CompactionContent]],
    next_position: int,
) -> HistoryView:
    """The view from the log's messages at their positions (records left out, and the
    positions a store already knows are hidden may be left out too) and its records.

    Stores that read the view in SQL use this to finish it; :func:`compacted_view`
    for a whole log.
    """
    applied, ignored = effective_records(records)
    owner = _owners(applied)
    out: list[Message] = []
    positions: list[int] = []
    # A summary is shown at its slot even when its slot's message was left out.
    slots = {
        record.start: record
        for _, record in applied
        if record.summary is not None and owner.get(record.start) is record
    }
    by_position = dict(messages)
    wanted = sorted(set(by_position).union(slots))
    for position in wanted:
        record = owner.get(position)
        if record is None:
            message = by_position.get(position)
            if message is not None:
                out.append(message)
                positions.append(position)
        elif slots.get(position) is record:
            out.append(summary_message(record))
            positions.append(position)
    covered: set[str] = set()
    for _, record in applied:
        covered.update(record.call_ids)
    return HistoryView(out, positions, next_position, frozenset(covered), ignored)


def compacted_view(log: Sequence[Message]) -> HistoryView:
    """The view of a session's whole ``log`` (what :meth:`HistoryStore.load` returns).

    Pure: the same log gives the same view. A log without records is its own view.
    """
    # One pass without a call per message: a 1,000-message log has 40 µs for this.
    found = [
        position
        for position, message in enumerate(log)
        if message.role == "user"
        and len(message.contents) == 1
        and type(message.contents[0]) is CompactionContent
    ]
    if not found:
        return HistoryView(log, range(len(log)), len(log))
    records: list[tuple[int, CompactionContent]] = []
    for position in found:
        record = record_of(log[position])
        if record is not None:
            records.append((position, record))
    record_positions = {position for position, _ in records}
    messages = [(p, m) for p, m in enumerate(log) if p not in record_positions]
    return view_from_parts(messages, records, len(log))
