"""One ``__repr__`` for the kernel's attrs classes, written once instead of once per class.

attrs writes each class's ``__repr__`` as source text and compiles it when the class is
created. Of all the work ``import agentcore`` does, compiling those reprs was the largest
single piece: 39 million of 418 million instructions (``valgrind --tool=callgrind``, a
fresh ``python -c "from agentcore import Agent, tool"``, 2026-11-26), about 6 ms, for a
method that runs only when someone prints a value. :func:`fields_repr` prints the same
text as the generated one: ``ClassName(field=value, ...)`` with the fields declared
``repr=False`` left out, a field's own ``repr=`` callable used where it has one, and
``...`` for a value that contains itself.

A class takes it with one line in its body, which attrs sees as the class's own repr and
so generates none::

    @attrs.frozen
    class TextContent:
        __repr__ = fields_repr

        text: str
"""

from __future__ import annotations

from reprlib import recursive_repr
from typing import Any

import attrs

__all__ = ["fields_repr"]


def fields_repr(self: attrs.AttrsInstance) -> str:
    """``ClassName(field=value, ...)`` over the attrs fields of ``self``'s class."""
    return _guarded_repr(self)


@recursive_repr()
def _guarded_repr(self: attrs.AttrsInstance) -> str:
    shown: list[str] = []
    fields: tuple[attrs.Attribute[Any], ...] = attrs.fields(type(self))
    for field in fields:
        if field.repr is False:
            continue
        value = getattr(self, field.name, attrs.NOTHING)
        text = repr(value) if field.repr is True else field.repr(value)
        shown.append(f"{field.name}={text}")
    name: str = type(self).__qualname__.rsplit(">.", 1)[-1]
    return f"{name}({', '.join(shown)})"
