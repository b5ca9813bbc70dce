"""Checkpoint type keys are unambiguous: two types with one key, or an alias that is
another type's key, fail ``build()`` with the fix; an alias reads an old key."""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from typing_extensions import Never

from agentcore.workflows import (
    Workflow,
    WorkflowBuilder,
    WorkflowBuildError,
    WorkflowContext,
    executor,
)


def make_item() -> type[Any]:
    """A class factory: every call makes a new class with the same module:qualname."""

    @attrs.frozen
    class Item:
        text: str

    return Item


First, Second = make_item(), make_item()


@executor(id="split", input=str, output=First | Second)
async def split(text: str, ctx: WorkflowContext[Any]) -> None:
    await ctx.send(First(text))


@executor(id="one", input=First, yields=str)
async def one(item: Any, ctx: WorkflowContext[Never, str]) -> None:
    await ctx.yield_output(item.text)


@executor(id="two", input=Second, yields=str)
async def two(item: Any, ctx: WorkflowContext[Never, str]) -> None:
    await ctx.yield_output(item.text)


def builder() -> WorkflowBuilder:
    return WorkflowBuilder(split, name="items").add_fan_out(split, [one, two])


def test_two_types_with_one_key_fail_build() -> None:
    assert First.__qualname__ == Second.__qualname__
    with pytest.raises(WorkflowBuildError) as info:
        builder().build()
    text = str(info.value)
    assert "two types have the checkpoint key" in text
    assert "make_item.<locals>.Item" in text
    assert "register_type(cls, name=...)" in text
    # the fix the message gives
    fixed: Workflow[str, str] = (
        builder().register_type(First, name="items.First").register_type(Second).build()
    )
    assert fixed.checkpoint_types[First] == "items.First"


def test_two_types_registered_under_one_name_fail_build() -> None:
    with pytest.raises(WorkflowBuildError, match=r"two types have the checkpoint key 'shop\.Item'"):
        (
            builder()
            .register_type(First, name="shop.Item")
            .register_type(Second, name="shop.Item")
            .build()
        )


def test_an_alias_that_is_another_types_key_fails_build() -> None:
    taken = builder().register_type(First, name="items.First").build().checkpoint_types[Second]
    with pytest.raises(WorkflowBuildError, match="already the checkpoint key of") as info:
        builder().register_type(First, name="items.First", aliases=[taken]).build()
    assert "drop the alias" in str(info.value)
    # an alias no other type holds is accepted (reading through one:
    # test_checkpoints.py::test_renamed_type_is_read_through_an_alias)
    aliased = builder().register_type(First, name="items.First", aliases=["old:Item"]).build()
    assert aliased.checkpoint_types[First] == "items.First"
