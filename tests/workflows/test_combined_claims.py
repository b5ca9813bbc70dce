"""``SupportsCombinedClaims``: a claim joined to the load that starts a run (or to a
new run's first save), a release joined to the saves that end it (one round trip and
one transaction each), on the in-memory and SQLite stores, on asyncio and trio; and
what a crash just before a barrier leaves, with the saves combined and without (a
store by protocol)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from typing_extensions import Never

from agentcore.errors import RunStateError
from agentcore.workflows import (
    CheckpointRecord,
    CheckpointStore,
    InMemoryCheckpointStore,
    RunStatus,
    SeededIds,
    SqliteCheckpointStore,
    SupportsCombinedClaims,
    Workflow,
    WorkflowBuilder,
    WorkflowContext,
    executor,
)
from tests.workflows._checkpoint_flows import BATCH, expenses
from tests.workflows._counting_store import CountingStore, ForwardingStore

pytestmark = pytest.mark.anyio
Store = InMemoryCheckpointStore | SqliteCheckpointStore


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "memory":
        yield InMemoryCheckpointStore()
        return
    sqlite = SqliteCheckpointStore(tmp_path / "runs.db")
    yield sqlite
    sqlite.close()


def _record(
    checkpoint_id: str, parent_id: str | None, status: RunStatus = "running"
) -> CheckpointRecord:
    return CheckpointRecord(
        "r", checkpoint_id, parent_id, 1, status, "w", None, "t", 1, f'{{"id":"{checkpoint_id}"}}'
    )


async def test_claim_and_load_answers_as_claim_then_load(store: Store) -> None:
    assert isinstance(store, SupportsCombinedClaims)
    found = await store.claim_and_load("r", "a", 60)
    assert found is not None
    assert (found[0], list(found[1])) == (None, [])  # taken; no such run yet
    first, second = _record("ck_1", None), _record("ck_2", "ck_1", "failed")
    await store.save(first)
    await store.save(second)
    await store.save_pending_write("r", "ck_2", 0, '{"w":0}')
    found = await store.claim_and_load("r", "a", 60)  # a renewal, and the latest record
    assert found is not None
    assert (found[0], list(found[1])) == (second, ['{"w":0}'])
    found = await store.claim_and_load("r", "a", 60, "ck_1")
    assert found is not None
    assert (found[0], list(found[1])) == (first, [])
    assert await store.claim_and_load("r", "b", 60) is None  # a's claim holds
    assert not await store.claim("r", "b", 60)
    with pytest.raises(ValueError, match="ttl is a number of seconds above 0"):
        await store.claim_and_load("r", "a", 0)


async def test_save_and_release_saves_in_order_then_releases(store: Store) -> None:
    assert await store.claim("r", "a", 60)
    await store.save(_record("ck_1", None))
    await store.save_pending_write("r", "ck_1", 0, '{"w":0}')
    last = [_record("ck_2", "ck_1"), _record("ck_3", "ck_2", "completed")]
    await store.save_and_release(last, "r", "a")
    assert [i.checkpoint_id for i in await store.list_checkpoints("r")] == [
        "ck_1",
        "ck_2",
        "ck_3",
    ]
    assert await store.load("r") == last[1]
    assert await store.load_pending_writes("r", "ck_1") == []  # the barrier closed them
    assert await store.claim("r", "b", 60)  # released
    await store.save_and_release([_record("ck_4", "ck_3")], "r", "not the holder")
    assert not await store.claim("r", "c", 60)  # b's claim is untouched


async def test_save_and_claim_claims_then_saves_or_writes_nothing(store: Store) -> None:
    first = _record("ck_1", None)
    assert await store.save_and_claim(first, "a", 60)
    assert await store.load("r") == first
    assert not await store.claim("r", "b", 60)  # a holds the claim it took with the save
    second = _record("ck_2", "ck_1")
    assert await store.save_and_claim(second, "a", 60)  # a renewal, and a save
    assert not await store.save_and_claim(_record("ck_3", "ck_2"), "b", 60)  # refused
    assert [i.checkpoint_id for i in await store.list_checkpoints("r")] == ["ck_1", "ck_2"]
    assert not await store.claim("r", "b", 60)  # still a's
    with pytest.raises(ValueError, match="ttl is a number of seconds above 0"):
        await store.save_and_claim(_record("ck_3", "ck_2"), "a", 0)


def _seq3_noting(store: CheckpointStore, claimed_meanwhile: list[bool]) -> Workflow[int, int]:
    """seq-3 whose second executor notes whether another owner could claim the run."""

    @executor
    async def a(n: int, ctx: WorkflowContext[str]) -> None:
        await ctx.send("x")

    @executor
    async def b(text: str, ctx: WorkflowContext[bytes]) -> None:
        assert isinstance(store, SqliteCheckpointStore | InMemoryCheckpointStore)
        claimed_meanwhile.append(await store.claim(ctx.run_id, "another process", 60))
        await ctx.send(b"x")

    @executor
    async def c(data: bytes, ctx: WorkflowContext[Never, int]) -> None:
        await ctx.yield_output(1)

    return WorkflowBuilder(a, name="seq-3", checkpoints=store).add_chain(a, b, c).build()


async def test_a_new_run_holds_its_claim_from_its_first_save_to_its_end(store: Store) -> None:
    claimed_meanwhile: list[bool] = []
    done = await _seq3_noting(store, claimed_meanwhile).run(1)
    assert done.output == 1
    assert claimed_meanwhile == [False]  # taken with superstep 1's barrier
    assert await store.claim(done.run_id, "another process", 60)  # released at the end


async def test_a_generated_id_that_another_owner_claims_is_refused_and_nothing_written(
    store: Store,
) -> None:
    claimed_meanwhile: list[bool] = []
    workflow = _seq3_noting(store, claimed_meanwhile)
    first = await workflow.run(1, ids=SeededIds(3))
    before = await store.list_checkpoints(first.run_id)
    assert await store.claim(first.run_id, "another process", 60)
    with pytest.raises(RunStateError, match="being driven by another process"):
        await workflow.run(1, ids=SeededIds(3))  # the same id, generated again
    assert await store.list_checkpoints(first.run_id) == before  # nothing overwritten
    assert not await store.claim(first.run_id, "a third", 60)  # the other's claim holds
    assert claimed_meanwhile == [False]  # the refused run stopped at its first save


async def test_sqlite_save_and_release_is_whole_or_absent(tmp_path: Path) -> None:
    store = SqliteCheckpointStore(tmp_path / "runs.db")
    assert await store.claim("r", "a", 60)
    outside = sqlite3.connect(tmp_path / "runs.db")
    outside.execute(
        "CREATE TRIGGER fail_release BEFORE DELETE ON agentcore_workflow_claims "
        "BEGIN SELECT RAISE(ABORT, 'release failed'); END"
    )
    outside.commit()
    last = [_record("ck_1", None), _record("ck_2", "ck_1", "completed")]
    with pytest.raises(sqlite3.IntegrityError, match="release failed"):
        await store.save_and_release(last, "r", "a")
    assert await store.list_checkpoints("r") == []  # neither record
    assert not await store.claim("r", "b", 60)  # and the claim still held
    outside.execute("DROP TRIGGER fail_release")
    outside.commit()
    outside.close()
    await store.save_and_release(last, "r", "a")
    assert await store.load("r") == last[1]
    assert await store.claim("r", "b", 60)
    store.close()


# -- a crash just before a barrier -------------------------------------------------------


class Crash(BaseException):
    """The process dies: nothing after it runs (no failed checkpoint, no release)."""


class CrashingStore(ForwardingStore):
    """Forwards to ``inner`` (with ``SupportsCombinedClaims`` only if ``combined``) and
    dies instead of the ``crash_at``-th write of a checkpoint (counting a combined
    write as one)."""

    def __init__(self, inner: Store, *, crash_at: int, combined: bool) -> None:
        super().__init__(inner)
        self.store = inner
        self.crash_at = crash_at
        self.writes = 0
        if combined:
            self.claim_and_load = inner.claim_and_load
            self.save_and_claim = inner.save_and_claim  # named runs only: never called
            self.save_and_release = self._save_and_release

    def _write(self) -> None:
        self.writes += 1
        if self.writes == self.crash_at:
            raise Crash

    async def save(self, record: CheckpointRecord) -> None:
        self._write()
        await self.inner.save(record)

    async def _save_and_release(
        self, records: Sequence[CheckpointRecord], run_id: str, owner: str
    ) -> None:
        self._write()
        await self.store.save_and_release(records, run_id, owner)


def seq3(store: CheckpointStore, ran: list[str]) -> Workflow[int, str]:
    """Three executors in a chain, one invocation per superstep, each noting its run."""

    @executor
    async def a(n: int) -> str:
        ran.append("a")
        return f"a{n}"

    @executor
    async def b(text: str) -> bytes:
        ran.append("b")
        return f"{text}b".encode()

    @executor
    async def c(data: bytes, ctx: WorkflowContext[Never, str]) -> None:
        ran.append("c")
        await ctx.yield_output(data.decode() + "c")

    return WorkflowBuilder(a, name="seq-3", checkpoints=store).add_chain(a, b, c).build()


@pytest.mark.parametrize("combined", [True, False], ids=["combined", "by-protocol"])
@pytest.mark.parametrize(
    ("crash_at", "statuses", "rerun"),
    [
        (2, ["running"], ["b", "c"]),  # after b finished, before its barrier was written
        (3, ["running", "running"], ["c"]),  # after c finished: before the run's end
    ],
    ids=["before-a-barrier", "before-the-end"],
)
async def test_a_crash_before_a_barrier_reruns_only_that_superstep(
    store: Store, combined: bool, crash_at: int, statuses: list[str], rerun: list[str]
) -> None:
    ran: list[str] = []
    crashing = CrashingStore(store, crash_at=crash_at, combined=combined)
    with pytest.raises(Crash):
        await seq3(crashing, ran).run(1, run_id="r")
    assert ran == ["a", "b", "c"][:crash_at]
    # what the store holds: every barrier before the crash, nothing of the one after
    # (a lone invocation saves no pending write: its barrier is its durable write)
    infos = await store.list_checkpoints("r")
    assert [i.status for i in infos] == statuses
    assert await store.load_pending_writes("r", infos[-1].checkpoint_id) == []
    ran.clear()  # (the claim went with the call's end, as it would with its ttl)
    done = await seq3(store, ran).run(run_id="r")
    assert done.output == "a1bc"
    assert ran == rerun  # only the superstep whose barrier was not written runs again
    assert [i.status for i in await store.list_checkpoints("r")][-1] == "completed"


async def test_answers_to_a_checkpoint_value_are_saved_once_the_run_is_claimed(
    store: Store,
) -> None:
    paused = await expenses(store).run(BATCH, run_id="p")
    assert paused.checkpoint is not None
    counting = CountingStore(store)
    answers = [r.create_response(True) for r in paused.requests]
    done = await expenses(counting).run(responses=answers, checkpoint=paused.checkpoint)
    assert done.output == "e-1=True, e-2=True"
    assert counting.log[:2] == ["claim", "save running"]  # claimed, then the answers saved
    assert counting.log[-2:] == ["save completed", "release"]
    assert counting.saved[0].parent_id == paused.checkpoint.checkpoint_id
    assert await store.claim("p", "the next process", 60)  # released
