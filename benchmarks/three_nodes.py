"""A three-node workflow built when this module is imported: the second import row of
design/workflows.md §10 (``import agentcore.workflows``, the names a workflow needs, and
``build()``), timed by ``benchmarks.scenarios.workflows_build_time`` in a fresh
interpreter. Written as a user writes one: an ``@executor`` function that sends, a
second one, and a class with a ``@handler`` that yields the output."""

from __future__ import annotations

from agentcore.workflows import WorkflowBuilder, WorkflowContext, executor, handler


@executor
async def upper(text: str, ctx: WorkflowContext[str]) -> None:
    await ctx.send(text.upper())


@executor
async def exclaim(text: str, ctx: WorkflowContext[str]) -> None:
    await ctx.send(text + "!")


class Printer:
    id = "printer"

    @handler
    async def show(self, text: str, ctx: WorkflowContext[None, str]) -> None:
        await ctx.yield_output(text)


workflow = (
    WorkflowBuilder(upper, name="shout")
    .add_edge(upper, exclaim)
    .add_edge(exclaim, Printer())
    .build()
)
