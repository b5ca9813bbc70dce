"""The cases of a switch (``WorkflowBuilder.add_switch``).

They load with the first switch (or when named): a workflow without one never needs
them. The built switch is an edge group like the others (``_edges.Group``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs

from agentcore._equality import fields_eq, fields_hash
from agentcore._repr import fields_repr

__all__ = ["Case", "Default"]


@attrs.frozen
class Case:
    """A switch case: a predicate of the message, or a class the message must be."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    when: Callable[[Any], bool] | type[Any]
    target: object


@attrs.frozen
class Default:
    """The switch's fallback target."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    target: object
