"""Run ids and run-local values."""

from __future__ import annotations

import os
import sys

import pytest

from agentcore._run_context import RunContext, new_run_id


def test_run_ids_are_unique_within_a_process() -> None:
    ids = {new_run_id() for _ in range(1000)}
    assert len(ids) == 1000


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork exists only on POSIX systems")
def test_a_forked_child_draws_its_own_run_ids() -> None:
    parent_id = new_run_id()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report one id and leave at once
        os.write(write, new_run_id().encode())
        os._exit(0)
    os.close(write)
    child_id = os.read(read, 200).decode()
    os.waitpid(pid, 0)
    assert child_id.rsplit("_", 1)[0] != parent_id.rsplit("_", 1)[0]


def test_run_context_gets_a_fresh_id_unless_given_one() -> None:
    assert RunContext().run_id != RunContext().run_id
    assert RunContext(run_id="run_fixed").run_id == "run_fixed"


def test_run_locals_refuse_values_that_cannot_be_saved() -> None:
    run = RunContext()
    with pytest.raises(TypeError, match="'handle' must be JSON-serializable"):
        run.set("handle", sys.stdout)
    run.set("count", 3)
    assert run.get("count") == 3
    run.delete("count")
    assert run.get("count", "gone") == "gone"
