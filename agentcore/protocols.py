"""The seams of agentcore: small runtime-checkable protocols.

A provider adapter, a tool, a middleware, a history store or an agent plugs in
because it has the right shape, never because it inherits from a base class.
Type checkers verify the shapes statically; ``isinstance`` answers the optional
capability questions at run time. ``isinstance`` on a protocol is slow in
CPython: check once when an object is set up, never on a per-call path.
"""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from typing_extensions import TypeVar

from agentcore._seams import AgentInput, SupportsAgentRun, SupportsGetResponse
from agentcore._sessions.history import SessionInfo
from agentcore._types.messages import Message
from agentcore._types.options import ToolDeclaration
from agentcore.middleware._shapes import (
    SupportsAgentMiddleware,
    SupportsChatMiddleware,
    SupportsFunctionMiddleware,
)

if TYPE_CHECKING:
    from agentcore._sessions.view import HistoryView
    from agentcore._types.embeddings import EmbeddingGenerationOptions, GeneratedEmbeddings
    from agentcore._types.hosted_tools import (
        CodeInterpreterTool,
        FileSearchTool,
        ImageGenerationTool,
        MCPTool,
        ShellTool,
        WebSearchTool,
    )
    from agentcore.middleware._contexts import AgentContext

__all__ = [
    "AgentInput",
    "ContextProvider",
    "HistoryStore",
    "SupportsAgentMiddleware",
    "SupportsAgentRun",
    "SupportsChatMiddleware",
    "SupportsCodeInterpreterTool",
    "SupportsCountTokens",
    "SupportsFileSearchTool",
    "SupportsFunctionMiddleware",
    "SupportsGetEmbeddings",
    "SupportsGetResponse",
    "SupportsHistoryView",
    "SupportsImageGenerationTool",
    "SupportsListSessions",
    "SupportsMCPTool",
    "SupportsShellTool",
    "SupportsWebSearchTool",
    "ToolDeclaration",
]

InputT_contra = TypeVar("InputT_contra", contravariant=True, default=str)
EmbeddingT = TypeVar("EmbeddingT", default="list[float]")
EmbeddingOptionsT = TypeVar("EmbeddingOptionsT", default="EmbeddingGenerationOptions")


@runtime_checkable
class SupportsGetEmbeddings(Protocol[InputT_contra, EmbeddingT, EmbeddingOptionsT]):
    """An embedding client."""

    additional_properties: dict[str, Any]

    def get_embeddings(
        self,
        values: Sequence[InputT_contra],
        *,
        options: EmbeddingOptionsT | None = None,
    ) -> Awaitable[GeneratedEmbeddings[EmbeddingT, EmbeddingOptionsT]]: ...


@runtime_checkable
class SupportsCountTokens(Protocol):
    """A client that can count the tokens of a request before sending it."""

    def count_tokens(
        self, messages: Sequence[Message], *, options: Any | None = None
    ) -> Awaitable[int]: ...


@runtime_checkable
class SupportsCodeInterpreterTool(Protocol):
    """A client whose service runs code in a hosted sandbox."""

    @staticmethod
    def get_code_interpreter_tool(**kwargs: Any) -> CodeInterpreterTool: ...


@runtime_checkable
class SupportsWebSearchTool(Protocol):
    """A client whose service searches the web on the model's behalf."""

    @staticmethod
    def get_web_search_tool(**kwargs: Any) -> WebSearchTool: ...


@runtime_checkable
class SupportsImageGenerationTool(Protocol):
    """A client whose service generates images as a tool."""

    @staticmethod
    def get_image_generation_tool(**kwargs: Any) -> ImageGenerationTool: ...


@runtime_checkable
class SupportsMCPTool(Protocol):
    """A client whose service connects to remote MCP servers itself."""

    @staticmethod
    def get_mcp_tool(**kwargs: Any) -> MCPTool: ...


@runtime_checkable
class SupportsFileSearchTool(Protocol):
    """A client whose service searches its own vector stores."""

    @staticmethod
    def get_file_search_tool(**kwargs: Any) -> FileSearchTool: ...


@runtime_checkable
class SupportsShellTool(Protocol):
    """A client whose service drives a shell tool."""

    @staticmethod
    def get_shell_tool(**kwargs: Any) -> ShellTool: ...


@runtime_checkable
class HistoryStore(Protocol):
    """Where a session's messages live between runs.

    ``append`` receives every message of one completed run (its input and what
    it produced) and must store all of them or none.

    A store may also have a ``store_key`` attribute: a hashable value naming where it
    keeps histories (``SqliteHistoryStore``: the resolved file). An agent accepts a
    session whose history went to another store object only when both have equal
    keys; a store without one is the same store only as itself.
    """

    async def load(self, session_id: str) -> list[Message]: ...

    async def append(self, session_id: str, messages: Sequence[Message]) -> None: ...


@runtime_checkable
class SupportsHistoryView(Protocol):
    """A history store that reads a session's compacted view itself (in SQL, say).

    ``load_view`` must equal :func:`agentcore.compaction.compacted_view` of ``load``;
    a store without it is replayed by the kernel from ``load``.
    """

    async def load_view(self, session_id: str) -> HistoryView: ...


@runtime_checkable
class SupportsListSessions(Protocol):
    """A history store that can list the sessions it holds (what a UI shows to choose a
    conversation from): ``limit`` sessions after skipping ``offset``, in the store's own
    stable order (the in-memory and SQLite stores: the one appended to last first).
    ``ValueError`` when ``limit`` is below 1 or ``offset`` below 0."""

    async def list_sessions(self, *, limit: int = 50, offset: int = 0) -> Sequence[SessionInfo]: ...


@runtime_checkable
class ContextProvider(Protocol):
    """Adds context to a run before it starts and sees the result after it ends."""

    async def before_run(self, context: AgentContext) -> None: ...

    async def after_run(self, context: AgentContext) -> None: ...
