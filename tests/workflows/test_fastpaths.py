"""The events agentcore.workflows._fastpaths fills by hand are the events their classes build.

Each builder is called with a distinct value per field and compared with the class
called plainly: same class, same fields, equal, same hash and repr, still frozen,
still weak-referenceable. A field added to an event class (even one with a default)
makes its test fail until the builder sets it too.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import attrs
import pytest

from agentcore.serialization import to_json
from agentcore.workflows import (
    ExecutorCompleted,
    ExecutorInvoked,
    IntermediateOutput,
    RunCompleted,
    RunStarted,
    SuperstepCompleted,
    SuperstepStarted,
    WorkflowOutput,
)
from agentcore.workflows._fastpaths import (
    executor_completed,
    executor_invoked,
    intermediate_output,
    run_completed,
    run_started,
    superstep_completed,
    superstep_started,
    workflow_output,
)

CASES: list[tuple[Callable[..., Any], type[Any], tuple[Any, ...]]] = [
    (run_started, RunStarted, ("wfr_1", "flow", "ck_2")),
    (run_completed, RunCompleted, ("wfr_1", 3, "ck_4")),
    (superstep_started, SuperstepStarted, (5, 6)),
    (superstep_completed, SuperstepCompleted, (7, 8, 9)),
    (executor_invoked, ExecutorInvoked, ("a", 10, 11, ("b", "c"))),
    (executor_completed, ExecutorCompleted, ("a", 12, 13, 14, 15, 16)),
    (workflow_output, WorkflowOutput, ("a", ("x", 1), 17)),
    (intermediate_output, IntermediateOutput, ("a", "y", 18)),
]


def _fields(value: Any) -> dict[str, Any]:
    return {f.name: getattr(value, f.name) for f in attrs.fields(type(value))}


@pytest.mark.parametrize(("build", "cls", "args"), CASES, ids=[c[1].__name__ for c in CASES])
def test_the_filled_event_is_the_plain_one(
    build: Callable[..., Any], cls: type[Any], args: tuple[Any, ...]
) -> None:
    fast, plain = build(*args), cls(*args)
    assert type(fast) is cls
    assert len(attrs.fields(cls)) == len(args)  # the builder takes every field
    assert _fields(fast) == _fields(plain)
    assert fast == plain
    assert hash(fast) == hash(plain)
    assert repr(fast) == repr(plain)
    assert to_json(fast) == to_json(plain)
    assert weakref.ref(fast)() is fast


@pytest.mark.parametrize(("build", "cls", "args"), CASES, ids=[c[1].__name__ for c in CASES])
def test_the_filled_event_stays_frozen(
    build: Callable[..., Any], cls: type[Any], args: tuple[Any, ...]
) -> None:
    event = build(*args)
    first = attrs.fields(cls)[0].name
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        setattr(event, first, "changed")
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        delattr(event, first)
