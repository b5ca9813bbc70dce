"""Hooks for the kernel's converter from modules that must not load it at import.

``agentcore.serialization`` imports cattrs and builds the converter (about a third of
``import agentcore.workflows``), but only a program that writes or reads JSON needs it.
A module that teaches the converter its own types calls :func:`when_converter_loaded`
with a function that registers them: it runs at once if the converter exists, or else
at the end of ``agentcore.serialization``'s import, before anything can use the
converter. Either way ``to_json(value)`` finds the hook, whoever imported what first.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import cattrs

__all__ = ["converter_loaded", "when_converter_loaded"]

_loaded: cattrs.Converter | None = None
_waiting: list[Callable[[cattrs.Converter], None]] = []


def when_converter_loaded(register: Callable[[cattrs.Converter], None]) -> None:
    """Call ``register(converter)`` now if the converter exists, else when it is built."""
    if _loaded is None:
        _waiting.append(register)
    else:
        register(_loaded)


def converter_loaded(converter: cattrs.Converter) -> None:
    """Called once by ``agentcore.serialization`` when its converter is complete."""
    global _loaded
    _loaded = converter
    while _waiting:
        _waiting.pop(0)(converter)
