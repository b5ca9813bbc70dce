"""Chat messages."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, TypeAlias, cast, get_args

import attrs

from agentcore._equality import fields_eq, fields_hash
from agentcore._repr import fields_repr
from agentcore._types.contents import CONTENT_TYPES, Content, TextContent

__all__ = ["Message", "Role"]

Role: TypeAlias = Literal["system", "user", "assistant", "tool"]
_ROLES: frozenset[str] = frozenset(get_args(Role))


_EXACT_CONTENT_TYPES = frozenset(CONTENT_TYPES)


def _to_contents(value: str | Content | Sequence[Content | str]) -> tuple[Content, ...]:
    if value.__class__ is tuple:
        items = cast("tuple[Content | str, ...]", value)
        for item in items:  # a loop, not all(...): no generator per message
            if type(item) not in _EXACT_CONTENT_TYPES:
                break
        else:
            return cast("tuple[Content, ...]", items)  # already contents: kept (the usual case)
    if isinstance(value, str):
        return (TextContent(value),)
    if not isinstance(value, Sequence):
        if isinstance(value, CONTENT_TYPES):
            return (value,)
        raise TypeError(
            "Message contents must be a str, a content object, or a sequence of those, "
            f"got {type(value).__name__}"
        )
    out: list[Content] = []
    for item in value:
        if isinstance(item, str):
            out.append(TextContent(item))
        elif isinstance(item, CONTENT_TYPES):
            out.append(item)
        else:
            raise TypeError(
                "Message contents must be content objects (TextContent, DataContent, ...) "
                f"or str, got {type(item).__name__}"
            )
    return tuple(out)


def _check_role(_instance: object, _attribute: object, value: str) -> None:
    if value not in _ROLES:
        raise ValueError(f"Message role must be one of {sorted(_ROLES)}, got {value!r}")


def contents_text(contents: Sequence[Content]) -> str:
    """The text contents among ``contents``, joined (``""`` when there are none)."""
    if len(contents) == 1:  # the common case, above all for streamed chunks
        only = contents[0]
        return only.text if isinstance(only, TextContent) else ""
    return "".join([c.text for c in contents if isinstance(c, TextContent)])


@attrs.frozen
class Message:
    """One message of a conversation: a role and an ordered tuple of contents.

    ``contents`` accepts content objects, plain strings (made into
    :class:`TextContent`), or a mix.
    """

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    role: Role = attrs.field(validator=_check_role)
    contents: tuple[Content, ...] = attrs.field(default=(), converter=_to_contents)
    author_name: str | None = None
    message_id: str | None = None
    additional_properties: Mapping[str, Any] | None = attrs.field(default=None, eq=False)

    @property
    def text(self) -> str:
        """The text contents joined together (``""`` when there are none)."""
        return contents_text(self.contents)
