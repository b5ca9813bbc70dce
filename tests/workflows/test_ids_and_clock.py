"""The run's default ids and the checkpoints' clock, made cheaply: ids split from one
``os.urandom`` draw per call, the timestamp formatted once a second."""

from __future__ import annotations

import datetime
import re

from agentcore.workflows._ids import RANDOM_IDS, RunCall, SeededIds
from agentcore.workflows._value import utc_now


def test_the_default_ids_are_fresh_and_keep_their_format() -> None:
    call = RunCall(RANDOM_IDS)
    ids = [call.run_id(), *(call.checkpoint_id(step) for step in range(12))]
    assert re.fullmatch(r"wfr_[0-9a-f]{32}", ids[0])
    assert all(re.fullmatch(rf"ck_{step:06d}_[0-9a-f]{{6}}", i) for step, i in enumerate(ids[1:]))
    # 12 checkpoint ids and a run id outgrow one 32-byte draw: the refill keeps going
    assert len({i[-6:] for i in ids[1:]}) >= 11  # 24 random bits each: a repeat is rare
    assert RunCall(RANDOM_IDS).run_id() != RunCall(RANDOM_IDS).run_id()  # per call
    assert len(call.for_invocation(ids[0], 1, 0).token(16)) == 32


def test_a_seeded_call_still_draws_from_its_source_in_order() -> None:
    source = SeededIds(3)
    expected = f"wfr_{source.token(16)}", f"ck_000001_{source.token(3)}"
    call = RunCall(SeededIds(3))
    assert (call.run_id(), call.checkpoint_id(1)) == expected


def test_the_timestamp_reads_as_datetime_writes_it() -> None:
    before = datetime.datetime.now(datetime.timezone.utc)
    stamp = utc_now()
    after = datetime.datetime.now(datetime.timezone.utc)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00", stamp)
    parsed = datetime.datetime.fromisoformat(stamp)
    assert before.replace(microsecond=before.microsecond // 1000 * 1000) <= parsed <= after
    assert utc_now() >= stamp  # the cached second moves on
