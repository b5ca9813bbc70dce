"""Design 9.8 #65: arbitrary run states of a definition's registered types survive a
checkpoint's JSON (encode with ``to_json``, decode with ``workflow.restore``) equal,
the declared types of messages and requests included (the kernel's round-trip
property test, extended to workflow checkpoints)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import anyio
import attrs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typing_extensions import Never

from agentcore import Usage
from agentcore.serialization import to_json
from agentcore.workflows import (
    PendingRequest,
    Workflow,
    WorkflowBuilder,
    WorkflowCheckpoint,
    WorkflowContext,
    executor,
    handler,
    response_handler,
)
from agentcore.workflows._checkpoint import CheckpointRecord
from agentcore.workflows._fastpaths import RecordWriter
from agentcore.workflows._state import (
    Buffered,
    Envelope,
    Finished,
    FrozenState,
    PendingEntry,
    RunState,
)


@attrs.frozen
class Item:
    text: str
    n: int


@attrs.frozen
class Question:
    text: str


@attrs.frozen
class Counter:
    seen: int


class Worker:
    id = "worker"
    state_type = Counter

    @handler
    async def on_item(self, item: Item, ctx: WorkflowContext[Item]) -> None:
        await ctx.request(Question(item.text), bool)

    @response_handler
    async def on_verdict(self, q: Question, ok: bool, ctx: WorkflowContext[Item]) -> None:
        await ctx.send(Item(q.text, int(ok)))

    @response_handler
    async def on_item_answer(self, q: Question, item: Item, ctx: WorkflowContext[Item]) -> None:
        await ctx.send(item)


@executor
async def split(text: str, ctx: WorkflowContext[Item | tuple[str, ...]]) -> None:
    await ctx.send(Item(text, 0))
    await ctx.send(tuple(text.split()))


@executor
async def words(parts: tuple[str, ...], ctx: WorkflowContext[Item]) -> None:
    await ctx.send(Item(" ".join(parts), len(parts)))


@executor
async def join(items: Sequence[Item], ctx: WorkflowContext[Never, str]) -> None:
    await ctx.yield_output(",".join(i.text for i in items))


def definition() -> Workflow[str, str]:
    return (
        WorkflowBuilder(split, name="property")
        .add_shared("notes")
        .add_fan_out(split, [Worker(), words])
        .add_fan_in(["worker", words], join)
        .build()
    )


WORKFLOW = definition()


async def _paused() -> WorkflowCheckpoint:
    result = await WORKFLOW.run("a b")
    assert result.checkpoint is not None
    return result.checkpoint


PAUSED = anyio.run(_paused)
"""A real checkpoint of the definition: the generated states ride in copies of it."""
assert PAUSED.state is not None
[FAN_IN] = PAUSED.state.buffers  # words' item waits there while the worker's question is open

texts = st.text(max_size=6)
keys = st.tuples(st.integers(0, 10**6), st.integers(-1, 10**4), st.integers(0, 10**4))
items = st.builds(Item, texts, st.integers(-(2**62), 2**62))
scalars = st.none() | st.booleans() | st.integers(-(2**53), 2**53) | texts
json_values = st.recursive(
    scalars | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=8,
)


@st.composite
def entries(draw: st.DrawFn) -> PendingEntry:
    response_type = draw(st.sampled_from([bool, Item]))
    request: PendingRequest[Any, Any] = PendingRequest(
        draw(texts.map(lambda t: f"req_{t}")),
        "worker",
        Question(draw(texts)),
        response_type,
        draw(st.integers(0, 10**6)),
        tuple(draw(st.lists(texts, max_size=2))),
    )
    return PendingEntry(request, draw(keys), draw(json_values))


@st.composite
def envelopes(draw: st.DrawFn) -> Envelope:
    kind = draw(st.sampled_from(["item", "words", "start", "answer"]))
    key = draw(keys)
    if kind == "item":
        return Envelope("worker", key, draw(items), ("split",), Item)
    if kind == "words":
        parts = tuple(draw(st.lists(texts, max_size=3)))
        return Envelope("words", key, parts, ("split",), tuple[str, ...])
    if kind == "start":
        return Envelope("split", key, draw(texts), (), str)
    entry = draw(entries())
    answer = draw(st.booleans()) if entry.request.response_type is bool else draw(items)
    return Envelope("worker", key, answer, (), entry.request.response_type, entry)


emitters = st.sampled_from(["worker", "worker/inner"])  # a child's event, as "node/child"


@st.composite
def finished(draw: st.DrawFn) -> Finished:
    state_set = draw(st.booleans())
    return Finished(
        "worker",
        draw(keys),
        tuple((m, Item, None) for m in draw(st.lists(items, max_size=2))),
        (),
        tuple((e.request, e.context) for e in draw(st.lists(entries(), max_size=1))),
        Counter(draw(st.integers(0, 99))) if state_set else None,
        state_set,
        draw(st.dictionaries(st.just("notes"), json_values, max_size=1)),
        (),
        tuple(draw(st.lists(st.tuples(emitters, texts, json_values | items), max_size=2))),
        draw(st.none() | st.builds(Usage, st.integers(0, 10**6), st.integers(0, 10**6))),
    )


@st.composite
def states(draw: st.DrawFn) -> FrozenState:
    pending = draw(st.lists(entries(), max_size=3, unique_by=lambda e: e.request.id))
    buffered = draw(
        st.lists(
            st.builds(Buffered, st.sampled_from(["worker", "words"]), keys, items, st.just(Item)),
            max_size=3,
        )
    )
    return FrozenState(
        draw(texts.map(lambda t: f"wfr_{t}")),
        draw(st.integers(0, 10**6)),
        tuple(draw(st.lists(envelopes(), max_size=4))),
        {FAN_IN: tuple(buffered)} if buffered else {},
        draw(st.dictionaries(st.just("worker"), st.builds(Counter, st.integers()), max_size=1)),
        draw(st.dictionaries(st.just("notes"), json_values, max_size=1)),
        {e.request.id: e for e in pending},
        tuple(draw(st.lists(texts, max_size=3))),
        draw(st.dictionaries(st.integers(0, 50), finished(), max_size=2)),
        draw(st.none() | st.builds(Usage, st.integers(0, 10**6), st.integers(0, 10**6))),
    )


def _request(r: PendingRequest[Any, Any]) -> tuple[Any, ...]:
    # response_type is left out of PendingRequest's equality: compare it here
    return (r.id, r.executor_id, r.data, r.response_type, r.superstep, r.path)


def _entry(e: PendingEntry | None) -> tuple[Any, ...] | None:
    return None if e is None else (_request(e.request), e.key, e.context)


def comparable(state: FrozenState) -> tuple[Any, ...]:
    """Everything a state holds, with the types a message or request was declared as."""
    return (
        state.run_id,
        state.superstep,
        [
            (e.target, e.key, e.message, e.sources, e.declared, _entry(e.request))
            for e in state.inbox
        ],
        {
            g: [(b.source, b.key, b.message, b.declared) for b in v]
            for g, v in state.buffers.items()
        },
        dict(state.states),
        dict(state.shared),
        {i: _entry(e) for i, e in state.pending.items()},
        state.answered,
        {
            o: (
                attrs.evolve(f, requests=()),
                [(_request(r), c) for r, c in f.requests],
            )
            for o, f in state.finished.items()
        },
        state.usage,
    )


@settings(max_examples=100, suppress_health_check=[HealthCheck.too_slow])
@given(states())
def test_checkpoint_round_trip_property(state: FrozenState) -> None:
    checkpoint = attrs.evolve(
        PAUSED,
        run_id=state.run_id,
        superstep=state.superstep,
        state=state,
        requests=tuple(e.request for e in state.pending.values()),
    )
    text = to_json(checkpoint)
    assert CheckpointRecord.of(checkpoint).payload == text  # a store's record: the same bytes
    assert _written(checkpoint).payload == text  # and the one a run writes
    writer = RecordWriter(state.run_id, PAUSED.workflow, PAUSED.workflow_version, PAUSED.registry)
    assert writer.state(RunState.thaw(state)) == writer.state(state)  # live as frozen
    restored = WORKFLOW.restore(text)
    assert restored.state is not None
    assert comparable(restored.state) == comparable(state)
    assert [_request(r) for r in restored.requests] == [_request(r) for r in checkpoint.requests]
    assert to_json(attrs.evolve(restored, created_at=checkpoint.created_at)) == text


@given(st.text(max_size=8), st.none() | st.text(max_size=8), st.none() | st.text(max_size=8))
def test_a_records_payload_is_to_json_whatever_the_names(
    name: str, version: str | None, parent: str | None
) -> None:
    checkpoint = attrs.evolve(
        PAUSED, workflow=name, workflow_version=version, parent_id=parent, checkpoint_id=name
    )
    assert CheckpointRecord.of(checkpoint).payload == to_json(checkpoint)
    assert _written(checkpoint).payload == to_json(checkpoint)


def _written(checkpoint: WorkflowCheckpoint) -> CheckpointRecord:
    """The record a run writes of ``checkpoint`` (``_fastpaths.RecordWriter``)."""
    run_id, workflow, version = checkpoint.run_id, checkpoint.workflow, checkpoint.workflow_version
    return RecordWriter(run_id, workflow, version, checkpoint.registry).of(checkpoint)


def test_a_state_that_holds_one_thing_has_the_payload_of_to_json() -> None:
    # a run writes the parts that hold nothing as fixed text: any one thing held
    # must be encoded, and nothing held must read as the encoder writes it
    paused = PAUSED.state
    assert paused is not None
    empty = FrozenState(paused.run_id, paused.superstep, (), {}, {}, {}, {}, (), {}, None)
    for state in (
        empty,
        paused,
        empty,
        attrs.evolve(empty, buffers=paused.buffers),
        attrs.evolve(empty, pending=paused.pending),
        attrs.evolve(empty, shared={"seen": 1}),
        attrs.evolve(empty, states={"worker": Counter(1)}),
        attrs.evolve(empty, inbox=(Envelope("split", (0, 0, 0), "a", (), str),)),
        attrs.evolve(empty, answered=("rq_1",)),
        attrs.evolve(empty, usage=Usage(input_tokens=1)),
        empty,
    ):
        requests = tuple(e.request for e in state.pending.values())
        checkpoint = attrs.evolve(PAUSED, state=state, requests=requests)
        assert CheckpointRecord.of(checkpoint).payload == to_json(checkpoint)
        assert _written(checkpoint).payload == to_json(checkpoint)
