"""Where each message of a run's transcript came from, and the records its edits become.

A run's transcript is the session's view, the context providers' messages, the input
and what the run produced. Compaction rewrites it with edits (a summary or a cleared
copy in place of some messages); at commit each edit that persists becomes compaction
records naming the log positions it covers, appended with the run's turn.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Literal, TypeAlias, cast

import attrs

from agentcore._equality import fields_eq, fields_hash
from agentcore._repr import fields_repr
from agentcore._types.contents import CompactionContent, FunctionCallContent, FunctionResultContent
from agentcore._types.groups import SUMMARY_MARKER
from agentcore._types.messages import Message

__all__ = ["Origin", "TranscriptEdit", "TranscriptLedger"]

Origin: TypeAlias = Literal["history", "context", "run", "edit"]
"""Where a transcript message came from: the session's history, a context provider
(this run only, never stored), this run (its input or what it produced), or an edit."""


_Entry: TypeAlias = tuple[Message, Origin, tuple[Message, ...]]
"""A transcript message, its origin, and (for an edit) the original messages it stands for."""


def _to_messages(value: Sequence[Message]) -> tuple[Message, ...]:
    return tuple(value)


@attrs.frozen
class TranscriptEdit:
    """One change :meth:`~agentcore.ChatContext.rewrite_transcript` makes: ``summary``
    (a summary note, or a cleared copy of one tool message) in place of ``covered``, or
    nothing in their place when ``summary`` is ``None``.

    ``persist`` edits become compaction records at commit, so later runs see the
    session compacted the same way; ``strategy`` names what made the edit.
    """

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    covered: tuple[Message, ...] = attrs.field(converter=_to_messages)
    summary: Message | None = None
    persist: bool = False
    strategy: str = ""


class TranscriptLedger:
    """The origins of a run's transcript messages, by identity, and the edits made."""

    __slots__ = ("_by_id", "_context", "_history", "_positions", "edits", "next_position")

    def __init__(
        self, history: Sequence[Message], positions: Sequence[int], next_position: int
    ) -> None:
        self._history = history
        self._positions = positions
        self.next_position = next_position
        self._context: list[Message] = []
        # Built on first use: message id -> (message, origin, positions or roots).
        self._by_id: dict[int, _Entry] | None = None
        self.edits: list[TranscriptEdit] = []

    def add_context(self, messages: Sequence[Message]) -> None:
        """Messages context providers added to this run."""
        self._context.extend(messages)
        if self._by_id is not None:
            for message in messages:
                self._by_id[id(message)] = (message, "context", ())

    def _index(self) -> dict[int, _Entry]:
        by_id = self._by_id
        if by_id is None:
            by_id = {}
            for message in self._history:
                by_id[id(message)] = (message, "history", ())
            for message in self._context:
                by_id[id(message)] = (message, "context", ())
            self._by_id = by_id
        return by_id

    def origin(self, message: Message) -> Origin:
        """Where ``message`` came from; ``"run"`` for any message the ledger does not know."""
        entry = self._index().get(id(message))
        return "run" if entry is None or entry[0] is not message else entry[1]

    def roots(self, message: Message) -> tuple[Message, ...]:
        """The original messages ``message`` stands for: itself, or what an edit covered."""
        entry = self._index().get(id(message))
        if entry is None or entry[0] is not message or entry[1] != "edit":
            return (message,)
        return entry[2]

    def record_edit(self, edit: TranscriptEdit) -> None:
        """Remember ``edit`` and where its summary came from."""
        self.edits.append(edit)
        if edit.summary is not None:
            roots: list[Message] = []
            for message in edit.covered:
                roots.extend(self.roots(message))
            self._index()[id(edit.summary)] = (edit.summary, "edit", tuple(roots))

    def records(
        self,
        turn_positions: Mapping[int, int],
        turn_length: int,
        *,
        run_id: str | None,
        model: str | None,
    ) -> list[Message]:
        """The compaction records of the persisted edits, for a turn of ``turn_length``
        messages appended at ``next_position``; ``turn_positions`` maps the id of each
        transcript message of the turn to its index in the stored turn."""
        persisted = [edit for edit in self.edits if edit.persist]
        if not persisted:
            return []
        history_positions = {id(m): p for m, p in zip(self._history, self._positions, strict=True)}
        start = self.next_position
        visible = sorted([*self._positions, *range(start, start + turn_length)])
        hidden: set[int] = set()
        out: list[Message] = []
        at = start + turn_length
        for edit in persisted:
            positioned: dict[int, Message] = {}
            for covered in edit.covered:
                for root in self.roots(covered):
                    position = history_positions.get(id(root))
                    if position is None and id(root) in turn_positions:
                        position = start + turn_positions[id(root)]
                    if position is not None:
                        positioned[position] = root
            if not positioned:
                continue
            low, high = min(positioned), max(positioned)
            runs: list[list[int]] = []
            current: list[int] | None = None
            for position in visible:
                if position < low or position > high or position in hidden:
                    continue
                if position in positioned:
                    if current is None:
                        current = []
                        runs.append(current)
                    current.append(position)
                else:
                    current = None
            summary = edit.summary
            text = None if summary is None else summary.text
            label = _label_of(summary)
            for number, run in enumerate(runs):
                first, last = run[0], run[-1]
                call_ids = _call_ids(positioned[p] for p in run)
                record = CompactionContent(
                    start=first,
                    end=last + 1,
                    at=at,
                    summary=text if number == 0 else None,
                    call_ids=call_ids,
                    label=label,
                    strategy=edit.strategy,
                    run_id=run_id,
                    model=model,
                )
                out.append(Message("user", (record,)))
                at += 1
                for position in range(first, last + 1):
                    if not (number == 0 and position == first and text is not None):
                        hidden.add(position)
        return out


def _label_of(summary: Message | None) -> object:
    """The label a summary note carries in its marker (a ``ContentLabel``), or ``None``."""
    if summary is None or summary.additional_properties is None:
        return None
    marker = summary.additional_properties.get(SUMMARY_MARKER)
    if isinstance(marker, Mapping):
        label: object = cast("Mapping[str, object]", marker).get("label")
        if hasattr(label, "integrity") and hasattr(label, "confidentiality"):
            return label
    return None


def _call_ids(messages: Iterable[Message]) -> tuple[str, ...]:
    ids: dict[str, None] = {}
    for message in messages:
        for content in message.contents:
            if isinstance(content, (FunctionCallContent, FunctionResultContent)):
                ids[content.call_id] = None
    return tuple(ids)
