"""Compaction: keep a long conversation under the model's window, valid and whole.

The pieces are pure and composable: :func:`group_messages` cuts a transcript into
atomic groups (a call never loses its result), a strategy plans what to drop,
summarize or clear (:class:`SlidingWindow`, :class:`ClearToolResults`,
:class:`DropOldest`, :class:`Summarize`, :class:`Tiered`), and :func:`apply_plan`
applies the plan and says what changed. Stored history is never rewritten: a summary
is an append-only record that :func:`compacted_view` replays. The chat middleware
that runs all of this before every model call is
``agentcore_contrib.compaction.Compaction``. Experimental (``COMPACTION``).
"""

from agentcore._sessions.ledger import Origin, TranscriptEdit
from agentcore._sessions.view import (
    HistoryView,
    compacted_view,
    record_of,
    view_from_parts,
    visible_ranges,
)
from agentcore._types.contents import CompactionContent
from agentcore._types.groups import (
    SUMMARY_MARKER,
    GroupKind,
    MessageGroup,
    group_messages,
    is_summary,
)
from agentcore.compaction._apply import (
    DEFAULT_PLACEHOLDER,
    SUMMARY_PREFIX,
    Persist,
    apply_plan,
    summary_note,
)
from agentcore.compaction._plan import (
    ClearResults,
    DropGroups,
    Plan,
    PlanAction,
    SummarizeGroups,
    finish_plan,
)
from agentcore.compaction._strategies import (
    ClearToolResults,
    CompactionStrategy,
    DropOldest,
    SlidingWindow,
    Summarize,
    Tiered,
    projected_tokens,
)

__all__ = [
    "DEFAULT_PLACEHOLDER",
    "SUMMARY_MARKER",
    "SUMMARY_PREFIX",
    "ClearResults",
    "ClearToolResults",
    "CompactionContent",
    "CompactionStrategy",
    "DropGroups",
    "DropOldest",
    "GroupKind",
    "HistoryView",
    "MessageGroup",
    "Origin",
    "Persist",
    "Plan",
    "PlanAction",
    "SlidingWindow",
    "Summarize",
    "SummarizeGroups",
    "Tiered",
    "TranscriptEdit",
    "apply_plan",
    "compacted_view",
    "finish_plan",
    "group_messages",
    "is_summary",
    "projected_tokens",
    "record_of",
    "summary_note",
    "view_from_parts",
    "visible_ranges",
]
