"""The workflows' fast path: what every superstep and every ``run()`` call builds, filled
without attrs' frozen stores.

A run keeps every event in its result by default: a superstep of one invocation makes
four (``SuperstepStarted``, ``ExecutorInvoked``, ``ExecutorCompleted``,
``SuperstepCompleted``), and every call ends with a ``FrozenState``, a
``WorkflowCheckpoint`` and a ``WorkflowRunResult``. Built the plain way, ``Cls(...)``,
each pays attrs' frozen ``__init__``: one ``object.__setattr__`` call per field, about
three times the cost of the object itself. Measured the plain way (callgrind
instructions per run, ``PYTHONHASHSEED=0``, ``benchmarks/workflows.py``'s seq-3,
2026-11-26): the events cost seq-3 ``run()`` +19 % (333.1k instructions against
278.8k), the three values another +11 % (278.8k against 252.1k); together they
decide the 30 µs budget (docs/performance.md, "Workflows").

So each class here has a *fillable twin*: a subclass that adds no slots and switches
the frozen guards off, so a new instance can be filled with plain attribute stores
(which the interpreter specializes), then becomes the real class by assigning
``__class__``. A subclass that adds no slots shares its base's layout, so CPython
accepts the assignment at once. Twins never leave this module; the public classes
stay plain attrs classes, equal and alike in every way to ones built plainly
(``tests/workflows/test_fastpaths.py`` builds each both ways and compares, so a field
added to one of these classes cannot slip past the builders below).

Only what a superstep or a call makes every time is here; rarer events (requests,
replays, failures, warnings) are built the plain way.

One more, for runs with a store: :func:`encode_json` writes a checkpoint's run state
with the standard library's C encoder called directly, without the Python set-up
of ``JSONEncoder.encode`` and ``iterencode`` around it (2.8 against 4.2 µs per
barrier of seq-3, 2026-11-26), which the in-memory store row of docs/performance.md
notices (each of a run's saves encodes).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from agentcore._types.usage import Usage
from agentcore.workflows._checkpoint import CHECKPOINT_FORMAT, NOT_SAVABLE, CheckpointRecord
from agentcore.workflows._codec import TypeRegistry, encode_envelope, encode_parts
from agentcore.workflows._events import (
    ExecutorCompleted,
    ExecutorInvoked,
    IntermediateOutput,
    RunCompleted,
    RunStarted,
    SuperstepCompleted,
    SuperstepStarted,
    WorkflowEvent,
    WorkflowOutput,
)
from agentcore.workflows._requests import PendingRequest
from agentcore.workflows._result import WorkflowRunResult
from agentcore.workflows._state import Buffered, Envelope, FrozenState, RunState
from agentcore.workflows._value import RunStatus, WorkflowCheckpoint, utc_now
from agentcore.workflows.errors import CheckpointError

__all__ = [
    "RecordWriter",
    "encode_json",
    "executor_completed",
    "executor_invoked",
    "frozen_state",
    "intermediate_output",
    "run_completed",
    "run_result",
    "run_started",
    "superstep_completed",
    "superstep_started",
    "workflow_checkpoint",
    "workflow_output",
]


def _fillable(cls: type[Any]) -> type[Any]:
    """``cls`` with its frozen guards off and no ``__init__`` (see the module docs).
    ``__delattr__`` goes too: CPython serves both from one type slot, and with the
    frozen one left the stores would not be specialized."""
    return type(
        f"_Fillable{cls.__name__}",
        (cls,),
        {
            "__slots__": (),
            "__init__": object.__init__,
            "__setattr__": object.__setattr__,
            "__delattr__": object.__delattr__,
        },
    )


_RunStarted = _fillable(RunStarted)
_RunCompleted = _fillable(RunCompleted)
_SuperstepStarted = _fillable(SuperstepStarted)
_SuperstepCompleted = _fillable(SuperstepCompleted)
_ExecutorInvoked = _fillable(ExecutorInvoked)
_ExecutorCompleted = _fillable(ExecutorCompleted)
_WorkflowOutput = _fillable(WorkflowOutput)
_IntermediateOutput = _fillable(IntermediateOutput)


def run_started(run_id: str, workflow: str, resumed_from: str | None) -> RunStarted:
    event: Any = _RunStarted()
    event.run_id = run_id
    event.workflow = workflow
    event.resumed_from = resumed_from
    event.__class__ = RunStarted
    return event  # type: ignore[no-any-return]  # a RunStarted now


def run_completed(run_id: str, supersteps: int, checkpoint_id: str | None) -> RunCompleted:
    event: Any = _RunCompleted()
    event.run_id = run_id
    event.supersteps = supersteps
    event.checkpoint_id = checkpoint_id
    event.__class__ = RunCompleted
    return event  # type: ignore[no-any-return]  # a RunCompleted now


def superstep_started(superstep: int, invocations: int) -> SuperstepStarted:
    event: Any = _SuperstepStarted()
    event.superstep = superstep
    event.invocations = invocations
    event.__class__ = SuperstepStarted
    return event  # type: ignore[no-any-return]  # a SuperstepStarted now


def superstep_completed(superstep: int, delivered: int, dropped: int) -> SuperstepCompleted:
    event: Any = _SuperstepCompleted()
    event.superstep = superstep
    event.delivered = delivered
    event.dropped = dropped
    event.__class__ = SuperstepCompleted
    return event  # type: ignore[no-any-return]  # a SuperstepCompleted now


def executor_invoked(
    executor_id: str,
    superstep: int,
    ordinal: int,
    sources: tuple[str, ...],
    message_type: str,
    handler: str,
) -> ExecutorInvoked:
    event: Any = _ExecutorInvoked()
    event.executor_id = executor_id
    event.superstep = superstep
    event.ordinal = ordinal
    event.sources = sources
    event.message_type = message_type
    event.handler = handler
    event.__class__ = ExecutorInvoked
    return event  # type: ignore[no-any-return]  # an ExecutorInvoked now


def executor_completed(
    executor_id: str, superstep: int, ordinal: int, sent: int, yielded: int, requested: int
) -> ExecutorCompleted:
    event: Any = _ExecutorCompleted()
    event.executor_id = executor_id
    event.superstep = superstep
    event.ordinal = ordinal
    event.sent = sent
    event.yielded = yielded
    event.requested = requested
    event.__class__ = ExecutorCompleted
    return event  # type: ignore[no-any-return]  # an ExecutorCompleted now


def workflow_output(executor_id: str, data: Any, superstep: int) -> WorkflowOutput:
    event: Any = _WorkflowOutput()
    event.executor_id = executor_id
    event.data = data
    event.superstep = superstep
    event.__class__ = WorkflowOutput
    return event  # type: ignore[no-any-return]  # a WorkflowOutput now


def intermediate_output(executor_id: str, data: Any, superstep: int) -> IntermediateOutput:
    event: Any = _IntermediateOutput()
    event.executor_id = executor_id
    event.data = data
    event.superstep = superstep
    event.__class__ = IntermediateOutput
    return event  # type: ignore[no-any-return]  # an IntermediateOutput now


# -- the values every run() call ends with ------------------------------------------------

_FrozenState = _fillable(FrozenState)
_WorkflowCheckpoint = _fillable(WorkflowCheckpoint)
_WorkflowRunResult = _fillable(WorkflowRunResult)


def frozen_state(state: RunState) -> FrozenState:
    """An immutable copy of ``state`` (what a checkpoint holds)."""
    frozen: Any = _FrozenState()
    frozen.run_id = state.run_id
    frozen.superstep = state.superstep
    frozen.inbox = tuple(state.inbox)
    buffers = state.buffers  # (most states hold none: no comprehension call then)
    frozen.buffers = {k: tuple(v) for k, v in buffers.items() if v} if buffers else {}
    frozen.states = dict(state.states)
    frozen.shared = dict(state.shared)
    frozen.pending = dict(state.pending)
    frozen.answered = tuple(state.answered)
    frozen.finished = dict(state.finished)
    frozen.usage = state.usage
    frozen.__class__ = FrozenState
    return frozen  # type: ignore[no-any-return]  # a FrozenState now


def workflow_checkpoint(
    run_id: str,
    checkpoint_id: str,
    parent_id: str | None,
    superstep: int,
    status: RunStatus,
    workflow: str,
    requests: tuple[PendingRequest[Any, Any], ...],
    workflow_version: str | None,
    state: FrozenState,
    registry: Any,
    created_at: str | None = None,
) -> WorkflowCheckpoint:
    """A checkpoint made now (``created_at``, unless given)."""
    checkpoint: Any = _WorkflowCheckpoint()
    checkpoint.run_id = run_id
    checkpoint.checkpoint_id = checkpoint_id
    checkpoint.parent_id = parent_id
    checkpoint.superstep = superstep
    checkpoint.status = status
    checkpoint.workflow = workflow
    checkpoint.requests = requests
    checkpoint.workflow_version = workflow_version
    checkpoint.created_at = utc_now() if created_at is None else created_at
    checkpoint.state = state
    checkpoint.registry = registry
    checkpoint.__class__ = WorkflowCheckpoint
    return checkpoint  # type: ignore[no-any-return]  # a WorkflowCheckpoint now


def run_result(
    run_id: str,
    status: Literal["completed", "paused"],
    outputs: tuple[Any, ...],
    intermediate: tuple[Any, ...],
    requests: tuple[PendingRequest[Any, Any], ...],
    events: tuple[WorkflowEvent, ...],
    supersteps: int,
    checkpoint: WorkflowCheckpoint | None,
    usage: Usage | None,
) -> WorkflowRunResult[Any]:
    result: Any = _WorkflowRunResult()
    result.run_id = run_id
    result.status = status
    result.outputs = outputs
    result.intermediate = intermediate
    result.requests = requests
    result.events = events
    result.supersteps = supersteps
    result.checkpoint = checkpoint
    result.usage = usage
    result.__class__ = WorkflowRunResult
    return result  # type: ignore[no-any-return]  # a WorkflowRunResult now


_ENCODER = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))
_make_encoder: Any = getattr(json.encoder, "c_make_encoder", None)


def encode_json(document: dict[str, Any]) -> str:
    """``json.dumps(document, ensure_ascii=False, allow_nan=False, separators=(",", ":"))``:
    the same C encoder with the same options (a fresh dict of markers, so the
    circular-reference check and thread safety are kept), called directly. The
    arguments are the encoder's: markers, default, string quoting, indent, key and
    item separators, sort_keys, skipkeys, allow_nan."""
    if _make_encoder is None:  # an interpreter without the C accelerator
        return _ENCODER.encode(document)
    encoder = _make_encoder(
        {}, _ENCODER.default, json.encoder.encode_basestring, None, ":", ",", False, False, False
    )
    return "".join(encoder(document, 0))


# -- a run's records ----------------------------------------------------------------------

_CheckpointRecord = _fillable(CheckpointRecord)
_quote: Any = json.encoder.encode_basestring  # what the encoder does to a str
_NOTHING_AFTER_INBOX = (
    '"finished":[],"fan_in":{},"executor_state":{},"shared":{},"requests":[],"answered":[]'
)
"""The fields after ``inbox`` of a state holding nothing else, as the encoder writes them."""
_SCHEMA_VERSION: list[int] = []


class RecordWriter:
    """One run's checkpoint records, as ``CheckpointRecord.of`` makes them (payload
    ``to_json(checkpoint)``, byte for byte) with less work per record: the parts of the
    document the same for every record of the run (envelope, run id, workflow) are
    formatted once per run; a record is filled like the twins above; and a run state's
    text is written directly where its shape is fixed (each inbox message's envelope,
    the parts that hold nothing), leaving the C encoder only what holds data: the
    encoder's set-up and every container it opens (about 150 ns each) made it the
    most of a save (callgrind, seq-3's first barrier: 39k of the record's 77k
    instructions). Every message, and anything else a state holds, is still encoded
    (``registry.encode``, then the encoder for any value that is not a string), so a
    run that saves proves its checkpoints serialize.

    Counted with callgrind (``PYTHONHASHSEED=0``, 2026-11-26), seq-3's first barrier
    record (one ``str`` message on the inbox): 97.6k instructions built as before (a
    frozen copy of the state, a checkpoint value, then the record with the state run
    through the encoder), 153.7k through ``CheckpointRecord.of`` as it is now
    (``to_json``), 40.0k written here from the live state; seq-3 with an
    ``InMemoryCheckpointStore``, 559.2k instructions per run before, 403.9k after
    (with the smaller cuts listed beside it in docs/performance.md, "Checkpoint
    records written from the live state").
    ``tests/workflows/test_fastpaths.py`` and the property test of
    ``test_checkpoint_property.py`` compare both ways."""

    __slots__ = ("_head", "_texts", "_workflow", "registry", "run_id", "version", "workflow")

    def __init__(
        self, run_id: str, workflow: str, version: str | None, registry: TypeRegistry
    ) -> None:
        if not _SCHEMA_VERSION:  # it loads the converter, which a run without a store skips
            from agentcore.serialization import SCHEMA_VERSION

            _SCHEMA_VERSION.append(SCHEMA_VERSION)
        self.run_id = run_id
        self.workflow = workflow
        self.version = version
        self.registry = registry
        self._texts: dict[int, tuple[object, object, str]] = {}
        """Messages :meth:`message` wrote since the last state: (message, declared,
        text) by the message's identity, so a message checked at the barrier (or sent
        to many targets) is encoded once."""
        self._head = (
            f'{{"schema_version":{_SCHEMA_VERSION[0]},"kind":"WorkflowCheckpoint","data":'
            f'{{"format":{CHECKPOINT_FORMAT},"run_id":{_quote(run_id)},'
        )
        self._workflow = (
            f'"workflow":{{"name":{_quote(workflow)},'
            f'"version":{"null" if version is None else _quote(version)}}},'
        )

    def state(self, state: RunState | FrozenState) -> str:
        """``encode_state``'s document of ``state`` as JSON text, without its braces (of
        a live state as of its frozen copy)."""
        registry = self.registry
        inbox = state.inbox
        if inbox:
            head = f'"inbox":[{",".join([self._envelope(env) for env in inbox])}],'
            self._texts.clear()
        else:
            head = '"inbox":[],'
        buffers: Mapping[str, Sequence[Buffered]] = state.buffers
        if buffers and type(state) is RunState:  # a live state may hold emptied groups
            buffers = {gid: held for gid, held in buffers.items() if held}
        if (
            buffers
            or state.finished
            or state.states
            or state.shared
            or state.pending
            or state.answered
            or state.usage is not None
        ):
            return head + encode_json(encode_parts(registry, state, buffers))[1:-1]
        return head + _NOTHING_AFTER_INBOX

    def message(self, message: object, declared: object) -> str:
        """The stored form of ``message`` sent as ``declared``, as JSON text (raises
        what encoding it raises: ``CheckpointError``, ``TypeError``, ``ValueError``)."""
        known = self._texts.get(id(message))
        if known is not None and known[0] is message and known[1] is declared:
            return known[2]
        stored = self.registry.encode(message, declared)
        value = stored["value"]
        if len(stored) == 2 and type(value) is str:  # {"type": key, "value": text}
            text = f'{{"type":{_quote(stored["type"])},"value":{_quote(value)}}}'
        else:
            text = encode_json(stored)
        self._texts[id(message)] = (message, declared, text)
        return text

    def value(self, value: object, declared: object) -> None:
        """Encode ``value`` as a checkpoint would (request data, executor state),
        raising what that raises."""
        encode_json(self.registry.encode(value, declared))

    def _envelope(self, env: Envelope) -> str:
        if env.request is not None:
            return encode_json(encode_envelope(self.registry, env))
        text = self.message(env.message, env.declared)
        a, b, c = env.key  # the engine's ints
        return (
            f'{{"target":{_quote(env.target)},"sources":[{",".join(map(_quote, env.sources))}],'
            f'"key":[{a},{b},{c}],"message":{text}}}'
        )

    def record(
        self,
        checkpoint_id: str,
        parent_id: str | None,
        superstep: int,
        status: RunStatus,
        created_at: str,
        state: str,
    ) -> CheckpointRecord:
        """The record of this run's checkpoint with these fields and ``state`` (the
        text :meth:`state` wrote)."""
        payload = (
            f'{self._head}"checkpoint_id":{_quote(checkpoint_id)},'
            f'"parent_id":{"null" if parent_id is None else _quote(parent_id)},'
            f'"superstep":{int(superstep)},"status":{_quote(status)},'
            f'"created_at":{_quote(created_at)},{self._workflow}{state}}}}}'
        )
        record: Any = _CheckpointRecord()
        record.run_id = self.run_id
        record.checkpoint_id = checkpoint_id
        record.parent_id = parent_id
        record.superstep = superstep
        record.status = status
        record.workflow = self.workflow
        record.workflow_version = self.version
        record.created_at = created_at
        record.format = CHECKPOINT_FORMAT
        record.payload = payload
        record.__class__ = CheckpointRecord
        return record  # type: ignore[no-any-return]  # a CheckpointRecord now

    def of(self, checkpoint: WorkflowCheckpoint) -> CheckpointRecord:
        """``CheckpointRecord.of(checkpoint)``, for a checkpoint of this writer's run
        and workflow."""
        frozen = checkpoint.state
        if checkpoint.registry is None or frozen is None:
            raise CheckpointError(NOT_SAVABLE)
        if (checkpoint.run_id, checkpoint.workflow, checkpoint.workflow_version) != (
            self.run_id,
            self.workflow,
            self.version,
        ):
            raise ValueError("RecordWriter.of: a checkpoint of another run or workflow")
        return self.record(
            checkpoint.checkpoint_id,
            checkpoint.parent_id,
            checkpoint.superstep,
            checkpoint.status,
            checkpoint.created_at,
            self.state(frozen),
        )
