"""Type expressions as the builder reads them: acceptance at build, matching at run
time, readable names, mutability and checkpoint keys."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Annotated, Any, Literal, Optional, Union

import attrs
import pytest
from typing_extensions import Never

from agentcore.workflows._codec import TypeRegistry, type_key
from agentcore.workflows._typeexpr import (
    compatible,
    describe,
    element_type,
    has_typevar,
    matches,
    members,
    mutable_reason,
)
from agentcore.workflows.errors import CheckpointError, WorkflowBuildError


@attrs.frozen
class Base:
    x: int


@attrs.frozen
class Sub(Base):
    pass


@dataclasses.dataclass(frozen=True)
class FrozenData:
    x: int


def test_members_flatten_unions_and_drop_never_and_annotations() -> None:
    assert members(Union[int, Union[str, int]]) == (int, str)  # noqa: UP007  # the old spelling on purpose
    assert members(Optional[int]) == (int, type(None))  # noqa: UP045  # the old spelling on purpose
    assert members(Annotated[int, "meta"]) == (int,)
    assert members(Never) == ()


@pytest.mark.parametrize(
    ("sent", "accepted", "expected"),
    [
        (Sub, Base, True),
        (Base, Sub, False),
        (int, int | str, True),
        (int | str, int, False),
        (int | str, int | str | bytes, True),
        (Literal["a"], Literal["a", "b"], True),
        (Literal["c"], Literal["a", "b"], False),
        (Literal["a"], str, True),
        (str, Literal["a"], False),
        (tuple[Sub, ...], Sequence[Base], True),
        (tuple[str, ...], Sequence[int], False),
        (tuple[int, str], Sequence[int | str], True),
        (tuple, Sequence[int], True),
        (Any, int, True),
        (int, Any, True),
        (dict[str, int], dict[str, int], True),
        (dict[str, int], dict[str, str], False),
    ],
)
def test_compatible(sent: Any, accepted: Any, expected: bool) -> None:
    assert compatible(sent, accepted) is expected


def test_matches_checks_the_origin_and_literal_values() -> None:
    assert matches(Sub(1), Base)
    assert not matches(Base(1), Sub)
    assert matches((1, 2), tuple[int, ...])
    assert matches("a", Literal["a", "b"])
    assert not matches(1, Literal[True])
    assert matches(3, int | str)
    assert matches(object(), Any)


def test_element_type_of_sequences() -> None:
    assert element_type(Sequence[int]) is int
    assert element_type(tuple[int, ...]) is int
    assert element_type(tuple[int]) is int
    assert element_type(tuple) is Any
    assert element_type(list[int]) is None


def test_describe_is_short_and_readable() -> None:
    assert describe(int) == "int"
    assert describe(None) == "None"
    assert describe(Any) == "Any"
    assert describe(int | str) == "int | str"
    assert describe(tuple[int, ...]) == "tuple[int, ...]"
    assert describe(Literal["a"]) == "Literal['a']"


def test_mutable_reason_names_the_fix() -> None:
    assert "frozenset" in (mutable_reason(set[int]) or "")
    assert "bytes" in (mutable_reason(bytearray) or "")
    assert mutable_reason(FrozenData) is None
    assert mutable_reason(Base) is None
    assert mutable_reason(tuple[int, ...]) is None


def test_has_typevar() -> None:
    from typing import TypeVar

    t = TypeVar("t")
    assert has_typevar(list[t])  # type: ignore[valid-type]  # a TypeVar in an expression under test
    assert not has_typevar(tuple[int, ...])


def test_type_keys_and_the_registry() -> None:
    assert type_key(int) == "builtins:int"
    assert type_key(tuple[str, ...]) == "builtins:tuple[builtins:str,...]"
    assert type_key(int | None) == "builtins:int|builtins:NoneType"
    assert type_key(Literal["a"]) == "Literal['a']"
    assert type_key(Any) == "typing:Any"
    registry = TypeRegistry([Base, Sub, int], names={Base: "app.Base"}, aliases={Sub: ["old:Sub"]})
    assert registry.lookup("app.Base") is Base
    assert registry.lookup("old:Sub") is Sub
    assert registry.key(Sub, Sub(1)) == type_key(Sub)
    assert registry.key(None, Sub(1)) == type_key(Sub)
    with pytest.raises(CheckpointError, match="does not know its type"):
        registry.key(None, 1.5)
    with pytest.raises(CheckpointError, match="must be"):
        registry.decode({"value": 1})
    with pytest.raises(CheckpointError, match="cannot be read"):
        registry.decode({"type": "builtins:int", "value": "one"})
    with pytest.raises(WorkflowBuildError, match="two types have the checkpoint key"):
        TypeRegistry([Base, Sub], names={Base: "same", Sub: "same"})
