"""Small traps (issue 28 §1.7): a shared key's declared initial value is what reads
see before any write; a cycle that can never reach a final output warns at build();
messages say "an int", not "a int". On asyncio and trio, in both run modes."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from typing_extensions import Never

from agentcore.workflows import (
    Case,
    Default,
    Workflow,
    WorkflowBuilder,
    WorkflowBuildWarning,
    WorkflowContext,
    WorkflowRunResult,
    executor,
)

pytestmark = pytest.mark.anyio


async def both(workflow: Workflow[Any, Any], message: object) -> WorkflowRunResult[Any]:
    plain = await workflow.run(message)
    stream = workflow.run(message, stream=True)
    async for _ in stream:
        pass
    assert (await stream.get_final_response()).outputs == plain.outputs
    return plain


def counter() -> Workflow[int, str]:
    @executor(id="count")
    async def count(n: int, ctx: WorkflowContext[int, str]) -> None:
        seen = ctx.shared.get("seen")
        await ctx.yield_output(f"{n}: {seen}")
        if n > 0:
            ctx.shared.set("seen", [*seen, n])
            await ctx.send(n - 1)

    return (
        WorkflowBuilder(count, name="counter", outputs_from=[count])
        .add_shared("seen", initial=[])
        .add_edge(count, count)
        .build()
    )


async def test_reads_see_the_declared_initial_value_before_any_write() -> None:
    result = await both(counter(), 2)
    assert result.outputs == ("2: []", "1: [2]", "0: [2, 1]")


async def test_a_deleted_key_reads_as_its_initial_value_again() -> None:
    @executor(id="first")
    async def first(n: int, ctx: WorkflowContext[int]) -> None:
        ctx.shared.set("mode", "custom")
        await ctx.send(n)

    @executor(id="second")
    async def second(n: int, ctx: WorkflowContext[int]) -> None:
        assert ctx.shared.get("mode") == "custom"
        ctx.shared.delete("mode")
        assert ctx.shared.get("mode") == "plain"
        await ctx.send(n)

    @executor(id="third")
    async def third(n: int, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(ctx.shared.get("mode"))

    workflow = (
        WorkflowBuilder(first, name="modes")
        .add_shared("mode", initial="plain")
        .add_chain(first, second, third)
        .build()
    )
    assert (await both(workflow, 1)).outputs == ("plain",)


def test_an_initial_value_that_is_not_json_is_refused_where_it_is_declared() -> None:
    @executor(id="one")
    async def one(n: int, ctx: WorkflowContext[Never, int]) -> None:
        await ctx.yield_output(n)

    with pytest.raises(TypeError, match="initial value of shared key 'seen' must be a JSON"):
        WorkflowBuilder(one, name="x").add_shared("seen", initial={1, 2})


def test_a_cycle_that_can_never_reach_a_final_output_warns_at_build() -> None:
    @executor(id="ping")
    async def ping(n: int) -> str:
        return str(n)

    @executor(id="pong")
    async def pong(text: str) -> int:
        return int(text) + 1

    builder = WorkflowBuilder(ping, name="ping-pong").add_edge(ping, pong).add_edge(pong, ping)
    with pytest.warns(WorkflowBuildWarning, match="the cycle ping -> pong can never reach"):
        builder.build()


def test_a_loop_with_an_exit_that_yields_builds_without_a_warning() -> None:
    @executor(id="step")
    async def step(n: int) -> int:
        return n + 1

    @executor(id="check")
    async def check(n: int) -> int:
        return n

    @executor(id="done")
    async def done(n: int, ctx: WorkflowContext[Never, int]) -> None:
        await ctx.yield_output(n)

    builder = (
        WorkflowBuilder(step, name="loop")
        .add_edge(step, check)
        .add_switch(check, Case(lambda n: n < 3, step), Default(done))
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        builder.build()


async def test_messages_use_an_before_a_vowel() -> None:
    @executor(id="echo")
    async def echo(text: str, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(text)

    workflow: Workflow[Any, str] = WorkflowBuilder(echo, name="echo").build()
    with pytest.raises(TypeError, match="accepts str, not an int"):
        await workflow.run(1)


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("int", "an int"),
        ("str", "a str"),
        ("Order", "an Order"),
        ("UUID", "a UUID"),
        ("UserInputRequestContent", "a UserInputRequestContent"),
        ("Item", "an Item"),
    ],
)
def test_the_article_follows_the_sound(name: str, said: str) -> None:
    from agentcore.workflows._typeexpr import with_article

    assert with_article(name) == said
