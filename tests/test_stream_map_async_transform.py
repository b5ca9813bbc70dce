"""``ResponseStream.map`` refuses an async transform when it is called, not later.

The transform runs once per update and is never awaited; an async one would put
coroutine objects in the stream. The refusal leaves the stream untouched.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any, cast

import pytest

from agentcore import ResponseStream

pytestmark = pytest.mark.anyio


async def _numbers() -> AsyncIterator[int]:
    for n in (1, 2, 3):
        yield n


def _stream() -> ResponseStream[int, int]:
    return ResponseStream(_numbers(), finalizer=sum)


async def _double(n: int) -> int:
    return 2 * n


class _AsyncDoubler:
    async def __call__(self, n: int) -> int:
        return 2 * n


@pytest.mark.parametrize("transform", [_double, _AsyncDoubler()], ids=["function", "object"])
async def test_an_async_transform_is_refused_at_map_time(transform: Any) -> None:
    stream = _stream()

    with pytest.raises(TypeError, match=r"map\(\) takes a plain function"):
        stream.map(transform)

    # The stream was not taken over: it still reads and folds as before.
    assert [n async for n in stream] == [1, 2, 3]
    assert await stream.get_final_response() == 6


async def test_an_async_transform_with_a_finalizer_is_refused_too() -> None:
    def total(updates: Sequence[int]) -> int:
        return sum(updates)

    with pytest.raises(TypeError, match="never awaited"):
        _stream().map(cast("Any", _double), total)  # the mistake under test


async def test_a_plain_transform_still_maps() -> None:
    mapped = _stream().map(lambda n: n * 10)

    assert [n async for n in mapped] == [10, 20, 30]
    assert await mapped.get_final_response() == 60
