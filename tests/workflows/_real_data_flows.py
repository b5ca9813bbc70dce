"""A workflow whose messages, requests, answers and executor state hold real data
(dates, times, durations, UUIDs, decimals, enums, paths, in attrs classes and
dataclasses), shared by the round-trip tests of every store (issue 28 §1.2)."""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import pathlib
import uuid
from typing import Any

import attrs
import pytest
from typing_extensions import Never

from agentcore.workflows import (
    CheckpointError,
    CheckpointStore,
    ExecutorFailedError,
    Workflow,
    WorkflowBuilder,
    WorkflowContext,
    WorkflowRunResult,
    executor,
    handler,
    response_handler,
)


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


@attrs.frozen
class Stamp:
    when: datetime.datetime
    day: datetime.date
    at: datetime.time
    span: datetime.timedelta
    id: uuid.UUID
    amount: decimal.Decimal
    color: Color
    where: pathlib.PurePosixPath


@dataclasses.dataclass(frozen=True)
class Slot:
    stamp: Stamp
    starts: datetime.datetime
    price: decimal.Decimal


STAMP = Stamp(
    datetime.datetime(2026, 11, 28, 9, 30, 15, 123456, tzinfo=datetime.timezone.utc),
    datetime.date(2026, 2, 28),
    datetime.time(23, 59, 59, 1),
    datetime.timedelta(days=-1, seconds=5, microseconds=7),
    uuid.UUID("12345678-1234-5678-1234-567812345678"),
    decimal.Decimal("10.10"),
    Color.BLUE,
    pathlib.PurePosixPath("/srv/data/report.csv"),
)
SLOT = Slot(STAMP, datetime.datetime(2027, 1, 1, 8, 0), decimal.Decimal("-0.000001"))
ANSWER = attrs.evolve(STAMP, color=Color.RED, amount=decimal.Decimal("1E+3"))


@executor(id="start")
async def start(text: str) -> Stamp:
    assert text == "go"
    return STAMP


class Booker:
    """Holds the Stamp as its state, asks for an answer about a Slot, yields all three."""

    id = "booker"
    state_type = Stamp

    @handler
    async def book(self, stamp: Stamp, ctx: WorkflowContext[Never, tuple[Any, ...]]) -> None:
        assert stamp == STAMP, stamp  # the message in flight, read back
        ctx.set_state(stamp)
        await ctx.request(Slot(stamp, SLOT.starts, SLOT.price), Stamp)

    @response_handler
    async def booked(
        self, slot: Slot, answer: Stamp, ctx: WorkflowContext[Never, tuple[Any, ...]]
    ) -> None:
        await ctx.yield_output((ctx.get_state(Stamp), slot, answer))


def booking(store: CheckpointStore | None = None) -> Workflow[str, tuple[Any, ...]]:
    return (
        WorkflowBuilder(start, name="booking", checkpoints=store).add_edge(start, Booker()).build()
    )


class Opaque:
    """A class the checkpoint converter cannot store (no attrs, no dataclass)."""

    def __init__(self, n: int) -> None:
        self.n = n


@attrs.frozen
class Holder:
    thing: Any


def unstorable(store: CheckpointStore | None = None) -> Workflow[str, str]:
    @executor(id="make")
    async def make(text: str) -> Holder:
        return Holder(Opaque(len(text)))

    @executor(id="take")
    async def take(holder: Holder, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output("took")

    return WorkflowBuilder(make, name="opaque", checkpoints=store).add_edge(make, take).build()


@attrs.frozen
class Box:
    thing: Opaque


def boxed(store: CheckpointStore | None = None) -> Workflow[str, str]:
    @executor(id="pack")
    async def pack(text: str) -> Box:
        return Box(Opaque(len(text)))

    @executor(id="unpack")
    async def unpack(box: Box, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(str(box.thing.n))

    return WorkflowBuilder(pack, name="boxed", checkpoints=store).add_edge(pack, unpack).build()


# -- the checks each store's tests run ------------------------------------------------


async def run(workflow: Workflow[Any, Any], stream: bool, **kwargs: Any) -> WorkflowRunResult[Any]:
    if not stream:
        result: WorkflowRunResult[Any] = await workflow.run(**kwargs)
        return result
    live = workflow.run(stream=True, **kwargs)
    async for _ in live:
        pass
    return await live.get_final_response()


async def check_round_trip(store: CheckpointStore, stream: bool) -> None:
    paused = await run(booking(store), stream, message="go", run_id="b1")
    assert paused.status == "paused"
    # a fresh definition reads every checkpoint of the run back from the store
    fresh = booking(store)
    infos = await store.list_checkpoints("b1")
    assert len(infos) >= 2
    for info in infos:
        record = await store.load("b1", info.checkpoint_id)
        assert record is not None
        restored = fresh.restore(record)
        assert restored.state is not None
        for env in restored.state.inbox:  # the Stamp in flight after the first superstep
            assert env.message == STAMP or env.message == "go"
    latest = fresh.restore(await _latest(store))
    assert latest.state is not None
    assert latest.state.states["booker"] == STAMP  # executor state
    (request,) = latest.requests
    assert request.data == SLOT  # request data
    # the in-flight Stamp: resume from the checkpoint before "booker" ran
    first = next(i for i in infos if i.superstep == 1)
    again = await run(fresh, stream, checkpoint=first.checkpoint_id, run_id="b1")
    assert again.status == "paused"
    assert again.requests[0].data == SLOT
    # the answer, stored with the run before the response handler runs
    done = await run(
        booking(store), stream, run_id="b1", responses=[request.create_response(ANSWER)]
    )
    assert done.output == (STAMP, SLOT, ANSWER)


async def _latest(store: CheckpointStore) -> Any:
    record = await store.load("b1")
    assert record is not None
    return record


async def check_unstorable(store: CheckpointStore, stream: bool) -> None:
    with pytest.raises(ExecutorFailedError) as info:
        await run(unstorable(store), stream, message="abc", run_id="o1")
    assert info.value.executor_id == "make"
    cause = info.value.__cause__
    assert isinstance(cause, CheckpointError)
    assert "'make' staged a message that cannot be stored in a checkpoint" in str(cause)
    latest = await store.load("o1")
    assert latest is not None
    assert latest.status == "failed"  # and the failed checkpoint itself was saved
