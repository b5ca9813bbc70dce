"""A workflow of plain functions: a pipeline, a router and a map with a join.

Runs offline. Return values are sends; the executor with no outgoing edge yields
the workflow's output. ``build()`` checks the edges against the handlers' types.
"""

from __future__ import annotations

from collections.abc import Sequence

import anyio
import attrs
from typing_extensions import Never

from agentcore.workflows import (
    Case,
    EdgeDelivery,
    Workflow,
    WorkflowBuilder,
    WorkflowContext,
    executor,
)

# -- a sequential pipeline --------------------------------------------------------------


@attrs.frozen
class Draft:
    text: str


@attrs.frozen
class Reviewed:
    text: str
    issues: tuple[str, ...]


@executor
async def write(topic: str) -> Draft:
    return Draft(f"A short note about {topic}.")


@executor
async def review(draft: Draft) -> Reviewed:
    return Reviewed(draft.text, ("too short",) if len(draft.text) < 40 else ())


@executor
async def publish(r: Reviewed, ctx: WorkflowContext[Never, str]) -> None:
    fixes = f" (to fix: {', '.join(r.issues)})" if r.issues else ""
    await ctx.yield_output(r.text + fixes)


notes: Workflow[str, str] = (
    WorkflowBuilder(write, name="note-pipeline", input_type=str, output_type=str)
    .add_chain(write, review, publish)
    .build()
)


# -- a router -------------------------------------------------------------------------


@attrs.frozen
class Refund:
    amount: float


@attrs.frozen
class Question:
    text: str


@executor
async def classify(text: str) -> Refund | Question:
    words = text.split()
    amounts = [float(w) for w in words if w.replace(".", "", 1).isdigit()]
    return Refund(amounts[0]) if amounts else Question(text)


@executor
async def auto_refund(r: Refund, ctx: WorkflowContext[Never, str]) -> None:
    await ctx.yield_output(f"refunded {r.amount:.2f}")


@executor
async def refund_review(r: Refund, ctx: WorkflowContext[Never, str]) -> None:
    await ctx.yield_output(f"queued {r.amount:.2f} for review")


@executor
async def answer(q: Question, ctx: WorkflowContext[Never, str]) -> None:
    await ctx.yield_output(f"answering: {q.text}")


def small_refund(message: Refund | Question) -> bool:
    return isinstance(message, Refund) and message.amount <= 50


router = (
    WorkflowBuilder(classify, name="support-router")
    .add_switch(
        classify,
        Case(small_refund, auto_refund),
        Case(Refund, refund_review),
        Case(Question, answer),
    )
    .build()
)


# -- a map over a list of any length, joined by a fan-in ---------------------------------


@executor
async def split(words: tuple[str, ...], ctx: WorkflowContext[str]) -> None:
    for word in words:
        await ctx.send(word)


@executor
async def measure(word: str) -> int:
    return len(word)


@executor
async def total(lengths: Sequence[int], ctx: WorkflowContext[Never, int]) -> None:
    await ctx.yield_output(sum(lengths))


lengths = (
    WorkflowBuilder(split, name="word-lengths")
    .add(measure, max_concurrency=8)
    .add_edge(split, measure)
    .add_fan_in([measure], total)
    .build()
)


async def main() -> None:
    result = await notes.run("otters")
    print(result.output, f"({result.supersteps} supersteps)")

    for text in ("please refund 20", "refund 120 now", "where is my parcel?"):
        print((await router.run(text)).output)
    routed = await router.run("where is my parcel?", verbose_events=True)
    for event in routed.events:
        if isinstance(event, EdgeDelivery):
            print(f"  {event.source_id} -> {event.target_id}: {event.status}")

    print("letters:", (await lengths.run(("otters", "hold", "hands"))).output)


if __name__ == "__main__":
    anyio.run(main)
