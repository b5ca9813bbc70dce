"""Executors written with ``from __future__ import annotations`` and forward references."""

from __future__ import annotations

import attrs
from typing_extensions import Never

from agentcore.workflows import WorkflowContext, executor, handler


@executor
async def first(text: str) -> Later:
    return Later(text.upper())


class Second:
    id = "second"

    @handler
    async def on_later(self, later: Later, ctx: WorkflowContext[Never, Later]) -> None:
        await ctx.yield_output(later)


@attrs.frozen
class Later:
    text: str
