"""Same definition, input and responses give the same outputs, requests, checkpoints and
event order, whatever the schedule (random handler delays) and on asyncio and trio."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from typing import Any

import anyio
import attrs
from typing_extensions import Never

from agentcore.serialization import to_json
from agentcore.workflows import (
    Workflow,
    WorkflowBuilder,
    WorkflowContext,
    WorkflowRunResult,
    executor,
    handler,
    response_handler,
)

VOLATILE = {"checkpoint_id", "parent_id", "created_at", "run_id", "resumed_from"}


@attrs.frozen
class Claim:
    text: str


@attrs.frozen
class NeedSource:
    claim: str


@attrs.frozen
class Verdict:
    claim: str
    by: str
    ok: bool


def build(seed: int) -> Workflow[str, str]:
    rng = random.Random(seed)

    async def pause() -> None:
        await anyio.sleep(rng.random() / 400)

    class Checker:
        id = "checker"

        @handler
        async def on_claim(self, claim: Claim, ctx: WorkflowContext[Never, Verdict]) -> None:
            await pause()
            await ctx.emit(claim.text, name="asking")
            await ctx.request(NeedSource(claim.text), str)

        @response_handler
        async def on_source(
            self, ask: NeedSource, source: str, ctx: WorkflowContext[Never, Verdict]
        ) -> None:
            await pause()
            await ctx.yield_output(Verdict(ask.claim, "child", ask.claim in source))

    child = WorkflowBuilder(Checker(), name="child").build()

    @executor
    async def split(article: str, ctx: WorkflowContext[Claim]) -> None:
        for word in article.split():
            await ctx.send(Claim(word))

    def quick(name: str) -> Any:
        @executor(id=name)
        async def judge(claim: Claim, ctx: WorkflowContext[Verdict]) -> None:
            await pause()
            await ctx.emit(claim.text, name=name)
            await ctx.send(Verdict(claim.text, name, len(claim.text) % 2 == 0))

        return judge

    @executor
    async def tally(verdicts: Sequence[Verdict], ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(";".join(f"{v.by}:{v.claim}:{v.ok}" for v in verdicts))

    a, b = quick("a"), quick("b")
    return (
        WorkflowBuilder(split, name="determinism")
        .add(a, max_concurrency=3)
        .add(child, id="review", forward_requests="caller")
        .add_fan_out(split, [a, b, "review"])
        .add_fan_in([a, b, "review"], tally)
        .build()
    )


def stable(value: Any) -> Any:
    """A JSON document without its random or per-call parts."""
    if isinstance(value, dict):
        return {k: stable(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [stable(v) for v in value]
    if isinstance(value, str) and value.startswith('{"schema_version"'):
        return stable(json.loads(value))  # a child run's checkpoint, nested as JSON
    return value


def record(result: WorkflowRunResult[Any]) -> tuple[Any, ...]:
    assert result.checkpoint is not None
    return (
        result.status,
        result.outputs,
        tuple((r.id, r.executor_id, r.data, r.path) for r in result.requests),
        stable(json.loads(to_json(result.checkpoint))),
        tuple(
            (e.type, *(getattr(e, f, None) for f in ("executor_id", "superstep", "data")))
            for e in result.events
            if e.type not in ("run_started", "run_paused", "run_completed")
        ),
    )


async def scenario(seed: int) -> list[tuple[Any, ...]]:
    workflow = build(seed)
    paused = await workflow.run("otters hold hands tightly", run_id="d1")
    sources = {r.id: r.create_response("otters hold hands") for r in paused.requests}
    # answered in reverse, across two calls
    ids = [r.id for r in paused.requests][::-1]
    half = await workflow.run(responses=[sources[i] for i in ids[:2]], checkpoint=paused.checkpoint)
    done = await workflow.run(responses=[sources[i] for i in ids[2:]], checkpoint=half.checkpoint)
    return [record(paused), record(half), record(done)]


def test_outputs_requests_checkpoints_and_events_do_not_depend_on_schedule_or_backend() -> None:
    runs = [
        anyio.run(scenario, seed, backend=backend)
        for seed in range(4)
        for backend in ("asyncio", "trio")
    ]
    first = runs[0]
    assert first[0][0] == "paused"
    assert len(first[0][2]) == 4  # one question per claim, all through the caller
    assert first[2][0] == "completed"
    for other in runs[1:]:
        assert other == first
