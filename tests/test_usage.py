"""Usage: figure-by-figure addition where an unreported figure is ``None``."""

from __future__ import annotations

import pytest
from hypothesis import given

from agentcore import Usage
from tests.strategies import usages


def test_usages_add_figure_by_figure() -> None:
    total = Usage(input_tokens=10, output_tokens=2) + Usage(input_tokens=5, output_tokens=1)

    assert total == Usage(input_tokens=15, output_tokens=3)


def test_a_missing_figure_takes_the_other_side() -> None:
    total = Usage(input_tokens=10) + Usage(cache_read_tokens=4)

    assert total == Usage(input_tokens=10, cache_read_tokens=4)


def test_figures_missing_on_both_sides_stay_missing() -> None:
    assert (Usage() + Usage()).reasoning_tokens is None


def test_every_figure_is_added() -> None:
    one = Usage(1, 1, 1, 1, 1, 1, 1)

    assert one + one == Usage(2, 2, 2, 2, 2, 2, 2)


def test_adding_something_else_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        Usage(1) + 1  # type: ignore[operator]  # the mistake under test


@given(a=usages, b=usages)
def test_addition_is_commutative(a: Usage, b: Usage) -> None:
    assert a + b == b + a


@given(a=usages, b=usages, c=usages)
def test_addition_is_associative(a: Usage, b: Usage, c: Usage) -> None:
    assert (a + b) + c == a + (b + c)


@given(a=usages)
def test_empty_usage_is_neutral(a: Usage) -> None:
    assert a + Usage() == a


def test_sum_skips_none() -> None:
    assert Usage.sum([Usage(input_tokens=1), None, Usage(input_tokens=2)]) == Usage(input_tokens=3)


def test_sum_of_nothing_is_none() -> None:
    assert Usage.sum([]) is None


def test_sum_of_only_none_is_none() -> None:
    assert Usage.sum([None, None]) is None


@given(a=usages, b=usages, c=usages)
def test_sum_equals_repeated_addition(a: Usage, b: Usage, c: Usage) -> None:
    assert Usage.sum(iter([a, b, c])) == a + b + c
