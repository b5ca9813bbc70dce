"""The frozen events an observer receives, one class per hook.

They live apart from :class:`~agentcore.observers.ObserverSet` so that ``import agentcore``
does not build them: a run builds an event only when an observer is listening, and
``agentcore.observers`` loads this module on first use of an event class.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from types import MappingProxyType
from typing import Any, cast

import attrs

from agentcore._equality import fields_eq, fields_hash
from agentcore._repr import fields_repr
from agentcore._types.messages import Message

__all__ = [
    "ModelCallEnded",
    "ModelCallStarted",
    "RunEnded",
    "RunStarted",
    "ToolCallEnded",
    "ToolCallStarted",
]


def _frozen(value: Any) -> Any:
    """A read-only copy of plain containers (dicts, lists, sets), recursively.

    Events must not hand an observer the live objects of the run: a dict of
    arguments changed by an observer would change what the tool receives.
    """
    if isinstance(value, Mapping):
        items = cast("Mapping[str, Any]", value)
        return MappingProxyType({k: _frozen(v) for k, v in items.items()})
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(v) for v in cast("Sequence[Any]", value))
    if isinstance(value, (set, frozenset)):
        return frozenset(_frozen(v) for v in cast("AbstractSet[Any]", value))
    return value


def _frozen_mapping(value: Mapping[str, Any]) -> Mapping[str, Any]:
    frozen: Mapping[str, Any] = _frozen(value)
    return frozen


def _messages(value: Sequence[Message]) -> tuple[Message, ...]:
    return tuple(value)


@attrs.frozen
class RunStarted:
    """An agent run began; ``messages`` are its input."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    run_id: str
    agent_name: str | None
    messages: tuple[Message, ...] = attrs.field(converter=_messages)


@attrs.frozen
class RunEnded:
    """An agent run ended with ``response`` (an ``AgentResponse``) or ``error``.

    In a streaming run it is sent when the stream is exhausted.
    """

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    run_id: str
    agent_name: str | None
    response: Any = None
    error: BaseException | None = None


@attrs.frozen
class ModelCallStarted:
    """The tool loop is about to call the model with the run's transcript.

    ``messages`` and ``options`` are what the loop hands to the chat middleware
    (which may still change them for the call).
    """

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    run_id: str
    messages: tuple[Message, ...] = attrs.field(converter=_messages)
    options: Mapping[str, Any] = attrs.field(converter=_frozen_mapping)


@attrs.frozen
class ModelCallEnded:
    """A model call returned ``response`` (a ``ChatResponse``, after chat middleware)."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    run_id: str
    response: Any = None
    error: BaseException | None = None


@attrs.frozen
class ToolCallStarted:
    """A tool is about to run with its validated ``arguments``."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    run_id: str
    call_id: str
    name: str
    arguments: Mapping[str, Any] = attrs.field(converter=_frozen_mapping)


@attrs.frozen
class ToolCallEnded:
    """A tool call ended: ``result`` is what the model will see; ``error`` names a failure."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    run_id: str
    call_id: str
    name: str
    result: Any = attrs.field(converter=_frozen)  # pyright: ignore[reportUnknownVariableType]  # attrs cannot infer a converter's type
    error: str | None = None
