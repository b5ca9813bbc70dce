"""The converter writes dates, times, durations, UUIDs, decimals and paths as exact JSON
text and reads them back by their exact class (issue 28 §1.2: workflow checkpoints
store them through this converter)."""

from __future__ import annotations

import datetime
import decimal
import json
import pathlib
import subprocess
import sys
import uuid
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentcore.serialization import SerializationError, structure, unstructure

CASES: list[tuple[Any, str]] = [
    (
        datetime.datetime(2026, 1, 2, 3, 4, 5, 6, tzinfo=datetime.timezone.utc),
        "2026-01-02T03:04:05.000006+00:00",
    ),
    (datetime.datetime(2026, 1, 2, 3, 4), "2026-01-02T03:04:00"),
    (datetime.date(2026, 2, 28), "2026-02-28"),
    (datetime.time(23, 59, 59, 1), "23:59:59.000001"),
    (datetime.timedelta(days=-1, seconds=5, microseconds=7), "P-1DT5.000007S"),
    (datetime.timedelta(hours=1), "P0DT3600S"),
    (uuid.UUID("12345678-1234-5678-1234-567812345678"), "12345678-1234-5678-1234-567812345678"),
    (decimal.Decimal("1.10"), "1.10"),
    (decimal.Decimal("-1E+3"), "-1E+3"),
    (pathlib.PurePosixPath("/a/b.txt"), "/a/b.txt"),
    (pathlib.Path("rel/c"), "rel/c"),
]


@pytest.mark.parametrize(("value", "text"), CASES, ids=[type(v).__name__ for v, _ in CASES])
def test_written_as_exact_text_and_read_back_equal(value: Any, text: str) -> None:
    written = unstructure(value)
    assert written == text
    json.dumps(written)
    back = structure(written, type(value))
    assert back == value
    assert type(back) is type(value)
    assert str(back) == str(value)  # a decimal keeps its digits


@given(st.timedeltas())
def test_every_duration_round_trips(value: datetime.timedelta) -> None:
    assert structure(unstructure(value), datetime.timedelta) == value


@pytest.mark.parametrize(
    ("data", "tp"),
    [
        (3, datetime.date),
        ("2026-01-02T03:04:00", datetime.date),
        ("not a uuid", uuid.UUID),
        ("one", decimal.Decimal),
        ("PT5S", datetime.timedelta),
        (5.0, datetime.timedelta),
    ],
)
def test_text_of_another_shape_is_refused_naming_the_class(data: object, tp: type[Any]) -> None:
    with pytest.raises(SerializationError, match=f"expected {tp.__qualname__} text"):
        structure(data, tp)


def test_importing_agentcore_loads_neither_uuid_nor_decimal() -> None:
    code = (
        "import sys, agentcore.serialization; "
        "print('uuid' in sys.modules, 'decimal' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
