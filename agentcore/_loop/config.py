"""The tool loop's configuration value: one frozen object, validated at construction."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, cast

import attrs

from agentcore._equality import fields_eq, fields_hash
from agentcore._repr import fields_repr

if TYPE_CHECKING:
    from agentcore._types.contents import FunctionCallContent
    from agentcore.tools import SupportsToolCall


def _at_least(minimum: int) -> Any:
    def check(_instance: object, attribute: attrs.Attribute[int], value: object) -> None:
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"{attribute.name} must be an int, got {value!r}")
        if value < minimum:
            raise ValueError(f"{attribute.name} must be at least {minimum}, got {value}")

    return check


def _optional_positive(
    _instance: object, attribute: attrs.Attribute[int | None], value: object
) -> None:
    if value is None:
        return
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{attribute.name} must be None (unlimited) or an int, got {value!r}")
    if value < 1:
        raise ValueError(f"{attribute.name} must be None (unlimited) or at least 1, got {value}")


def _flag(_instance: object, attribute: attrs.Attribute[bool], value: object) -> None:
    if not isinstance(value, bool):
        raise TypeError(f"{attribute.name} must be True or False, got {value!r}")


def tool_name(item: object) -> str | None:
    if isinstance(item, Mapping):
        name: object = cast("Mapping[str, object]", item).get("name")
    else:
        name = getattr(item, "name", None)
    return name if isinstance(name, str) else None


NO_NAMES: frozenset[str] = frozenset()


def declared_only_names(config: FunctionInvocationConfiguration) -> frozenset[str]:
    """Names of tools declared to the model but not run here (``additional_tools``)."""
    if not config.additional_tools:
        return NO_NAMES
    return frozenset(name for item in config.additional_tools if (name := tool_name(item)))


def _declared_tools(value: Any) -> tuple[Any, ...]:
    if isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__iter__"):
        raise TypeError(
            f"additional_tools must be a list of tools (FunctionTool or a provider tool dict "
            f"with a 'name'), got {value!r}"
        )
    tools = tuple(value)
    for item in tools:
        if tool_name(item) is None:
            raise TypeError(
                f"additional_tools holds {item!r}, which has no name; the loop recognises "
                f"calls to these tools by name"
            )
    return tools


def _optional_callable(_instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if value is not None and not callable(value):
        raise TypeError(f"{attribute.name} must be None or a callable, got {value!r}")


@attrs.frozen(kw_only=True)
class FunctionInvocationConfiguration:
    """How the tool loop behaves. Set per agent; override per run.

    ``additional_tools`` are declared to the model but not run here: a call to
    one ends the run with the call pending for the caller. ``max_concurrency``
    bounds parallel tool calls of one turn (``None``: unlimited).
    ``approval_policy(call, tool)`` may ask for approval of calls to tools that do
    not require it themselves (``approval_mode="always_require"`` always does). A wrongly typed
    setting raises ``TypeError`` and an out-of-range one ``ValueError``, at once.
    """

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    enabled: bool = attrs.field(default=True, validator=_flag)
    max_iterations: int = attrs.field(default=40, validator=_at_least(1))
    max_consecutive_errors_per_request: int = attrs.field(default=3, validator=_at_least(1))
    terminate_on_unknown_calls: bool = attrs.field(default=False, validator=_flag)
    additional_tools: tuple[Any, ...] = attrs.field(default=(), converter=_declared_tools)
    include_detailed_errors: bool = attrs.field(default=False, validator=_flag)
    max_concurrency: int | None = attrs.field(default=None, validator=_optional_positive)
    approval_policy: Callable[[FunctionCallContent, SupportsToolCall], bool] | None = attrs.field(
        default=None, validator=_optional_callable
    )


DEFAULT_CONFIGURATION = FunctionInvocationConfiguration()


def as_configuration(value: object, where: str) -> FunctionInvocationConfiguration:
    """``value`` if it is a loop configuration; else a ``TypeError`` saying how to make one."""
    if isinstance(value, FunctionInvocationConfiguration):
        return value
    # Shown before the isinstance below narrows ``value`` to a Mapping of unknowns.
    shown = f"{type(value).__name__} {value!r}"
    settings = "**settings" if isinstance(value, Mapping) else "..."
    raise TypeError(
        f"{where} must be a FunctionInvocationConfiguration, got {shown}; "
        f"build one with FunctionInvocationConfiguration({settings})"
    )
