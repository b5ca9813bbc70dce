"""The three middleware contexts: the mutable payload each onion layer reads and writes.

Contexts are the only mutable objects of a run, and that is their point: a
middleware changes ``messages``, ``options`` or ``result`` in place. Changes to an
``AgentContext`` affect this run only, never the agent or a concurrent run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeAlias

import attrs
from typing_extensions import TypeVar

from agentcore._repr import fields_repr
from agentcore._run_context import RunContext
from agentcore._sessions.ledger import Origin, TranscriptEdit, TranscriptLedger
from agentcore._sessions.session import AgentSession
from agentcore._streams.stream import ResponseStream
from agentcore._types.messages import Message
from agentcore._types.responses import (
    AgentResponse,
    AgentResponseUpdate,
    ChatResponse,
    ChatResponseUpdate,
)

if TYPE_CHECKING:
    from agentcore._seams import SupportsAgentRun, SupportsGetResponse
    from agentcore.tools import SupportsToolCall

__all__ = ["AgentContext", "ChatContext", "FunctionInvocationContext"]

DepsT = TypeVar("DepsT", default=Any)

AgentResult: TypeAlias = (
    AgentResponse[Any] | ResponseStream[AgentResponseUpdate, AgentResponse[Any]] | None
)
"""What ``AgentContext.result`` holds: the response, or the run's stream when streaming."""
ChatResult: TypeAlias = (
    ChatResponse[Any] | ResponseStream[ChatResponseUpdate, ChatResponse[Any]] | None
)
"""What ``ChatContext.result`` holds: the response, or the call's stream when streaming."""


@attrs.define(eq=False)
class AgentContext(Generic[DepsT]):
    """The context of agent middleware: one whole run.

    ``messages`` are the run's input; ``instructions``, ``tools``, ``options`` and
    ``return_directly`` are per-run copies (change them freely). ``tools`` may hold
    tool providers: the run asks them for their tools after the context providers'
    ``before_run``. After
    ``call_next()`` returns, ``result`` holds the :class:`AgentResponse` (or, when
    ``stream`` is true, the :class:`ResponseStream` of the run).
    """

    __repr__ = fields_repr

    agent: SupportsAgentRun
    messages: list[Message]
    session: AgentSession | None
    instructions: str | None
    tools: list[Any]
    options: dict[str, Any]
    stream: bool
    run: RunContext
    return_directly: set[str] = attrs.field(factory=set)
    metadata: dict[str, Any] = attrs.field(factory=dict)
    result: AgentResult = None
    terminated: bool = attrs.field(default=False, kw_only=True)
    """Set by the kernel when a middleware raised ``MiddlewareTermination``: the run (or
    the loop) ends after this scope. Read it; ``metadata`` is yours alone."""

    @property
    def deps(self) -> DepsT:
        """The dependencies the run was given with ``deps=`` (typed by the context's
        parameter: ``AgentContext[Deps]``); ``LookupError`` when it was given none."""
        deps: DepsT = self.run.deps
        return deps


@attrs.define(eq=False)
class ChatContext(Generic[DepsT]):
    """The context of chat middleware: one model call of the tool loop.

    ``messages`` is what this call sends (a copy: changing it affects this call
    only). To change what the rest of the run sees, call
    :meth:`rewrite_transcript` (for example to compact history). ``result`` is a
    :class:`ChatResponse`, or a :class:`ResponseStream` when ``stream`` is true.
    """

    __repr__ = fields_repr

    client: SupportsGetResponse[Any]
    messages: list[Message]
    options: dict[str, Any]
    stream: bool
    run: RunContext
    # The loop's live transcript (init argument ``transcript``); private so that
    # changing it goes through rewrite_transcript.
    _transcript: list[Message] = attrs.field(factory=list, repr=False, alias="transcript")
    metadata: dict[str, Any] = attrs.field(factory=dict)
    result: ChatResult = None
    terminated: bool = attrs.field(default=False, kw_only=True)
    """Set by the kernel when a middleware raised ``MiddlewareTermination``: the run (or
    the loop) ends after this scope. Read it; ``metadata`` is yours alone."""

    @property
    def deps(self) -> DepsT:
        """The dependencies the run was given with ``deps=`` (typed by the context's
        parameter: ``ChatContext[Deps]``); ``LookupError`` when it was given none."""
        deps: DepsT = self.run.deps
        return deps

    def rewrite_transcript(
        self, messages: Sequence[Message], *, edits: Sequence[TranscriptEdit] = ()
    ) -> None:
        """Replace the run's transcript from now on (and this call's messages).

        Every function call must keep its result: drop whole call/result groups,
        never half of one. ``edits`` say what changed (compaction passes them): each
        edit's covered messages must be in the current transcript and be whole groups
        (or one tool message, replaced by a cleared copy answering the same calls), and
        ``messages`` must pair every call with its result; else ``ValueError``, and
        nothing changes. Edits marked ``persist`` become compaction records when the
        run commits.
        """
        if edits:
            check_edits(self._transcript, messages, edits)
            ledger = self.run._ledger  # pyright: ignore[reportPrivateUsage]  # the kernel's own ledger
            if ledger is None:
                ledger = self.run._ledger = TranscriptLedger((), (), 0)  # pyright: ignore[reportPrivateUsage]  # the kernel's own ledger
            for edit in edits:
                ledger.record_edit(edit)
        self._transcript[:] = messages
        self.messages = list(messages)

    def origin_of(self, message: Message) -> Origin:
        """Where a message of the transcript came from: ``"history"`` (the session),
        ``"context"`` (a context provider, this run only), ``"edit"`` (a summary or a
        cleared copy an earlier rewrite put in), or ``"run"`` (this run's input and what
        it produced, and any message the run does not know)."""
        ledger = self.run._ledger  # pyright: ignore[reportPrivateUsage]  # the kernel's own ledger
        return "run" if ledger is None else ledger.origin(message)


def check_edits(
    transcript: Sequence[Message], messages: Sequence[Message], edits: Sequence[TranscriptEdit]
) -> None:
    """Refuse edits that do not fit ``transcript`` or leave ``messages`` invalid."""
    from agentcore._types.groups import call_problems, group_messages

    where = {id(m): i for i, m in enumerate(transcript)}
    groups = group_messages(transcript, tokens=_no_tokens)
    group_of = [0] * len(transcript)
    for group in groups:
        for index in range(group.start, group.end):
            group_of[index] = group.index
    for number, edit in enumerate(edits):
        if not isinstance(edit, TranscriptEdit):  # pyright: ignore[reportUnnecessaryIsInstance]  # checked for callers without a type checker
            raise TypeError(f"edits[{number}] must be a TranscriptEdit, got {edit!r}")
        indices: list[int] = []
        for message in edit.covered:
            found = where.get(id(message))
            if found is None or transcript[found] is not message:
                raise ValueError(
                    f"edits[{number}] covers a message that is not in the current transcript "
                    f"({message.role}: {message.text[:40]!r}); cover messages of "
                    "context.messages as they are"
                )
            indices.append(found)
        if not indices:
            raise ValueError(f"edits[{number}] covers no message")
        summary = edit.summary
        if (
            len(indices) == 1
            and transcript[indices[0]].role == "tool"
            and summary is not None
            and summary.role == "tool"
        ):
            if _answered(summary) != _answered(transcript[indices[0]]):
                raise ValueError(
                    f"edits[{number}] replaces tool message {indices[0]} by a copy answering "
                    "other calls; a cleared copy keeps every call id"
                )
            continue
        touched = {group_of[i] for i in indices}
        for group_index in sorted(touched):
            group = groups[group_index]
            if any(i not in indices for i in range(group.start, group.end)):
                raise ValueError(
                    f"edits[{number}] covers part of the {group.kind} group of messages "
                    f"{group.start} to {group.end - 1}; cover whole groups, so no call "
                    "loses its result"
                )
    problems = call_problems(messages)
    if problems:
        raise ValueError("the rewritten transcript is invalid: " + "; ".join(problems))


def _no_tokens(_message: Message) -> int:
    return 0


def _answered(message: Message) -> list[str]:
    return [c.call_id for c in message.contents if c.type == "function_result"]


@attrs.define(eq=False)
class FunctionInvocationContext(Generic[DepsT]):
    """The context of function middleware: one tool call.

    ``arguments`` are already validated and converted; rewrite them before
    ``call_next()`` to change what the tool receives. After it, ``result`` is the
    tool's return value (rewrite it to change what the model sees).
    """

    __repr__ = fields_repr

    function: SupportsToolCall
    arguments: dict[str, Any]
    call_id: str
    run: RunContext
    metadata: dict[str, Any] = attrs.field(factory=dict)
    result: Any = None
    terminated: bool = attrs.field(default=False, kw_only=True)
    """Set by the kernel when a middleware raised ``MiddlewareTermination``: the run (or
    the loop) ends after this scope. Read it; ``metadata`` is yours alone."""
    approved: bool = attrs.field(default=False, kw_only=True)
    """True when a person approved this call (an ``always_require`` tool or the
    approval policy asked, and the run was resumed with an approval)."""
    error_detail: str | None = attrs.field(default=None, kw_only=True)
    """Set it before re-raising a tool's exception to replace the exception's text in
    what the model is told (with ``include_detailed_errors=True``, or on a timeout),
    e.g. to hide what an untrusted tool said."""

    @property
    def deps(self) -> DepsT:
        """The dependencies the run was given with ``deps=`` (typed by the context's
        parameter: ``FunctionInvocationContext[Deps]``); ``LookupError`` when it was given none."""
        deps: DepsT = self.run.deps
        return deps
