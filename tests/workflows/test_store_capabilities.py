"""A store's optional capabilities are found as ``isinstance`` against the protocols
would find them, by a check cheap enough to run once per ``run()`` call; saves are
written whole even in a cancelled scope, with or without a shielding cancel scope."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import anyio
import anyio.lowlevel
import pytest
from typing_extensions import Never

from agentcore.workflows import (
    InMemoryCheckpointStore,
    SqliteCheckpointStore,
    Workflow,
    WorkflowBuilder,
    WorkflowContext,
    executor,
)
from agentcore.workflows._checkpoint import CheckpointRecord
from agentcore.workflows._durability import has_pending_writes, has_run_claims, save


class Claims:
    async def claim(self, run_id: str, owner: str, ttl: float) -> bool:
        return True

    async def release(self, run_id: str, owner: str) -> None:
        return None


class ClaimOnly:
    async def claim(self, run_id: str, owner: str, ttl: float) -> bool:
        return True


class ClaimsSwitchedOff(Claims):
    claim = None  # type: ignore[assignment]  # the protocol check treats None as absent


class Writes:
    async def save_pending_write(
        self, run_id: str, checkpoint_id: str, ordinal: int, payload: str
    ) -> None:
        return None

    async def load_pending_writes(self, run_id: str, checkpoint_id: str) -> Sequence[str]:
        return ()


def test_the_built_in_stores_have_both_capabilities(tmp_path: Any) -> None:
    for store in (InMemoryCheckpointStore(), SqliteCheckpointStore(tmp_path / "c.db")):
        assert has_run_claims(store)
        assert has_pending_writes(store)


def test_a_capability_needs_every_method() -> None:
    assert has_run_claims(Claims())
    assert not has_pending_writes(Claims())
    assert has_pending_writes(Writes())
    assert not has_run_claims(ClaimOnly())
    assert not has_run_claims(ClaimsSwitchedOff())
    assert not has_run_claims(None)
    assert not has_pending_writes(None)


def test_methods_held_by_the_instance_still_count() -> None:
    store = ClaimOnly()
    store.release = Claims().release  # type: ignore[attr-defined]  # the case under test
    assert has_run_claims(store)


class SlowStore(InMemoryCheckpointStore):
    """A subclass whose save suspends: it gets the shielding cancel scope."""

    async def save(self, record: Any) -> None:
        await anyio.lowlevel.checkpoint()
        await anyio.lowlevel.checkpoint()
        await super().save(record)


@pytest.mark.anyio
async def test_a_save_in_a_cancelled_scope_is_written_whole(anyio_backend: str) -> None:
    @executor
    async def echo(n: int, ctx: WorkflowContext[Never, int]) -> None:
        await ctx.yield_output(n)

    workflow: Workflow[int, int] = WorkflowBuilder(echo, name="echo").build()
    checkpoint = (await workflow.run(1)).checkpoint
    assert checkpoint is not None
    for store in (InMemoryCheckpointStore(), SlowStore()):
        with anyio.CancelScope() as scope:
            scope.cancel()  # the save runs as a cancelled run's would
            await save(store, CheckpointRecord.of(checkpoint))
        assert [r.checkpoint_id for r in await store.list_checkpoints(checkpoint.run_id)] == [
            checkpoint.checkpoint_id
        ]
