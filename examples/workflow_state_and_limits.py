"""A class executor with per-run state, an explicit response handler, and a loop
that hits ``max_supersteps`` and is resumed past the limit.

Runs offline.
"""

from __future__ import annotations

from typing import Any

import anyio
import attrs

from agentcore.workflows import (
    Workflow,
    WorkflowBuilder,
    WorkflowContext,
    WorkflowConvergenceError,
    response_handler,
)


@attrs.frozen
class Start:
    goal: int


@attrs.frozen
class Tick:
    pass


@attrs.frozen
class Confirm:
    count: int


@attrs.frozen
class CounterState:
    goal: int = 0
    seen: int = 0


class Counter:
    """State lives in the run (ctx.get_state / set_state), never on the instance."""

    id = "counter"
    state_type = CounterState

    async def handle(self, message: Start | Tick, ctx: WorkflowContext[Tick, int]) -> None:
        state = ctx.get_state(CounterState) or CounterState()
        if isinstance(message, Start):
            ctx.set_state(attrs.evolve(state, goal=message.goal))
            await ctx.send(Tick())
            return
        state = attrs.evolve(state, seen=state.seen + 1)
        ctx.set_state(state)
        if state.seen < state.goal:
            await ctx.send(Tick())
        else:
            await ctx.request(Confirm(state.seen), bool)

    @response_handler(request=Confirm, response=bool, yields=int)  # explicit mode
    async def confirmed(self, request: Any, approved: Any, ctx: Any) -> None:
        await ctx.yield_output(request.count if approved else 0)


def counting(limit: int) -> Workflow[Start, int]:
    counter = Counter()
    return (
        WorkflowBuilder(counter, name="count", outputs_from=[counter], max_supersteps=limit)
        .add_edge(counter, counter)
        .build()
    )


async def main() -> None:
    workflow = counting(limit=5)
    try:
        await workflow.run(Start(8))
    except WorkflowConvergenceError as exc:
        print(f"stopped at superstep {exc.superstep}; pending: {exc.pending}")
        paused = await workflow.run(checkpoint=exc.checkpoint, max_supersteps=20)
        [confirm] = paused.requests
        print(paused.status, "- confirm", confirm.data.count, "ticks?")
        done = await workflow.run(
            responses=[confirm.create_response(True)], checkpoint=paused.checkpoint
        )
        print("output:", done.output)


if __name__ == "__main__":
    anyio.run(main)
