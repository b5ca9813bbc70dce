"""What agentcore.workflows._fastpaths fills by hand is what the classes build.

Each builder is called with a distinct value per field and compared with the class
called plainly: same class, same fields, equal, same hash and repr, still frozen,
still weak-referenceable. A field added to one of the classes (even one with a
default) makes its test fail until the builder sets it too.
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Callable
from typing import Any

import attrs
import pytest

from agentcore._types.usage import Usage
from agentcore.serialization import to_json
from agentcore.workflows import (
    ExecutorCompleted,
    ExecutorInvoked,
    IntermediateOutput,
    RunCompleted,
    RunStarted,
    SuperstepCompleted,
    SuperstepStarted,
    WorkflowCheckpoint,
    WorkflowOutput,
    WorkflowRunResult,
)
from agentcore.workflows._checkpoint import CheckpointRecord
from agentcore.workflows._codec import TypeRegistry
from agentcore.workflows._fastpaths import (
    RecordWriter,
    encode_json,
    executor_completed,
    executor_invoked,
    frozen_state,
    intermediate_output,
    run_completed,
    run_result,
    run_started,
    superstep_completed,
    superstep_started,
    workflow_checkpoint,
    workflow_output,
)
from agentcore.workflows._requests import PendingRequest
from agentcore.workflows._state import (
    Buffered,
    Envelope,
    Finished,
    FrozenState,
    PendingEntry,
    RunState,
)
from agentcore.workflows.errors import CheckpointError

CASES: list[tuple[Callable[..., Any], type[Any], tuple[Any, ...]]] = [
    (run_started, RunStarted, ("wfr_1", "flow", "ck_2")),
    (run_completed, RunCompleted, ("wfr_1", 3, "ck_4")),
    (superstep_started, SuperstepStarted, (5, 6)),
    (superstep_completed, SuperstepCompleted, (7, 8, 9)),
    (executor_invoked, ExecutorInvoked, ("a", 10, 11, ("b", "c"), "Draft", "Writer.draft")),
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


def _state() -> RunState:
    request = PendingRequest("req_1_0_0", "a", "why?", str, 1)
    return RunState(
        "wfr_1",
        superstep=2,
        inbox=[Envelope("b", (2, 0, 0), "msg", ("a",), str)],
        buffers={"g1": [Buffered("a", (1, 0, 0), "held", str)], "g2": []},
        states={"a": 3},
        shared={"k": [1]},
        pending={request.id: PendingEntry(request, (1, 0, 0))},
        answered=["req_0_0_0"],
        usage=Usage(input_tokens=4),
    )


def test_the_filled_frozen_state_copies_the_run_state() -> None:
    state = _state()
    fast = frozen_state(state)
    plain = FrozenState(
        state.run_id,
        state.superstep,
        tuple(state.inbox),
        {"g1": tuple(state.buffers["g1"])},  # empty buffers are left out
        dict(state.states),
        dict(state.shared),
        dict(state.pending),
        tuple(state.answered),
        dict(state.finished),
        state.usage,
    )
    assert type(fast) is FrozenState
    assert _fields(fast) == _fields(plain)
    assert repr(fast) == repr(plain)
    state.inbox.clear()
    state.states["a"] = 4
    assert fast.inbox  # a copy, not a view
    assert fast.states == {"a": 3}
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        fast.superstep = 3  # type: ignore[misc]  # the mistake under test


def test_the_filled_checkpoint_and_result_are_the_plain_ones() -> None:
    frozen = frozen_state(_state())
    requests = tuple(e.request for e in frozen.pending.values())
    fast = workflow_checkpoint(
        "wfr_1", "ck_2", "ck_1", 2, "paused", "flow", requests, "v1", frozen, 7
    )
    plain = WorkflowCheckpoint(
        "wfr_1", "ck_2", "ck_1", 2, "paused", "flow", requests, "v1", fast.created_at, frozen, 7
    )
    assert type(fast) is WorkflowCheckpoint
    assert len(attrs.fields(WorkflowCheckpoint)) == 11  # the builder's ten and created_at
    assert _fields(fast) == _fields(plain)
    assert fast == plain
    assert hash(fast) == hash(plain)
    assert repr(fast) == repr(plain)
    assert fast.created_at.endswith("+00:00")

    outputs = ("out",)
    result: tuple[Any, ...] = (
        "wfr_1",
        "paused",
        outputs,
        ("mid",),
        requests,
        (),
        2,
        fast,
        Usage(output_tokens=1),
    )
    fast_result, plain_result = run_result(*result), WorkflowRunResult(*result)
    assert type(fast_result) is WorkflowRunResult
    assert len(attrs.fields(WorkflowRunResult)) == len(result)
    assert _fields(fast_result) == _fields(plain_result)
    assert fast_result == plain_result
    assert repr(fast_result) == repr(plain_result)
    assert weakref.ref(fast_result)() is fast_result


@pytest.mark.parametrize(
    "document",
    [
        {},
        {"inbox": [], "states": {"n": {"count": 3, "ratio": 0.25}}},
        {"text": 'é "quoted" \\ \n tab\t 😀', "none": None, "flags": [True, False]},
        {"nested": [[1, [2, [3, {"k": -4.5e-7}]]]], "big": 10**30},
    ],
)
def test_encode_json_writes_what_json_dumps_writes(document: dict[str, Any]) -> None:
    assert encode_json(document) == json.dumps(
        document, ensure_ascii=False, allow_nan=False, separators=(",", ":")
    )


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), object()])
def test_encode_json_refuses_what_json_dumps_refuses(bad: object) -> None:
    document = {"value": [bad]}
    with pytest.raises((ValueError, TypeError)) as plain:
        json.dumps(document, ensure_ascii=False, allow_nan=False)
    with pytest.raises(plain.type):
        encode_json(document)


def test_encode_json_refuses_a_circular_document() -> None:
    document: dict[str, Any] = {}
    document["self"] = [document]
    with pytest.raises(ValueError, match="Circular reference"):
        encode_json(document)


@attrs.frozen
class Note:
    text: str
    n: int


REGISTRY = TypeRegistry([str, int, Note, bool])


def _live_states() -> list[RunState]:
    """Live states of every shape a record's text is written for: nothing held, one
    text message (the usual barrier), other messages, an answer, and each other part."""
    question: PendingRequest[Any, Any] = PendingRequest("req_2_0_0", "b", Note("?", 1), bool, 2)
    entry = PendingEntry(question, (2, 0, 0), {"ctx": [1, None]})
    done = Finished("b", (3, 0, 0), (("sent", str, None),), (), (), None, False, {}, (), ())
    return [
        RunState("wfr_1"),
        RunState("wfr_1", superstep=1, inbox=[Envelope("b", (1, 0, 0), "x", ("a",), str)]),
        RunState(
            "wfr_1",
            superstep=3,
            inbox=[
                Envelope("b", (3, 0, 0), 'é "q" \\ \n', ("a", "c"), str),
                Envelope("b", (3, 0, 1), 7, ("a",), int),
                Envelope("c", (3, 1, 0), Note("n", 2), (), Note),
                Envelope("b", (3, -1, 0), True, (), bool, entry),
                Envelope("c", (3, 1, 1), ("x", "y"), ("a",), tuple),
            ],
        ),
        RunState("wfr_1", superstep=2, buffers={"g1": []}),  # an emptied fan-in group
        _state(),
        RunState("wfr_1", superstep=2, pending={question.id: entry}, answered=["req_1"]),
        RunState("wfr_1", superstep=2, states={"b": Note("s", 0)}, finished={0: done}),
    ]


@pytest.mark.parametrize("status", ["running", "paused", "failed"])
def test_the_written_record_is_the_plain_one(status: Any) -> None:
    for version in (None, "v1"):
        writer = RecordWriter("wfr_1", "flów", version, REGISTRY)
        for state in _live_states():
            frozen = frozen_state(state)
            requests = tuple(e.request for e in frozen.pending.values())
            checkpoint = workflow_checkpoint(
                "wfr_1", "ck_2", None, state.superstep, status, "flów", requests, version,
                frozen, REGISTRY,
            )  # fmt: skip
            plain = CheckpointRecord.of(checkpoint)
            assert plain.payload == to_json(checkpoint)
            for fast in (
                writer.of(checkpoint),
                writer.record(
                    "ck_2", None, state.superstep, status, checkpoint.created_at,
                    writer.state(state),  # from the live state, without the frozen copy
                ),
            ):  # fmt: skip
                assert type(fast) is CheckpointRecord
                assert _fields(fast) == _fields(plain)
                assert fast == plain
                assert hash(fast) == hash(plain)
                assert repr(fast) == repr(plain)
                assert weakref.ref(fast)() is fast
                assert fast.row() == plain.row()  # the row a store writes
                assert CheckpointRecord(*fast.row()) == plain  # and reads back
                with pytest.raises(attrs.exceptions.FrozenInstanceError):
                    fast.payload = "changed"  # type: ignore[misc]  # the mistake under test
    assert len(attrs.fields(CheckpointRecord)) == 10  # the writer fills every field


def test_the_writer_refuses_what_the_plain_record_refuses() -> None:
    writer = RecordWriter("wfr_1", "flow", None, REGISTRY)
    state = RunState("wfr_1", inbox=[Envelope("b", (1, 0, 0), 1.5, (), float)])
    with pytest.raises(CheckpointError, match="cannot store a float"):
        writer.state(state)  # the workflow does not know the type
    state = RunState("wfr_1", shared={"v": float("nan")})
    with pytest.raises(ValueError, match="not JSON compliant"):
        writer.state(state)  # still encoded: a run that saves proves it serializes
    bare = WorkflowCheckpoint("wfr_1", "ck_1", None, 0, "running", "flow", ())
    with pytest.raises(CheckpointError, match="not made by a workflow run"):
        writer.of(bare)
    with pytest.raises(CheckpointError, match="not made by a workflow run"):
        CheckpointRecord.of(bare)
    other = workflow_checkpoint(
        "wfr_2", "ck_1", None, 0, "running", "flow", (), None, frozen_state(RunState("wfr_2")), 0
    )
    with pytest.raises(ValueError, match="another run"):
        writer.of(other)
