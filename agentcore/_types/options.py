"""Chat options: one ``TypedDict`` every adapter reads and may extend."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import (
    TYPE_CHECKING,
    Any,
    Generic,
    Literal,
    Protocol,
    TypeAlias,
    Union,
    runtime_checkable,
)

from typing_extensions import TypedDict, TypeVar

if TYPE_CHECKING:
    from agentcore._types.hosted_tools import HostedTool

__all__ = ["ChatOptions", "RequiredToolChoice", "ToolChoice", "ToolDeclaration", "ToolLike"]

ResponseT = TypeVar("ResponseT", default=None)


class RequiredToolChoice(TypedDict, total=False):
    """``tool_choice`` that forces a call, optionally of one named function."""

    mode: Literal["required"]
    required_function_name: str


ToolChoice: TypeAlias = Literal["auto", "none", "required"] | RequiredToolChoice
"""``"auto"`` (the model decides), ``"none"`` (no tools), ``"required"`` (must call)."""


@runtime_checkable
class ToolDeclaration(Protocol):
    """What a provider adapter declares to the model for a function tool.

    :class:`~agentcore.FunctionTool` has this shape; so may any tool a caller or an
    integration builds. ``parameters`` is the JSON schema of the arguments object.
    Adapters read these three attributes and nothing else.
    """

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str | None: ...

    @property
    def parameters(self) -> Mapping[str, Any]: ...


ToolLike: TypeAlias = Union[ToolDeclaration, "HostedTool", Mapping[str, Any]]
"""What ``options["tools"]`` holds: function tools (any :class:`ToolDeclaration`), hosted
tools, or raw provider dicts."""


class ChatOptions(TypedDict, Generic[ResponseT], total=False):
    """Options of one chat request. Every key is optional and ``None`` means unset.

    Adapters extend this ``TypedDict`` with their own keys. An adapter finds the
    run's tools in ``tools`` and its instructions in ``instructions``.
    ``response_format`` is a Python type (attrs class, dataclass, TypedDict) or a
    JSON-schema dict; with a type, ``response.value`` has that type.
    """

    model: str | None
    instructions: str | None
    tools: Sequence[ToolLike] | None
    tool_choice: ToolChoice | None
    parallel_tool_calls: bool | None
    response_format: type[ResponseT] | Mapping[str, Any] | None
    temperature: float | None
    top_p: float | None
    max_tokens: int | None
    stop: str | Sequence[str] | None
    seed: int | None
    frequency_penalty: float | None
    presence_penalty: float | None
    conversation_id: str | None
    user: str | None
    metadata: Mapping[str, str] | None


def merge_options(*layers: Mapping[str, Any] | None) -> dict[str, Any]:
    """Merge option mappings; later layers win, and a ``None`` value means unset."""
    merged: dict[str, Any] = {}
    for layer in layers:
        if layer:
            _check_mapping(layer)
            for key, value in layer.items():
                if value is not None:
                    merged[key] = value
    return merged


def _check_mapping(layer: object) -> None:
    if type(layer) is not dict and not isinstance(layer, Mapping):
        raise TypeError(
            f"chat options must be a mapping such as {{'temperature': 0.2}}, got "
            f"{type(layer).__name__} {layer!r}"
        )
