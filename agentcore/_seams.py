"""The two seams a run calls through: a chat client and an agent.

They are defined here, below the contexts that name them (``ChatContext.client``,
``AgentContext.agent``), and made public by :mod:`agentcore.protocols`, which sits above
the contexts because its context providers and middleware protocols name them in turn.
"""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from typing import Any, Literal, Protocol, TypeAlias, overload, runtime_checkable

from typing_extensions import TypeVar

from agentcore._sessions.session import AgentSession
from agentcore._streams.stream import ResponseStream
from agentcore._types.contents import Content
from agentcore._types.messages import Message
from agentcore._types.responses import (
    AgentResponse,
    AgentResponseUpdate,
    ChatResponse,
    ChatResponseUpdate,
)

__all__ = ["AgentInput", "SupportsAgentRun", "SupportsGetResponse"]

OptionsT_contra = TypeVar("OptionsT_contra", contravariant=True, default=Any)

AgentInput: TypeAlias = str | Message | Content | Sequence[str | Message | Content]
"""What ``run`` accepts: a str, a Message, a content object, or a sequence of those
(loose strings and contents become user messages)."""


@runtime_checkable
class SupportsGetResponse(Protocol[OptionsT_contra]):
    """A chat client: one method, both modes.

    ``stream=False`` returns an awaitable of the whole :class:`ChatResponse`;
    ``stream=True`` returns a :class:`ResponseStream` at once (a plain ``def``,
    so the stream can be returned before any I/O happens).
    """

    @overload
    def get_response(
        self,
        messages: Sequence[Message],
        *,
        options: OptionsT_contra | None = None,
        stream: Literal[False] = False,
    ) -> Awaitable[ChatResponse[Any]]: ...

    @overload
    def get_response(
        self,
        messages: Sequence[Message],
        *,
        options: OptionsT_contra | None = None,
        stream: Literal[True],
    ) -> ResponseStream[ChatResponseUpdate, ChatResponse[Any]]: ...

    def get_response(
        self,
        messages: Sequence[Message],
        *,
        options: OptionsT_contra | None = None,
        stream: bool = False,
    ) -> Awaitable[ChatResponse[Any]] | ResponseStream[ChatResponseUpdate, ChatResponse[Any]]: ...


@runtime_checkable
class SupportsAgentRun(Protocol):
    """An agent: anything that runs a conversation turn, streaming or not."""

    @property
    def name(self) -> str | None: ...

    @property
    def description(self) -> str | None: ...

    @overload
    def run(
        self,
        messages: AgentInput | None = None,
        *,
        session: AgentSession | None = None,
        stream: Literal[False] = False,
    ) -> Awaitable[AgentResponse[Any]]: ...

    @overload
    def run(
        self,
        messages: AgentInput | None = None,
        *,
        session: AgentSession | None = None,
        stream: Literal[True],
    ) -> ResponseStream[AgentResponseUpdate, AgentResponse[Any]]: ...

    def run(
        self,
        messages: AgentInput | None = None,
        *,
        session: AgentSession | None = None,
        stream: bool = False,
    ) -> (
        Awaitable[AgentResponse[Any]] | ResponseStream[AgentResponseUpdate, AgentResponse[Any]]
    ): ...

    def create_session(self) -> AgentSession: ...
