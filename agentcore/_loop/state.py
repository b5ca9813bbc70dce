"""The state of one execution of the tool loop, and what it adds up to.

:class:`LoopState` is everything one run of the loop reads and produces; the loop
(``loop.py``) and its steps (``model_call.py``, ``tool_calls.py``, ``pause.py``,
``history_repair.py``) all work on it, so it sits below them and imports none of them.
A run of the loop is one object: ``LoopRun`` (``loop.py``) is this state with the
loop's steps as its methods.
:class:`ToolIndex` is the function tools of a tool list by name, built once per agent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from operator import is_
from typing import TYPE_CHECKING, Any, cast

from agentcore._fastpaths import LoopSummary
from agentcore._loop.config import NO_NAMES, FunctionInvocationConfiguration
from agentcore._run_context import RunContext
from agentcore._sessions.session import PausedRun
from agentcore._types.contents import FunctionApprovalResponseContent, UserInputResponseContent
from agentcore._types.messages import Message
from agentcore._types.responses import ChatResponse, ChatResponseUpdate
from agentcore._types.usage import Usage
from agentcore.middleware._pipeline import Pipelines
from agentcore.observers import ObserverSet

if TYPE_CHECKING:
    from agentcore.protocols import SupportsGetResponse
    from agentcore.tools import SupportsToolCall

__all__ = ["LoopState", "ToolIndex"]

_NO_OBSERVERS = ObserverSet()
# Shared empties (NO_NAMES too): a fresh empty set or dict per run costs 64 to 216 bytes.
NO_PENDING_ANSWERS: dict[str, dict[str, str]] = {}  # never written: replaced on resume


class ToolIndex:
    """The function tools among a list of tools, by name, and those that always ask
    for approval. Read-only once built, so an agent builds it once for its tools."""

    __slots__ = ("always_ask", "direct_tools", "function_tools")

    def __init__(self, tools: Sequence[Any]) -> None:
        function_tools: dict[str, SupportsToolCall] = {}
        always_ask: set[str] = set()
        direct: set[str] = set()
        for item in tools:
            name = getattr(item, "name", None)
            if name is not None and hasattr(item, "parse_arguments"):
                function_tools[name] = item
                if item.approval_mode == "always_require":
                    always_ask.add(name)
                if item.return_directly:
                    direct.add(name)
        self.function_tools: Mapping[str, SupportsToolCall] = function_tools
        self.always_ask: frozenset[str] = frozenset(always_ask) if always_ask else NO_NAMES
        # The tools whose result is the run's answer (none, usually: the check is skipped).
        self.direct_tools: frozenset[str] = frozenset(direct) if direct else NO_NAMES


_NO_TOOLS = ToolIndex(())


class LoopState:
    """Everything one execution of the loop reads and produces."""

    __slots__ = (
        "always_ask",
        "answers",
        "approved",
        "client",
        "config",
        "decisions",
        "decline_pending",
        "direct_tool",
        "direct_tools",
        "error_batches",
        "extra_streamed",
        "final_call",
        "function_tools",
        "invocations",
        "iterations",
        "observers",
        "options",
        "paused",
        "pending",
        "pipelines",
        "produced",
        "responses",
        "resumed",
        "return_directly",
        "run",
        "stream",
        "terminated",
        "transcript",
        "updates",
    )

    def __init__(
        self,
        *,
        client: SupportsGetResponse[Any],
        messages: Sequence[Message],
        options: Mapping[str, Any] | None,
        stream: bool,
        run: RunContext,
        pipelines: Pipelines,
        config: FunctionInvocationConfiguration,
        return_directly: frozenset[str] | set[str] = frozenset(),
        observers: ObserverSet = _NO_OBSERVERS,
        pending: PausedRun | None = None,
        decisions: Sequence[FunctionApprovalResponseContent | UserInputResponseContent] = (),
        decline_pending: bool = False,
        own_options: bool = False,
        tool_index: ToolIndex | None = None,
    ) -> None:
        self.client = client
        self.transcript: list[Message] = (
            messages if own_options and isinstance(messages, list) else list(messages)
        )
        self.produced: list[Message] = []
        self.responses: list[ChatResponse[Any]] = []
        self.extra_streamed = 0
        self.approved: frozenset[str] = NO_NAMES
        self.answers: dict[str, dict[str, str]] = NO_PENDING_ANSWERS
        self.decline_pending = decline_pending
        # The return_directly tool whose result became the answer, if one did.
        self.direct_tool: str | None = None
        self.stream = stream
        self.run = run
        self.pipelines = pipelines
        self.config = config
        self.return_directly = return_directly
        self.observers = observers
        self.pending = pending
        self.decisions = decisions
        self.paused: PausedRun | None = None
        # The results of a resumed batch: they belong right after the calls, before
        # this run's input (which may hold a new user message).
        self.resumed: Message | None = None
        self.terminated = False
        self.invocations: dict[str, int] | None = None
        # How far the loop got (read and written by its steps, ``LoopRun`` in loop.py).
        self.iterations: int = 0
        self.error_batches: int = 0  # consecutive batches with a failed call
        self.final_call: bool = False  # whether the model call under way is the last one
        # What the last step has for a streaming caller (made on the first; a run
        # that does not stream never has any).
        self.updates: list[ChatResponseUpdate] | None = None
        self.function_tools: Mapping[str, SupportsToolCall]
        self.always_ask: frozenset[str]
        self.direct_tools: frozenset[str]
        # The options and messages are this loop's own from here on (``own_options``
        # says the caller handed over fresh ones, so they are not copied twice).
        self.options = self._split_tools(
            options if own_options and isinstance(options, dict) else dict(options or {}),
            tool_index,
            own_options,
        )

    def _split_tools(
        self, options: dict[str, Any], index: ToolIndex | None, own: bool
    ) -> dict[str, Any]:
        tools = options.get("tools")
        if index is None:
            index = ToolIndex(tools) if tools else _NO_TOOLS
        self.function_tools = index.function_tools
        self.always_ask = index.always_ask
        self.direct_tools = index.direct_tools
        additional = self.config.additional_tools
        if options.get("tool_choice") == "none":
            options.pop("tools", None)
        elif additional:
            options["tools"] = [*(tools or ()), *additional]
        elif tools:
            options["tools"] = tools if own and isinstance(tools, list) else list(tools)
        return options

    def response(self) -> ChatResponse[None]:
        """The whole loop as one response (what the streamed updates fold into)."""
        summary = self.summary()
        if isinstance(summary, ChatResponse):
            return summary
        return ChatResponse(*summary)

    def summary(self) -> ChatResponse[None] | LoopSummary:
        """The loop's outcome: the only model response itself when nothing was added
        to it, else the fields of the whole loop's response (no object built)."""
        responses = self.responses
        extra_usage = self.run.extra_usage
        if len(responses) == 1 and not extra_usage:
            only = responses[0]
            produced = self.produced
            if (
                len(produced) == len(only.messages)
                and all(map(is_, produced, only.messages))
                and only.value is None
            ):
                return cast("ChatResponse[None]", only)  # one model call, nothing added
        finish_reason = None
        response_id = conversation_id = model = created_at = None
        extra: dict[str, Any] | None = None
        usage: Usage | None = None
        for each in responses:
            response_id = each.response_id or response_id
            conversation_id = each.conversation_id or conversation_id
            model = each.model or model
            finish_reason = each.finish_reason or finish_reason
            created_at = created_at or each.created_at
            if each.additional_properties:
                extra = {**(extra or {}), **each.additional_properties}
            if each.usage is not None:
                usage = each.usage if usage is None else usage + each.usage
        for spent in extra_usage:
            usage = spent if usage is None else usage + spent
        return LoopSummary(
            tuple(self.produced),
            response_id,
            conversation_id,
            model,
            finish_reason,
            usage,
            created_at,
            None,
            extra,
        )
