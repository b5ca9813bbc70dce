"""The request validator: what a provider would refuse, found before it is sent.

:func:`check_request` lists every way a request breaks the rules of the OpenAI Chat
Completions, OpenAI Responses and Anthropic Messages APIs (one dialect, or ``"all"``
for their union), and, for a team member's request, the invariants of a shared team
history. :class:`ValidatingChatClient` wraps a client and fails on any such request,
so a test learns of an invalid request where it is made, not from a provider's 400.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal, TypeAlias, get_args

from agentcore._streams.stream import ResponseStream
from agentcore._types.contents import Content, TextContent, UsageContent
from agentcore._types.groups import call_problems
from agentcore._types.messages import Message
from agentcore._types.responses import ChatResponse, ChatResponseUpdate
from agentcore.adapters import GetResponseResult, get_response_method
from agentcore.testing._doubles import ChatRequest

__all__ = [
    "Dialect",
    "RequestValidationError",
    "ValidatingChatClient",
    "check_history_store",
    "check_request",
]

Dialect: TypeAlias = Literal["openai-chat", "openai-responses", "anthropic", "all"]
"""The provider rules :func:`check_request` applies; ``"all"`` is their union."""

_DIALECTS: frozenset[str] = frozenset(get_args(Dialect))

_NEVER_SENT = frozenset(
    {
        "compaction",
        "function_approval_request",
        "function_approval_response",
        "user_input_request",
        "user_input_response",
    }
)
"""Content types that are bookkeeping of a run or a session, never a provider's input."""

_PRODUCED_ONLY = frozenset({"reasoning", "hosted_tool_call", "hosted_tool_result"})
"""Content types a provider must get back exactly as it produced them (C2)."""


class RequestValidationError(AssertionError):
    """A :class:`ValidatingChatClient` was asked to send a request a provider would refuse.

    ``problems`` lists each broken rule, as :func:`check_request` words it.
    """

    def __init__(self, problems: Sequence[str], request_index: int) -> None:
        self.problems: tuple[str, ...] = tuple(problems)
        self.request_index = request_index
        listed = "\n".join(f"- {problem}" for problem in problems)
        super().__init__(f"request {request_index} would be refused by the provider:\n{listed}")


def _is_empty(message: Message) -> bool:
    for content in message.contents:
        if isinstance(content, TextContent):
            if content.text:
                return False
        elif not isinstance(content, UsageContent):
            return False
    return True


def _is_reasoning_only(message: Message) -> bool:
    return bool(message.contents) and all(c.type == "reasoning" for c in message.contents)


def _check_contents(messages: Sequence[Message], problems: list[str]) -> None:
    """C3 (no empty message) and C5 (no bookkeeping contents)."""
    for index, message in enumerate(messages):
        if _is_empty(message):
            problems.append(f"message {index} ({message.role}) is empty")
        for content in message.contents:
            if content.type in _NEVER_SENT:
                problems.append(
                    f"message {index} ({message.role}) holds a {type(content).__name__}, "
                    "which is never sent to a provider"
                )


def _check_first_user(messages: Sequence[Message], problems: list[str]) -> None:
    """C3: the first message after the system messages is user-role."""
    for index, message in enumerate(messages):
        if message.role == "system":
            continue
        if message.role != "user":
            problems.append(
                f"message {index}, the first after the system messages, is {message.role}-role; "
                "Anthropic needs a user message first"
            )
        return
    problems.append("the request has no message besides system messages")


def _check_reasoning(messages: Sequence[Message], dialect: Dialect, problems: list[str]) -> None:
    """Where reasoning may stand: Responses needs a reasoning item's following item;
    Anthropic needs thinking blocks to open their assistant message."""
    for index, message in enumerate(messages):
        if message.role != "assistant":
            if any(c.type == "reasoning" for c in message.contents):
                problems.append(
                    f"message {index} ({message.role}) holds reasoning, which only "
                    "assistant messages carry"
                )
            continue
        if dialect in ("openai-responses", "all") and _is_reasoning_only(message):
            following = messages[index + 1] if index + 1 < len(messages) else None
            if following is None or following.role != "assistant":
                problems.append(
                    f"message {index} holds only reasoning and no assistant message follows "
                    "it; OpenAI Responses refuses a reasoning item without its following item"
                )
        if dialect in ("anthropic", "all"):
            other_seen = False
            for content in message.contents:
                if content.type != "reasoning":
                    other_seen = True
                elif other_seen:
                    problems.append(
                        f"message {index} has reasoning after other contents; Anthropic needs "
                        "thinking blocks first in their assistant turn"
                    )
                    break


def _check_produced(
    messages: Sequence[Message], produced: Iterable[Sequence[Content]], problems: list[str]
) -> None:
    """C2: an assistant message with reasoning or hosted tool contents is sent back
    exactly as the model produced it."""
    # A list, not a set: contents may hold dicts (tool arguments), which do not hash.
    known = [tuple(contents) for contents in produced]
    for index, message in enumerate(messages):
        if message.role != "assistant":
            continue
        if not any(c.type in _PRODUCED_ONLY for c in message.contents):
            continue
        if tuple(message.contents) not in known:
            problems.append(
                f"message {index} holds reasoning or hosted tool contents but is not an "
                "assistant message the model produced, unchanged"
            )


def _check_team(
    messages: Sequence[Message],
    options: Mapping[str, Any],
    agent: str,
    problems: list[str],
) -> None:
    """The invariants of a team member's view (I1-I6 of the teams design)."""
    own = {None, agent}
    for index, message in enumerate(messages):
        if message.role == "assistant" and message.author_name not in own:
            for content in message.contents:
                if content.type == "function_call":
                    problems.append(
                        f"message {index} holds a function call of {message.author_name!r}; "
                        f"{agent!r} may see calls of its own turns only (I1)"
                    )
                    break
            if any(c.type == "reasoning" for c in message.contents):
                problems.append(
                    f"message {index} holds reasoning produced by {message.author_name!r}, "
                    f"not by {agent!r} (I2)"
                )
        if message.role == "assistant" and any(c.type in ("data", "uri") for c in message.contents):
            problems.append(
                f"message {index} (assistant) holds media; media goes in user messages or "
                "tool results (I3)"
            )
    speaking = [m for m in messages if m.role != "system"]
    if speaking and speaking[-1].role != "user":
        problems.append(
            f"the last message is {speaking[-1].role}-role; a member's request ends with a "
            "user message (I4)"
        )
    if options.get("conversation_id") is not None:
        problems.append("the request sets the conversation_id option (I5)")
    seen_ids: set[str] = set()
    for index, message in enumerate(messages):
        if message.message_id is None:
            continue
        if message.message_id in seen_ids:
            problems.append(f"message {index} repeats message id {message.message_id!r} (I6)")
        seen_ids.add(message.message_id)


def check_request(
    messages: Sequence[Message] | ChatRequest,
    *,
    options: Mapping[str, Any] | None = None,
    dialect: Dialect = "all",
    produced: Iterable[Sequence[Content]] | None = None,
    agent: str | None = None,
) -> list[str]:
    """Every reason a provider would refuse to take ``messages``; empty when none.

    The rules, each applied under the dialects whose API has it:

    * C1: each function call has exactly one result, in the tool messages right after
      its assistant message; each result answers a call of that message; calls live in
      assistant messages, results in tool messages.
    * C2 (only when ``produced`` is given: the contents of every message the model
      produced): an assistant message with reasoning or hosted tool contents is one of
      them, unchanged.
    * C3: no message is empty; under ``"anthropic"`` the first message after the system
      messages is user-role.
    * C4: call ids are unique in the request.
    * C5: no compaction record, approval or user-input contents.
    * Reasoning: under ``"openai-responses"`` a reasoning-only assistant message is
      followed by an assistant message; under ``"anthropic"`` reasoning opens its message.

    ``agent`` names a team member whose request this is, adding the team invariants:
    no calls or reasoning of other members, media only in user messages and tool
    results, a user message last, no ``conversation_id`` option, unique message ids.
    ``messages`` may be a :class:`ChatRequest` a test double recorded (its options are
    used). An unknown ``dialect`` raises ``ValueError``.
    """
    if dialect not in _DIALECTS:
        raise ValueError(f"dialect must be one of {sorted(_DIALECTS)}, got {dialect!r}")
    if isinstance(messages, ChatRequest):
        options = messages.options if options is None else options
        messages = messages.messages
    problems: list[str] = []
    problems.extend(call_problems(messages))
    _check_contents(messages, problems)
    if dialect in ("anthropic", "all"):
        _check_first_user(messages, problems)
    _check_reasoning(messages, dialect, problems)
    if produced is not None:
        _check_produced(messages, produced, problems)
    if agent is not None:
        _check_team(messages, options or {}, agent, problems)
    return problems


class ValidatingChatClient:
    """Wraps ``inner`` and fails any request :func:`check_request` finds a problem in.

    A request with problems raises :class:`RequestValidationError` (an ``AssertionError``)
    instead of reaching ``inner``; every request it checked is in ``requests``. It
    remembers what ``inner`` produced, so an assistant message with reasoning or hosted
    tool contents sent back changed, or never produced, is a problem too (C2);
    ``seed`` adds messages produced earlier (a history the test starts from).
    """

    def __init__(
        self,
        inner: Any,
        *,
        dialect: Dialect = "all",
        agent: str | None = None,
        seed: Iterable[Message] = (),
    ) -> None:
        if dialect not in _DIALECTS:
            raise ValueError(f"dialect must be one of {sorted(_DIALECTS)}, got {dialect!r}")
        if not callable(getattr(inner, "get_response", None)):
            raise TypeError(
                f"ValidatingChatClient wraps a chat client (an object with get_response), "
                f"got {type(inner).__name__}"
            )
        self.inner = inner
        self.dialect: Dialect = dialect
        self.agent = agent
        self.requests: list[ChatRequest] = []
        # A list, not a set: contents may hold dicts (tool arguments), which do not hash.
        self._produced: list[tuple[Content, ...]] = [
            tuple(m.contents) for m in seed if m.role == "assistant"
        ]

    def _remember(self, response: ChatResponse[Any]) -> None:
        for message in response.messages:
            if message.role == "assistant" and any(
                c.type in _PRODUCED_ONLY for c in message.contents
            ):
                self._produced.append(tuple(message.contents))

    @get_response_method
    def get_response(
        self,
        messages: Sequence[Message],
        *,
        options: Mapping[str, Any] | None = None,
        stream: bool = False,
    ) -> GetResponseResult:
        request = ChatRequest(tuple(messages), dict(options or {}), stream)
        problems = check_request(
            request, dialect=self.dialect, produced=self._produced, agent=self.agent
        )
        self.requests.append(request)
        if problems:
            raise RequestValidationError(problems, len(self.requests) - 1)
        if stream:
            inner_stream: ResponseStream[ChatResponseUpdate, ChatResponse[Any]] = (
                self.inner.get_response(messages, options=options, stream=True)
            )
            return inner_stream.with_result_hook(self._remember)
        return self._get(messages, options)

    async def _get(
        self, messages: Sequence[Message], options: Mapping[str, Any] | None
    ) -> ChatResponse[Any]:
        response: ChatResponse[Any] = await self.inner.get_response(messages, options=options)
        self._remember(response)
        return response


async def check_history_store(store: Any, session_id: str) -> None:
    """Assert that ``store`` reads a session's view as the kernel replays it.

    For a store with ``load_view`` (the
    :class:`~agentcore.protocols.SupportsHistoryView` capability):
    ``load_view(session_id)`` must equal ``compacted_view(load(session_id))``; an
    ``AssertionError`` says how they differ. A store without ``load_view`` passes: the
    kernel replays its ``load()``.
    """
    from agentcore._sessions.view import compacted_view

    read_view = getattr(store, "load_view", None)
    if read_view is None:
        return
    expected = compacted_view(await store.load(session_id))
    got = await read_view(session_id)
    if got != expected:
        raise AssertionError(
            f"{type(store).__name__}.load_view({session_id!r}) differs from the replay of "
            f"load(): positions {got.positions} against {expected.positions}, next position "
            f"{got.next_position} against {expected.next_position}, ignored records "
            f"{got.ignored_records} against {expected.ignored_records}"
        )
