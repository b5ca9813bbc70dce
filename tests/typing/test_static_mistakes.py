"""Mistakes of ``user-mistakes.md`` the strict type checkers catch, proven by running them.

Every module in ``mistakes/`` makes one kind of mistake a user makes, and marks the
statement with the error each checker must report, on the line above it::

    # expect: mypy[list-item] pyright[reportArgumentType]
    return Agent(client, middleware=[LogRuns])

The tests run mypy and basedpyright (strict, with the project's configuration) over
those modules and check both ways: each marked statement gets the named error from
each checker, and nothing else in the modules is an error, so a snippet cannot pass
by failing for another reason. The project's own type check skips ``mistakes/``
(pyproject.toml), since its errors are the point. The run-time errors that stay for
untyped callers are checked at the bottom, on the same snippets.
"""

from __future__ import annotations

import functools
import importlib
import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

MISTAKES = Path(__file__).parent / "mistakes"
ROOT = Path(__file__).parents[2]
BIN = Path(sys.executable).parent
SNIPPETS = sorted(p for p in MISTAKES.glob("m*.py"))
_EXPECT = re.compile(r"^\s*# expect: mypy\[(?P<mypy>[\w-]+)\] pyright\[(?P<pyright>\w+)\]\s*$")

Found = dict[tuple[str, int], set[str]]  # (file name, line) -> error codes


def _expected(checker: str) -> Found:
    """Each marked statement's lines (up to the next blank line) -> the code it expects.

    The code is keyed by the statement's first line; ``_attribute`` maps an error
    on any line of the statement back to it.
    """
    expected: Found = {}
    for path in SNIPPETS:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            match = _EXPECT.match(line)
            if match:
                expected[(path.name, number + 1)] = {match[checker]}
    return expected


def _statements() -> dict[tuple[str, int], tuple[str, int]]:
    """(file, line) of every line of a marked statement -> (file, its first line)."""
    owner: dict[tuple[str, int], tuple[str, int]] = {}
    for path in SNIPPETS:
        lines = path.read_text(encoding="utf-8").splitlines()
        for index, line in enumerate(lines):
            if _EXPECT.match(line):
                start = index + 2  # 1-based number of the statement's first line
                number = start
                while number <= len(lines) and lines[number - 1].strip():
                    owner[(path.name, number)] = (path.name, start)
                    number += 1
    return owner


def _attribute(found: Found) -> Found:
    owner = _statements()
    attributed: Found = {}
    for key, codes in found.items():
        attributed.setdefault(owner.get(key, key), set()).update(codes)
    return attributed


@functools.cache
def _mypy() -> Found:
    # A fresh cache: the snippets are checked on their own, as a user's code would be.
    result = subprocess.run(
        [BIN / "mypy", "--no-incremental", *map(str, SNIPPETS)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    found: Found = {}
    for line in result.stdout.splitlines():
        match = re.match(r"^(?P<file>[^:]+):(?P<line>\d+): error: .*\[(?P<code>[\w-]+)\]$", line)
        if match:
            key = (Path(match["file"]).name, int(match["line"]))
            found.setdefault(key, set()).add(match["code"])
    assert found or result.returncode == 0, result.stdout + result.stderr
    return found


@functools.cache
def _pyright() -> Found:
    result = subprocess.run(
        # The project's configuration skips mistakes/; the one there extends it and
        # takes the snippets back in.
        [
            BIN / "basedpyright",
            "--outputjson",
            "--pythonpath",
            sys.executable,
            "--project",
            MISTAKES / "pyrightconfig.json",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    report = json.loads(result.stdout)
    found: Found = {}
    for diagnostic in report["generalDiagnostics"]:
        if diagnostic["severity"] != "error":
            continue
        key = (Path(diagnostic["file"]).name, diagnostic["range"]["start"]["line"] + 1)
        found.setdefault(key, set()).add(diagnostic.get("rule", "?"))
    return found


CHECKERS: dict[str, Callable[[], Found]] = {"mypy": _mypy, "pyright": _pyright}


@pytest.mark.parametrize("checker", ["mypy", "pyright"])
def test_every_marked_mistake_gets_its_error_and_nothing_else_is_an_error(checker: str) -> None:
    expected = _expected(checker)
    assert len(expected) >= 13  # the snippets are found
    found = _attribute(CHECKERS[checker]())
    missing = {k: v for k, v in expected.items() if not v <= found.get(k, set())}
    unexpected = {k: v for k, v in found.items() if k not in expected}
    assert not missing, f"{checker} did not report these marked mistakes: {missing}"
    assert not unexpected, f"{checker} reported errors nobody marked: {unexpected}"


# -- the run-time errors that stay for untyped callers -------------------------------------


@pytest.mark.parametrize(
    ("snippet", "mistake", "message"),
    [
        # M12's message ("... not iterable") is vague today; the run-time work on
        # user-mistakes.md rewords it, so only the type is pinned here.
        ("m12_tools_not_a_list", "mistake", None),
        ("m14_sync_middleware", "mistake", "log_calls"),
        ("m15_middleware_without_call_next", "mistake", "call_next"),
        ("m15_middleware_without_call_next", "mistake_in_a_tool_loop", "call_next"),
        ("m16_middleware_class", "mistake", "LogRuns is a class; pass an instance"),
        ("m16_middleware_class", "mistake_in_a_run", "LogRuns is a class; pass an instance"),
        ("m33_m48_run_input", "dict_message", "got dict"),
        ("m33_m48_run_input", "list_of_dicts", "the sequence holds a dict"),
        ("m33_m48_run_input", "int_message", "got int"),
    ],
    ids=["M12", "M14", "M15", "M15-tool-loop", "M16", "M16-run", "M33", "M33-list", "M48"],
)
def test_an_untyped_caller_gets_a_type_error_at_once(
    snippet: str, mistake: str, message: str | None
) -> None:
    # Imported by name, so the project's type check never follows into the snippets.
    module = importlib.import_module(f"tests.typing.mistakes.{snippet}")
    make_mistake: Callable[[], object] = getattr(module, mistake)
    with pytest.raises(TypeError, match=message):
        make_mistake()
