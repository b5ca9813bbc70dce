"""A checkpoint store by protocol that counts what a run writes, around a real store."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from agentcore.workflows import (
    CheckpointInfo,
    CheckpointRecord,
    CheckpointStore,
    SupportsPendingWrites,
    SupportsRunClaims,
)


class FullStore(CheckpointStore, SupportsPendingWrites, SupportsRunClaims, Protocol):
    """A store with every capability (the built-in ones, and PostgreSQL's)."""


class ForwardingStore:
    """Has the shapes of ``CheckpointStore``, ``SupportsPendingWrites`` and
    ``SupportsRunClaims`` (no base class of the library) and forwards each call to
    ``inner``; test stores override what they watch."""

    def __init__(self, inner: FullStore) -> None:
        self.inner = inner

    async def save(self, record: CheckpointRecord) -> None:
        await self.inner.save(record)

    async def load(self, run_id: str, checkpoint_id: str | None = None) -> CheckpointRecord | None:
        return await self.inner.load(run_id, checkpoint_id)

    async def list_checkpoints(self, run_id: str) -> Sequence[CheckpointInfo]:
        return await self.inner.list_checkpoints(run_id)

    async def delete(self, run_id: str) -> None:
        await self.inner.delete(run_id)

    async def save_pending_write(
        self, run_id: str, checkpoint_id: str, ordinal: int, payload: str
    ) -> None:
        await self.inner.save_pending_write(run_id, checkpoint_id, ordinal, payload)

    async def load_pending_writes(self, run_id: str, checkpoint_id: str) -> Sequence[str]:
        return await self.inner.load_pending_writes(run_id, checkpoint_id)

    async def claim(self, run_id: str, owner: str, ttl: float) -> bool:
        return await self.inner.claim(run_id, owner, ttl)

    async def release(self, run_id: str, owner: str) -> None:
        await self.inner.release(run_id, owner)


class CountingStore(ForwardingStore):
    """A :class:`ForwardingStore` that records every write in call order."""

    def __init__(self, inner: FullStore) -> None:
        super().__init__(inner)
        self.saved: list[CheckpointRecord] = []
        self.writes: list[tuple[str, int]] = []  # (checkpoint id, ordinal)
        self.log: list[str] = []  # "save running", "write", "claim", "release", in order

    async def save(self, record: CheckpointRecord) -> None:
        await self.inner.save(record)
        self.saved.append(record)
        self.log.append(f"save {record.status}")

    async def save_pending_write(
        self, run_id: str, checkpoint_id: str, ordinal: int, payload: str
    ) -> None:
        await self.inner.save_pending_write(run_id, checkpoint_id, ordinal, payload)
        self.writes.append((checkpoint_id, ordinal))
        self.log.append("write")

    async def claim(self, run_id: str, owner: str, ttl: float) -> bool:
        self.log.append("claim")
        return await self.inner.claim(run_id, owner, ttl)

    async def release(self, run_id: str, owner: str) -> None:
        self.log.append("release")
        await self.inner.release(run_id, owner)

    def statuses(self) -> list[str]:
        return [r.status for r in self.saved]
