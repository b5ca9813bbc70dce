"""``fields_repr`` prints what attrs' generated ``__repr__`` prints, and every kernel class uses it.

The kernel's attrs classes share one ``__repr__`` (``agentcore/_repr.py``) instead of
each compiling its own at import. Users see no difference: the text is the same.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

import attrs
import pytest

import agentcore
from agentcore._repr import fields_repr


def _hex(value: int) -> str:
    return hex(value)


def _pair(shared: bool) -> tuple[Any, Any]:
    """The same two attrs classes, with the shared repr or with the one attrs generates."""

    @attrs.frozen
    class Leaf:
        if shared:
            __repr__ = fields_repr

        name: str
        hidden: str = attrs.field(default="secret", repr=False)
        code: int = attrs.field(default=255, repr=_hex)
        kind: str = attrs.field(default="leaf", init=False)

    @attrs.define
    class Node:
        if shared:
            __repr__ = fields_repr

        children: list[Any] = attrs.field(factory=list)

    return Leaf, Node


def test_the_shared_repr_prints_what_attrs_generates() -> None:
    (shared_leaf, shared_node), (own_leaf, own_node) = _pair(True), _pair(False)
    assert shared_leaf.__repr__ is fields_repr
    assert own_leaf.__repr__ is not fields_repr

    assert repr(shared_leaf("a")) == repr(own_leaf("a")) == "Leaf(name='a', code=0xff, kind='leaf')"

    shared, own = shared_node([shared_leaf("b")]), own_node([own_leaf("b")])
    assert repr(shared) == repr(own)

    # A value that contains itself prints "..." where it recurs, as attrs' repr does.
    shared.children.append(shared)
    own.children.append(own)
    assert repr(shared) == repr(own)
    assert repr(shared).endswith(", ...])")


def _kernel_modules() -> list[str]:
    names = ["agentcore"]
    for info in pkgutil.walk_packages(agentcore.__path__, "agentcore."):
        if not info.name.startswith("agentcore.testing"):
            names.append(info.name)
    return names


@pytest.mark.parametrize("module_name", _kernel_modules())
def test_every_kernel_attrs_class_uses_the_shared_repr(module_name: str) -> None:
    """A new value class that forgets it would compile its own repr at import time."""
    module = importlib.import_module(module_name)
    generated = [
        name
        for name, value in vars(module).items()
        if isinstance(value, type)
        and value.__module__ == module_name
        and attrs.has(value)
        and "__repr__" in vars(value)
        and value.__repr__ is not fields_repr
        and value.__repr__.__qualname__.endswith(".__repr__")
        and "attrs generated" in (value.__repr__.__code__.co_filename or "")
    ]
    assert not generated, (
        f"{module_name}: {', '.join(generated)} compile their own __repr__ at import; "
        "add `__repr__ = fields_repr` (from agentcore._repr) to the class body"
    )
