"""Security labels for information-flow control.

A :class:`ContentLabel` says how far a piece of content can be trusted
(integrity) and who may see it (confidentiality). Combining content combines
labels with :meth:`ContentLabel.join`: the result is as untrusted as the least
trusted input and as restricted as the most restricted one.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum

import attrs

from agentcore._equality import fields_eq, fields_hash
from agentcore._repr import fields_repr

__all__ = ["ConfidentialityLabel", "ContentLabel", "IntegrityLabel"]


class IntegrityLabel(str, Enum):
    """How far content can be trusted to steer the agent."""

    TRUSTED = "trusted"
    UNTRUSTED = "untrusted"


class ConfidentialityLabel(str, Enum):
    """Who may see content, from least to most restricted."""

    PUBLIC = "public"
    PRIVATE = "private"
    USER_IDENTITY = "user_identity"


_INTEGRITY_RANK = {IntegrityLabel.TRUSTED: 0, IntegrityLabel.UNTRUSTED: 1}
_CONFIDENTIALITY_RANK = {
    ConfidentialityLabel.PUBLIC: 0,
    ConfidentialityLabel.PRIVATE: 1,
    ConfidentialityLabel.USER_IDENTITY: 2,
}


@attrs.frozen
class ContentLabel:
    """An integrity and a confidentiality label for one piece of content."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    integrity: IntegrityLabel = attrs.field(
        default=IntegrityLabel.UNTRUSTED, converter=IntegrityLabel
    )
    confidentiality: ConfidentialityLabel = attrs.field(
        default=ConfidentialityLabel.PUBLIC, converter=ConfidentialityLabel
    )

    def join(self, other: ContentLabel) -> ContentLabel:
        """The label of content derived from both: least trusted, most restricted."""
        integrity = max(self.integrity, other.integrity, key=_INTEGRITY_RANK.__getitem__)
        confidentiality = max(
            self.confidentiality, other.confidentiality, key=_CONFIDENTIALITY_RANK.__getitem__
        )
        return ContentLabel(integrity, confidentiality)

    @classmethod
    def join_all(
        cls, labels: Iterable[ContentLabel], *, default: ContentLabel | None = None
    ) -> ContentLabel:
        """Join many labels; ``default`` (untrusted, public) when there are none."""
        result: ContentLabel | None = None
        for label in labels:
            result = label if result is None else result.join(label)
        if result is None:
            return default if default is not None else cls()
        return result
