"""Reading a model's tool-call arguments as strict JSON.

Python's ``json`` reads ``NaN``, ``Infinity`` and ``-Infinity``, which JSON does not
have, and raises ``RecursionError`` (not a ``ValueError``) on text nested a few
thousand levels deep. Arguments come from a model, so both are bad input to report
back, never an exception that ends the run: :data:`STRICT_DECODER` refuses the
constants with :class:`NotJsonNumber`, and its callers turn a ``RecursionError`` into
their own "nested too deeply" error. Tools (``agentcore.tools``) and
:meth:`FunctionCallContent.parse_arguments <agentcore.FunctionCallContent.parse_arguments>`
both read arguments with it.
"""

from __future__ import annotations

import json
from typing import NoReturn

__all__ = ["STRICT_DECODER", "NotJsonNumber"]


class NotJsonNumber(ValueError):
    """``NaN``, ``Infinity`` or ``-Infinity`` in a model's arguments (Python's ``json``
    reads them, JSON does not have them); the message is the constant's name."""


def _refuse_constant(name: str) -> NoReturn:
    raise NotJsonNumber(name)


STRICT_DECODER = json.JSONDecoder(parse_constant=_refuse_constant)
"""Reads JSON text, refusing the non-finite constants; as fast as ``json.loads``."""
