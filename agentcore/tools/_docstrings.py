"""A small docstring reader: the description and the parameter descriptions.

Understands the three styles in common use:

- Google: ``Args:`` / ``Arguments:`` / ``Parameters:`` with ``name (type): text`` or
  ``name: text`` entries and indented continuation lines;
- NumPy: a ``Parameters`` heading underlined with dashes, ``name : type`` entries and
  indented descriptions;
- reST / Sphinx: ``:param name: text`` and ``:param type name: text`` fields.

Everything before the first section or field is the description. Nothing is
imported: a tool's declaration needs only these two things, not a full parser.
"""

from __future__ import annotations

import inspect
import re
from typing import NamedTuple

__all__ = ["Docstring", "parse_docstring"]


class Docstring(NamedTuple):
    """What a tool needs from a docstring."""

    summary: str
    """The text before the first section, stripped (every paragraph of it)."""
    params: dict[str, str]
    """Parameter name -> description, continuation lines joined by single spaces."""


_GOOGLE_PARAM_SECTIONS = frozenset(
    {"args", "arguments", "parameters", "params", "keyword args", "keyword arguments"}
)
_GOOGLE_OTHER_SECTIONS = frozenset(
    {
        "attributes",
        "example",
        "examples",
        "note",
        "notes",
        "other parameters",
        "raises",
        "references",
        "return",
        "returns",
        "see also",
        "todo",
        "warning",
        "warnings",
        "yield",
        "yields",
    }
)
_NUMPY_PARAM_SECTIONS = frozenset({"parameters", "other parameters", "keyword arguments"})
_NUMPY_SECTIONS = _NUMPY_PARAM_SECTIONS | frozenset(
    {
        "attributes",
        "examples",
        "methods",
        "notes",
        "raises",
        "receives",
        "references",
        "returns",
        "see also",
        "warnings",
        "warns",
        "yields",
    }
)

_GOOGLE_HEADER = re.compile(r"^([A-Za-z][A-Za-z ]*):\s*$")
_NUMPY_RULE = re.compile(r"^\s*-{3,}\s*$")
_GOOGLE_ENTRY = re.compile(
    r"^\*{0,2}(?P<name>[A-Za-z_]\w*)\s*(?:\((?:[^()]|\([^()]*\))*\))?\s*:(?P<text>.*)$"
)
_NUMPY_ENTRY = re.compile(
    r"^(?P<names>\*{0,2}[A-Za-z_]\w*(?:\s*,\s*\*{0,2}[A-Za-z_]\w*)*)\s*(?::.*)?$"
)
_REST_FIELD = re.compile(r"^:(?P<field>[^:]+):(?P<text>.*)$")
_REST_PARAM_KINDS = frozenset({"param", "parameter", "arg", "argument", "key", "keyword"})


def parse_docstring(doc: str | None) -> Docstring:
    """Split a docstring into its description and its parameter descriptions."""
    if not doc:
        return Docstring("", {})
    lines = inspect.cleandoc(doc).splitlines()
    params: dict[str, str] = {}
    end = len(lines)
    index = 0
    while index < len(lines):
        line = lines[index]
        stripped = line.strip()
        if _is_numpy_header(lines, index):
            end = min(end, index)
            index = _read_numpy_section(lines, index, params)
            continue
        if _is_google_header(line):
            end = min(end, index)
            index = _read_google_section(lines, index, params)
            continue
        if _REST_FIELD.match(stripped):
            end = min(end, index)
            index = _read_rest_field(lines, index, params)
            continue
        index += 1
    summary = "\n".join(lines[:end]).strip()
    return Docstring(summary, params)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _is_google_header(line: str) -> bool:
    match = _GOOGLE_HEADER.match(line.strip())
    if match is None:
        return False
    title = match.group(1).strip().lower()
    return title in _GOOGLE_PARAM_SECTIONS or title in _GOOGLE_OTHER_SECTIONS


def _is_numpy_header(lines: list[str], index: int) -> bool:
    return (
        index + 1 < len(lines)
        and lines[index].strip().lower() in _NUMPY_SECTIONS
        and _NUMPY_RULE.match(lines[index + 1]) is not None
    )


def _read_google_section(lines: list[str], index: int, params: dict[str, str]) -> int:
    """Read the section whose header is ``lines[index]``; return the index after it."""
    header = lines[index]
    is_params = header.strip()[:-1].strip().lower() in _GOOGLE_PARAM_SECTIONS
    base = _indent(header)
    index += 1
    entry_indent: int | None = None
    current: str | None = None
    while index < len(lines):
        line = lines[index]
        if not line.strip():
            index += 1
            continue
        indent = _indent(line)
        if indent <= base:
            break
        if entry_indent is None:
            entry_indent = indent
        if indent <= entry_indent:
            match = _GOOGLE_ENTRY.match(line.strip())
            current = match.group("name") if match else None
            if is_params and current is not None and match is not None:
                params[current] = match.group("text").strip()
        elif is_params and current is not None:
            params[current] = _join(params[current], line.strip())
        index += 1
    return index


def _read_numpy_section(lines: list[str], index: int, params: dict[str, str]) -> int:
    """Read the NumPy section headed at ``lines[index]``; return the index after it."""
    is_params = lines[index].strip().lower() in _NUMPY_PARAM_SECTIONS
    index += 2
    current: list[str] = []
    while index < len(lines):
        line = lines[index]
        if _is_numpy_header(lines, index):
            break
        if not line.strip():
            index += 1
            continue
        if _indent(line) == 0:
            match = _NUMPY_ENTRY.match(line.strip())
            current = (
                [name.strip().lstrip("*") for name in match.group("names").split(",")]
                if match
                else []
            )
            if is_params:
                for name in current:
                    params[name] = ""
        elif is_params:
            for name in current:
                params[name] = _join(params[name], line.strip())
        index += 1
    return index


def _read_rest_field(lines: list[str], index: int, params: dict[str, str]) -> int:
    """Read one ``:field: text`` with its indented continuation; return the index after it."""
    line = lines[index]
    match = _REST_FIELD.match(line.strip())
    assert match is not None  # the caller matched this line
    words = match.group("field").split()
    text = match.group("text").strip()
    base = _indent(line)
    index += 1
    while index < len(lines) and lines[index].strip() and _indent(lines[index]) > base:
        text = _join(text, lines[index].strip())
        index += 1
    if len(words) >= 2 and words[0] in _REST_PARAM_KINDS:
        params[words[-1].lstrip("*")] = text
    return index


def _join(text: str, more: str) -> str:
    return f"{text} {more}" if text else more
