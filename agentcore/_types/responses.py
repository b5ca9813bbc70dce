"""Responses, streamed updates, and the fold that turns updates into a response."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeAlias, cast

import attrs
from typing_extensions import TypeVar

from agentcore._equality import fields_eq, fields_hash
from agentcore._repr import fields_repr
from agentcore._types.contents import (
    Content,
    FunctionApprovalRequestContent,
    FunctionCallContent,
    ReasoningContent,
    TextContent,
    UsageContent,
    UserInputRequestContent,
)
from agentcore._types.messages import Message, Role, contents_text
from agentcore._types.usage import Usage

__all__ = [
    "AgentResponse",
    "AgentResponseUpdate",
    "ChatResponse",
    "ChatResponseUpdate",
    "CustomEvent",
    "FinishReason",
    "merge_plain_text",
]

ValueT = TypeVar("ValueT", default=None)

FinishReason: TypeAlias = Literal["stop", "length", "tool_calls", "content_filter", "error"]
"""Why the model stopped."""


def _to_messages(value: Message | Sequence[Message]) -> tuple[Message, ...]:
    if isinstance(value, Message):
        return (value,)
    return tuple(value)


def _to_contents(value: Content | Sequence[Content]) -> tuple[Content, ...]:
    if type(value) is tuple:  # the common case, checked without an ABC lookup
        return cast("tuple[Content, ...]", value)
    if isinstance(value, Sequence):
        return tuple(value)
    return (value,)


def _to_events(value: Iterable[CustomEvent]) -> tuple[CustomEvent, ...]:
    return tuple(value)


def _joined_text(messages: Iterable[Message]) -> str:
    return "".join(m.text for m in messages)


@attrs.frozen
class CustomEvent:
    """An event a middleware or tool emitted during a run (``context.run.emit``)."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    name: str
    data: Any = None
    source: str | None = None


@attrs.frozen
class ChatResponse(Generic[ValueT]):
    """The answer of one chat request (or of a whole tool loop).

    ``value`` holds the parsed structured output when ``response_format`` was a
    type; it is ``None`` otherwise, and when the answer had nothing to parse (a tool
    loop that stopped on tool calls, with ``tool_choice="required"`` say), so it is
    typed ``T | None``.
    """

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    messages: tuple[Message, ...] = attrs.field(default=(), converter=_to_messages)
    response_id: str | None = None
    conversation_id: str | None = None
    model: str | None = None
    finish_reason: FinishReason | None = None
    usage: Usage | None = None
    created_at: str | None = None
    value: ValueT | None = attrs.field(default=None)
    additional_properties: Mapping[str, Any] | None = attrs.field(default=None, eq=False)

    @property
    def text(self) -> str:
        """The text of every message, concatenated."""
        return _joined_text(self.messages)

    @classmethod
    def from_updates(cls, updates: Iterable[ChatResponseUpdate]) -> ChatResponse[None]:
        """Fold streamed updates into the response a non-streamed call would give."""
        fold = _Fold()
        fold.add_all(updates)
        return fold.chat_response()


@attrs.frozen
class ChatResponseUpdate:
    """One streamed piece of a chat response.

    Updates of one message share ``message_id`` (or, without ids, a role); a new
    id or role starts a new message in the fold.
    """

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    contents: tuple[Content, ...] = attrs.field(default=(), converter=_to_contents)
    role: Role | None = None
    author_name: str | None = None
    response_id: str | None = None
    message_id: str | None = None
    conversation_id: str | None = None
    model: str | None = None
    finish_reason: FinishReason | None = None
    created_at: str | None = None
    additional_properties: Mapping[str, Any] | None = attrs.field(default=None, eq=False)

    @property
    def text(self) -> str:
        """The text contents of this update."""
        return contents_text(self.contents)


@attrs.frozen
class AgentResponse(Generic[ValueT]):
    """The result of an agent run.

    ``messages`` holds what the run produced (not its input). ``value`` is the
    structured output when ``response_format`` was a type, typed ``T | None``: it is
    ``None`` when the run ended without an answer to parse (paused for an approval
    or for user input, ended by middleware, or stopped on tool calls with
    ``tool_choice="required"``). ``events`` are the
    custom events emitted during the run.
    """

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    messages: tuple[Message, ...] = attrs.field(default=(), converter=_to_messages)
    response_id: str | None = None
    agent_name: str | None = None
    finish_reason: FinishReason | None = None
    usage: Usage | None = None
    created_at: str | None = None
    value: ValueT | None = attrs.field(default=None)
    events: tuple[CustomEvent, ...] = attrs.field(default=(), converter=_to_events)
    additional_properties: Mapping[str, Any] | None = attrs.field(default=None, eq=False)

    if not TYPE_CHECKING:
        # Hidden from type checkers, which flag `async for` over a response already;
        # at run time the mistake gets a message that says what to do.
        def __aiter__(self) -> None:
            raise TypeError(
                "an AgentResponse is a whole answer, not a stream, so `async for` cannot read "
                "it; to read updates as they come, pass stream=True and iterate the run "
                "without awaiting it: `async for update in agent.run(..., stream=True)`"
            )

    @property
    def text(self) -> str:
        """The text of every message, concatenated."""
        return _joined_text(self.messages)

    @property
    def approval_requests(self) -> tuple[FunctionApprovalRequestContent, ...]:
        """Calls waiting for the caller's approval before the run can go on."""
        return tuple(
            c
            for m in self.messages
            for c in m.contents
            if isinstance(c, FunctionApprovalRequestContent)
        )

    @property
    def user_input_requests(self) -> tuple[UserInputRequestContent, ...]:
        """Questions tools asked the user; the run goes on once they are answered."""
        return tuple(
            c for m in self.messages for c in m.contents if isinstance(c, UserInputRequestContent)
        )

    @classmethod
    def from_updates(cls, updates: Iterable[AgentResponseUpdate]) -> AgentResponse[None]:
        """Fold streamed agent updates into the response a non-streamed run gives."""
        fold = _Fold()
        events: list[CustomEvent] = []
        agent_name: str | None = None
        for update in updates:
            if update.event is not None:
                events.append(update.event)
            if update.agent_name is not None:
                agent_name = update.agent_name
            fold.add(update)
        return AgentResponse(
            messages=fold.messages(),
            response_id=fold.response_id,
            agent_name=agent_name,
            finish_reason=fold.finish_reason,
            usage=fold.usage,
            created_at=fold.created_at,
            events=tuple(events),
            additional_properties=fold.additional_properties,
        )


@attrs.frozen
class AgentResponseUpdate:
    """One streamed piece of an agent run: model output, tool calls and results,
    or a custom ``event``."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    contents: tuple[Content, ...] = attrs.field(default=(), converter=_to_contents)
    role: Role | None = None
    author_name: str | None = None
    agent_name: str | None = None
    response_id: str | None = None
    message_id: str | None = None
    finish_reason: FinishReason | None = None
    created_at: str | None = None
    event: CustomEvent | None = None
    additional_properties: Mapping[str, Any] | None = attrs.field(default=None, eq=False)

    @property
    def text(self) -> str:
        """The text contents of this update."""
        return contents_text(self.contents)


AnyUpdate: TypeAlias = ChatResponseUpdate | AgentResponseUpdate


class _CallSlot:
    """A function call being assembled from streamed pieces."""

    __slots__ = ("arguments", "call_id", "index", "mapping", "name", "order")

    def __init__(self, piece: FunctionCallContent, order: int) -> None:
        self.call_id = piece.call_id
        self.name = piece.name
        self.index = piece.index
        self.order = order
        self.arguments: list[str] = []
        self.mapping: Mapping[str, Any] | None = None
        self.add(piece)

    def add(self, piece: FunctionCallContent) -> None:
        if piece.name and not self.name:
            self.name = piece.name
        if self.index is None and piece.index is not None:
            self.index = piece.index
        if isinstance(piece.arguments, str):
            self.arguments.append(piece.arguments)
        else:
            self.mapping = piece.arguments

    def build(self) -> FunctionCallContent:
        args: str | Mapping[str, Any] = (
            self.mapping
            if self.mapping is not None and not any(self.arguments)
            else "".join(self.arguments)
        )
        return FunctionCallContent(call_id=self.call_id, name=self.name, arguments=args)


class _TextRun:
    """Consecutive plain text pieces, merged into one :class:`TextContent`."""

    __slots__ = ("pieces",)

    def __init__(self, text: str) -> None:
        self.pieces = [text]


def merge_plain_text(contents: Iterable[Content]) -> list[Content]:
    """``contents`` with each run of adjacent plain text (``TextContent`` without
    annotations) merged into one ``TextContent``, the way the update fold merges them.

    For adapter authors: a non-streamed response built from the service's separate text
    parts then equals the fold of the same response streamed.
    """
    items: list[Content | _TextRun] = []
    for content in contents:
        if isinstance(content, TextContent) and not content.annotations:
            last = items[-1] if items else None
            if isinstance(last, _TextRun):
                last.pieces.append(content.text)
                continue
            if isinstance(last, TextContent) and not last.annotations:
                run = _TextRun(last.text)
                run.pieces.append(content.text)
                items[-1] = run
                continue
        items.append(content)
    return [TextContent("".join(i.pieces)) if isinstance(i, _TextRun) else i for i in items]


class _ReasoningRun:
    """Consecutive reasoning pieces of one reasoning item (same ``id``)."""

    __slots__ = ("pieces",)

    def __init__(self, piece: ReasoningContent) -> None:
        self.pieces = [piece]


class _MessageFold:
    __slots__ = ("author_name", "calls", "items", "message_id", "role")

    def __init__(self, role: Role, message_id: str | None, author_name: str | None) -> None:
        self.role: Role = role
        self.message_id = message_id
        self.author_name = author_name
        self.items: list[Content | _TextRun | _ReasoningRun | _CallSlot] = []
        self.calls: dict[str, _CallSlot] = {}

    def add(self, content: Content) -> None:
        items = self.items
        last = items[-1] if items else None
        if isinstance(content, TextContent):
            if content.annotations:
                items.append(content)
            elif isinstance(last, _TextRun):
                last.pieces.append(content.text)
            else:
                items.append(_TextRun(content.text))
        elif isinstance(content, FunctionCallContent):
            slot = self.calls.get(content.call_id)
            if slot is None:
                slot = _CallSlot(content, len(self.calls))
                self.calls[content.call_id] = slot
                items.append(slot)
            else:
                slot.add(content)
        elif isinstance(content, ReasoningContent):
            if isinstance(last, _ReasoningRun) and last.pieces[0].id == content.id:
                last.pieces.append(content)
            else:
                items.append(_ReasoningRun(content))
        else:
            items.append(content)

    def build(self) -> Message:
        contents: list[Content] = []
        call_positions: list[int] = []
        for item in self.items:
            if isinstance(item, _TextRun):
                contents.append(TextContent("".join(item.pieces)))
            elif isinstance(item, _ReasoningRun):
                contents.append(_merge_reasoning(item.pieces))
            elif isinstance(item, _CallSlot):
                call_positions.append(len(contents))
                contents.append(item.build())
            else:
                contents.append(item)
        if len(call_positions) > 1:
            # Parallel calls whose pieces interleaved: order them by ``index``.
            slots = sorted(
                self.calls.values(),
                key=lambda s: (s.index is None, s.index if s.index is not None else 0, s.order),
            )
            for position, slot in zip(call_positions, slots, strict=True):
                contents[position] = slot.build()
        return Message(
            role=self.role,
            contents=tuple(contents),
            author_name=self.author_name,
            message_id=self.message_id,
        )


def _merge_reasoning(pieces: list[ReasoningContent]) -> ReasoningContent:
    if len(pieces) == 1:
        return pieces[0]
    first = pieces[0]
    protected = first.protected_data
    provider = first.provider
    for piece in pieces[1:]:
        if piece.protected_data is not None:
            protected = (protected or "") + piece.protected_data
        provider = provider or piece.provider
    return ReasoningContent(
        text="".join(p.text for p in pieces),
        provider=provider,
        id=first.id,
        protected_data=protected,
    )


class _Fold:
    """Accumulates updates; see :meth:`ChatResponse.from_updates`."""

    __slots__ = (
        "additional_properties",
        "conversation_id",
        "created_at",
        "current",
        "finish_reason",
        "folds",
        "model",
        "response_id",
        "usage",
    )

    def __init__(self) -> None:
        self.folds: list[_MessageFold] = []
        self.current: _MessageFold | None = None
        self.response_id: str | None = None
        self.conversation_id: str | None = None
        self.model: str | None = None
        self.finish_reason: FinishReason | None = None
        self.usage: Usage | None = None
        self.created_at: str | None = None
        self.additional_properties: dict[str, Any] | None = None

    def add_all(self, updates: Iterable[AnyUpdate]) -> None:
        """Fold ``updates`` in, in order.

        This runs once per streamed chunk, so the common chunk takes a short path:
        a chat update holding one piece of plain text that continues the current
        text run, whose metadata is absent or what the fold already holds. Its
        text joins the run, which is all :meth:`add` would do with it. Every other
        update goes through :meth:`add`.
        """
        chat = ChatResponseUpdate
        text_type = TextContent
        # What the short path needs to know of the fold so far. ``run`` is the
        # list of pieces of the text run being extended (None: no short path).
        run: list[str] | None = None
        role_now = message_id = response_id = model = None
        has_created_at = False
        for update in updates:
            if (
                run is not None
                and type(update) is chat
                and len(contents := update.contents) == 1
                and type(piece := contents[0]) is text_type
                and not piece.annotations
                and ((role := update.role) is None or role == role_now)
                and ((mid := update.message_id) is None or mid == message_id)
                and ((rid := update.response_id) is None or rid == response_id)
                and ((name := update.model) is None or name == model)
                and (update.created_at is None or has_created_at)
                and update.finish_reason is None
                and update.additional_properties is None
                and update.conversation_id is None
            ):
                run.append(piece.text)  # the same as add(), with nothing else to do
                continue
            self.add(update)
            current = self.current
            last = current.items[-1] if current is not None and current.items else None
            if current is not None and type(last) is _TextRun:
                run, role_now, message_id = last.pieces, current.role, current.message_id
                response_id, model = self.response_id, self.model
                has_created_at = self.created_at is not None
            else:
                run = None

    def add(self, update: AnyUpdate) -> None:
        if update.response_id is not None:
            self.response_id = update.response_id
        if isinstance(update, ChatResponseUpdate):
            if update.conversation_id is not None:
                self.conversation_id = update.conversation_id
            if update.model is not None:
                self.model = update.model
        if update.finish_reason is not None:
            self.finish_reason = update.finish_reason
        if update.created_at is not None and self.created_at is None:
            self.created_at = update.created_at
        if update.additional_properties:
            if self.additional_properties is None:
                self.additional_properties = {}
            self.additional_properties.update(update.additional_properties)
        if not update.contents:
            return
        current = self.current
        role = update.role
        message_id = update.message_id
        if (
            current is None
            or (role is not None and role != current.role)
            or (
                message_id is not None
                and current.message_id is not None
                and message_id != current.message_id
            )
        ):
            current = _MessageFold(role or "assistant", message_id, update.author_name)
            self.folds.append(current)
            self.current = current
        elif current.message_id is None and message_id is not None:
            current.message_id = message_id
        for content in update.contents:
            if isinstance(content, UsageContent):
                self.usage = content.usage if self.usage is None else self.usage + content.usage
            else:
                current.add(content)

    def messages(self) -> tuple[Message, ...]:
        return tuple(f.build() for f in self.folds if f.items)

    def chat_response(self) -> ChatResponse[None]:
        """What the updates folded so far amount to."""
        return ChatResponse(
            messages=self.messages(),
            response_id=self.response_id,
            conversation_id=self.conversation_id,
            model=self.model,
            finish_reason=self.finish_reason,
            usage=self.usage,
            created_at=self.created_at,
            additional_properties=self.additional_properties,
        )
