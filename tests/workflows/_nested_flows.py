"""Three levels of workflows: an article check runs a claim review per claim, which runs
a fact check that asks for a source. The question travels up two levels to the caller;
used in this process and (through ``python -m``) across two."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

import anyio
import attrs
from typing_extensions import Never

from agentcore.workflows import (
    Workflow,
    WorkflowBuilder,
    WorkflowContext,
    executor,
    handler,
    response_handler,
)
from agentcore.workflows.protocols import CheckpointStore

ARCHIVE = "otters hold hands. otters sleep on water."
RUN_ID = "nested-run"


@attrs.frozen
class Claim:
    text: str


@attrs.frozen
class NeedSource:
    claim: str


@attrs.frozen
class Verdict:
    claim: str
    supported: bool


class Checker:
    """Level 3: asks the caller for a source, then judges the claim against it."""

    id = "checker"

    @handler
    async def on_claim(self, claim: Claim, ctx: WorkflowContext[Never, Verdict]) -> None:
        await ctx.request(NeedSource(claim.text), str)

    @response_handler
    async def on_source(
        self, ask: NeedSource, source: str, ctx: WorkflowContext[Never, Verdict]
    ) -> None:
        await ctx.yield_output(Verdict(ask.claim, supported=ask.claim.lower() in source.lower()))


@executor
async def normalise(claim: Claim, ctx: WorkflowContext[Claim]) -> None:
    await ctx.send(Claim(claim.text.strip().rstrip(".")))


@executor
async def report(verdict: Verdict, ctx: WorkflowContext[Never, Verdict]) -> None:
    await ctx.yield_output(verdict)


@executor
async def split_claims(article: str, ctx: WorkflowContext[Claim]) -> None:
    for sentence in article.split(". "):
        await ctx.send(Claim(sentence))


@executor
async def tally(verdicts: Sequence[Verdict], ctx: WorkflowContext[Never, str]) -> None:
    supported = sum(v.supported for v in verdicts)
    await ctx.yield_output(f"{supported}/{len(verdicts)} claims supported")


def review() -> Workflow[Claim, Verdict]:
    """Level 2: normalises the claim and hands it to the fact check (level 3)."""
    fact_check = WorkflowBuilder(Checker(), name="fact-check").build()
    return (
        WorkflowBuilder(normalise, name="claim-review")
        .add(fact_check, id="fact_check", forward_requests="caller")
        .add_edge(normalise, "fact_check")
        .add_edge("fact_check", report)
        .build()
    )


def article_check(store: CheckpointStore | str | None = None) -> Workflow[str, str]:
    """Level 1: one review per claim, joined."""
    return (
        WorkflowBuilder(split_claims, name="nested-article-check", checkpoints=store)
        .add(review(), id="review", forward_requests="caller")
        .add_edge(split_claims, "review")
        .add_fan_in(["review"], tally)
        .build()
    )


async def _main(db: str, step: str) -> None:
    workflow = article_check(db)
    if step == "start":
        result = await workflow.run("Otters hold hands. Otters can fly", run_id=RUN_ID)
        print(result.status, len(result.requests))
    else:
        snapshot = await workflow.inspect(RUN_ID)
        for request in snapshot.requests:
            print(request.executor_id, "/".join(request.path), request.data.claim)
        answers = [r.create_response(ARCHIVE) for r in snapshot.requests]
        done = await workflow.run(responses=answers, run_id=RUN_ID)
        print(done.status, done.output)


if __name__ == "__main__":
    sys.path.insert(0, os.getcwd())
    anyio.run(_main, sys.argv[1], sys.argv[2])
