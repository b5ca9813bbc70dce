# pyright: reportUnnecessaryTypeIgnoreComment=true
"""Static types of a workflow's deps: ``WorkflowContext[S, Y, Deps]`` types ``ctx.deps`` as
``Deps`` (as ``ToolContext[Deps]`` does for tools); without the third parameter it is
``Any``. Checked by mypy and basedpyright (each ``type: ignore`` below must be needed),
run by pytest on both backends."""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from typing_extensions import Never, assert_type

from agentcore.workflows import WorkflowBuilder, WorkflowContext, executor

pytestmark = pytest.mark.anyio


@attrs.frozen
class Deps:
    user: str


@executor
async def greet(name: str, ctx: WorkflowContext[str, Never, Deps]) -> None:
    assert_type(ctx.deps, Deps)
    await ctx.send(f"{ctx.deps.user} greets {name}")


@executor
async def shout(text: str, ctx: WorkflowContext[Never, str]) -> None:
    assert_type(ctx.deps, Any)  # no third parameter: any deps
    await ctx.yield_output(text.upper())


def wrong_attribute(ctx: WorkflowContext[Never, Never, Deps]) -> None:
    print(ctx.deps.tenant)  # type: ignore[attr-defined]  # Deps has no tenant


async def test_deps_reach_the_handlers_typed() -> None:
    workflow = WorkflowBuilder(greet, name="greeting").add_edge(greet, shout).build()
    result = await workflow.run("bob", deps=Deps("ada"))
    assert result.output == "ADA GREETS BOB"
    assert callable(wrong_attribute)
