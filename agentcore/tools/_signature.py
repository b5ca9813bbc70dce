"""Reading a tool function: its parameters, their resolved hints, and its docstring."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import attrs
import typing_extensions

from agentcore._equality import fields_eq, fields_hash
from agentcore._repr import fields_repr
from agentcore.tools._context import ToolContext
from agentcore.tools._docstrings import Docstring, parse_docstring
from agentcore.tools._types import NoneType, is_union, strip_wrappers

__all__ = ["MISSING", "ToolParameter", "ToolSignature", "read_signature"]

MISSING: Any = inspect.Parameter.empty
"""The ``default`` of a parameter the model must always send."""


@attrs.frozen
class ToolParameter:
    """One parameter of a tool function."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    name: str
    hint: Any
    """The resolved type hint, ``Annotated`` metadata kept."""
    default: Any
    """The default value, or :data:`MISSING`."""
    positional_only: bool
    injected: bool
    """A ``ToolContext`` parameter: filled by the loop, hidden from the model."""

    @property
    def required(self) -> bool:
        """Whether the model must send this argument."""
        return self.default is MISSING


@attrs.frozen
class ToolSignature:
    """What a tool needs to know about its function."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    parameters: tuple[ToolParameter, ...]
    """Every parameter except a method's receiver."""
    is_method: bool
    """Defined in a class body with ``self`` first: bind it before calling."""
    docstring: Docstring


def read_signature(func: Callable[..., Any], *, tool_name: str) -> ToolSignature:
    """Inspect ``func``; raise ``ValueError`` / ``TypeError`` for what a tool cannot take."""
    described = _describe(func)
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"cannot read the signature of {described} for tool {tool_name!r}: {exc}"
        ) from None
    hints = _resolve_hints(func, described)
    parameters = list(signature.parameters.values())
    is_method = _is_method(func, parameters, hints)
    if is_method:
        parameters = parameters[1:]
    read: list[ToolParameter] = []
    for parameter in parameters:
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            stars = "*" if parameter.kind is parameter.VAR_POSITIONAL else "**"
            raise ValueError(
                f"tool function {described} takes {stars}{parameter.name}; a model can only "
                f"send named arguments, so replace it with explicit, annotated parameters"
            )
        if parameter.name not in hints:
            raise ValueError(
                f"parameter {parameter.name!r} of tool function {described} has no type "
                f"annotation; annotate it (for example `{parameter.name}: str`) so the tool's "
                f"schema can say what the model must send"
            )
        hint = hints[parameter.name]
        read.append(
            ToolParameter(
                name=parameter.name,
                hint=hint,
                default=parameter.default,
                positional_only=parameter.kind is parameter.POSITIONAL_ONLY,
                injected=_is_context(hint),
            )
        )
    return ToolSignature(
        parameters=tuple(read),
        is_method=is_method,
        docstring=parse_docstring(inspect.getdoc(func)),
    )


def _describe(func: Callable[..., Any]) -> str:
    name = getattr(func, "__qualname__", None) or getattr(func, "__name__", None)
    return repr(name) if isinstance(name, str) else repr(func)


def _hint_source(func: Callable[..., Any]) -> Any:
    """The object whose annotations describe ``func``'s parameters."""
    target: Any = func
    while isinstance(target, functools.partial):
        target = target.func  # pyright: ignore[reportUnknownMemberType] # partial of anything
    if inspect.isroutine(target):
        return target
    return type(target).__call__  # a callable instance: its class's __call__


def _resolve_hints(func: Callable[..., Any], described: str) -> dict[str, Any]:
    try:
        return typing_extensions.get_type_hints(_hint_source(func), include_extras=True)
    except Exception as exc:
        raise TypeError(
            f"cannot resolve the type hints of tool function {described}: {exc}. String "
            f"annotations are resolved in the function's module, so define or import the "
            f"types there (not inside another function)"
        ) from None


def _is_method(
    func: Callable[..., Any], parameters: list[inspect.Parameter], hints: dict[str, Any]
) -> bool:
    """A plain function defined in a class body whose first parameter is the receiver."""
    if not inspect.isfunction(func) or not parameters:
        return False
    parts = func.__qualname__.split(".")
    if len(parts) < 2 or parts[-2] == "<locals>":
        return False
    first = parameters[0]
    if first.kind not in (first.POSITIONAL_ONLY, first.POSITIONAL_OR_KEYWORD):
        return False
    return first.name == "self" or first.name not in hints


def _is_context(hint: Any) -> bool:
    bare = strip_wrappers(hint)
    if bare is ToolContext or typing_extensions.get_origin(bare) is ToolContext:
        return True  # ToolContext, or ToolContext[Deps]
    if is_union(bare):
        members = {
            typing_extensions.get_origin(member) or member
            for member in typing_extensions.get_args(bare)
        } - {NoneType}
        return members == {ToolContext}
    return False
