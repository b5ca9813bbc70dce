"""``fields_eq`` and ``fields_hash`` compare and hash as attrs' generated methods do, and
every kernel attrs class uses them (or compares by identity).

The value classes share one ``__eq__`` and ``__hash__`` (``agentcore/_equality.py``)
instead of each compiling its own at import. Users see no difference.
"""

from __future__ import annotations

import importlib
import math
import pkgutil
from typing import Any

import attrs
import pytest

import agentcore
from agentcore._equality import fields_eq, fields_hash


def _lower(text: str) -> str:
    return text.lower()


def _pair(shared: bool) -> tuple[Any, Any]:
    """The same two attrs classes, with the shared methods or with the ones attrs generates."""

    @attrs.frozen
    class Leaf:
        if shared:
            __eq__ = fields_eq
            __hash__ = fields_hash

        name: str = attrs.field(eq=_lower)
        weight: float = 1.0
        note: str = attrs.field(default="", eq=False)
        cached: int = attrs.field(default=0, hash=False)

    @attrs.define
    class Box:
        if shared:
            __eq__ = fields_eq

        items: list[Any] = attrs.field(factory=list)

    return Leaf, Box


def test_the_shared_methods_answer_what_attrs_generates() -> None:
    (leaf, box), (own_leaf, own_box) = _pair(True), _pair(False)
    assert leaf.__eq__ is fields_eq
    assert own_leaf.__eq__ is not fields_eq

    nan = math.nan
    pairs = [
        (("a",), ("A",)),  # through the field's eq key
        (("a", 2.0, "x"), ("a", 2.0, "y")),  # a field left out of equality
        (("a", 2.0), ("b", 2.0)),
        (("a", nan), ("a", nan)),  # NaN differs from itself, field by field
        (("a", 1.0, "", 1), ("a", 1.0, "", 2)),  # left out of the hash only: still compared
    ]
    for left, right in pairs:
        assert (leaf(*left) == leaf(*right)) == (own_leaf(*left) == own_leaf(*right)), left
        assert (leaf(*left) != leaf(*right)) == (own_leaf(*left) != own_leaf(*right)), left
    assert hash(leaf("a", 2.0, "x", 1)) == hash(leaf("A", 2.0, "y", 5))

    # Only an instance of the very same class compares; anything else is NotImplemented.
    assert leaf("a") != own_leaf("a")
    assert leaf("a").__eq__(own_leaf("a")) is NotImplemented
    assert leaf("a") != "a"

    # A mutable class compares by value and, as attrs makes it, is unhashable.
    assert box([1]) == box([1])
    assert box([1]) != box([2])
    assert own_box.__hash__ is None
    assert box.__hash__ is None


def _kernel_modules() -> list[str]:
    names = ["agentcore"]
    for info in pkgutil.walk_packages(agentcore.__path__, "agentcore."):
        if not info.name.startswith("agentcore.testing"):
            names.append(info.name)
    return names


@pytest.mark.parametrize("module_name", _kernel_modules())
def test_no_attrs_class_compiles_its_own_eq(module_name: str) -> None:
    """A new value class that forgets them would compile its own at import time (the
    import budgets of docs/performance.md); a class whose identity is its meaning says
    ``eq=False``."""
    module = importlib.import_module(module_name)
    generated = [
        name
        for name, value in vars(module).items()
        if isinstance(value, type)
        and value.__module__ == module_name
        and attrs.has(value)
        and "attrs generated" in (getattr(value.__eq__, "__code__", None) or _NO_CODE).co_filename
    ]
    assert not generated, (
        f"{module_name}: {', '.join(generated)} compile their own __eq__ and __hash__ at "
        "import; add `__eq__ = fields_eq` and `__hash__ = fields_hash` (from "
        "agentcore._equality) to the class body, or `eq=False` where identity is the meaning"
    )


_NO_CODE = (lambda: None).__code__
