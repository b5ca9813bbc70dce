"""Executors written with ``from __future__ import annotations`` and forward references."""

from __future__ import annotations

import attrs
from typing_extensions import Never

from agentcore.workflows import WorkflowContext, executor, handler, response_handler


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


class Asker:
    """Explicit mode with string forward references (seed 002): the strings name classes
    defined below, resolved against this module's globals."""

    id = "asker"

    @handler(input="Later")
    async def on_later(self, later: Later, ctx: WorkflowContext) -> None:
        await ctx.request(later, Answer)

    @response_handler(request="Later", response="Answer", yields="Answer")
    async def on_answer(
        self, later: Later, answer: Answer, ctx: WorkflowContext[Never, Answer]
    ) -> None:
        await ctx.yield_output(Answer(f"{later.text}: {answer.text}"))


@attrs.frozen
class Answer:
    text: str
