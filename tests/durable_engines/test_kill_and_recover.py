"""Durable runs on real DBOS, on SQLite and on PostgreSQL: worker processes are
SIGKILLed mid-tool, between a model call and a tool, and while waiting for an
approval; a restarted worker (or another worker sharing the database) finishes the
run. Checked on the effects the tools and the model double logged."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import anyio
import pytest

from .postgres_server import create_database

pytestmark = pytest.mark.durable_engines

WORKER = Path(__file__).with_name("worker.py")
ANSWER = "done: ['tea 2.2', 'charged 5']"


def spawn(
    scenario: str,
    mode: str,
    url: str,
    work: Path,
    workflow: str,
    executor: str,
    *,
    kill_at: str = "",
    step_name: str = "cafe",
) -> subprocess.Popen[str]:
    env = {**os.environ, "KILL_AT": kill_at, "STEP_NAME": step_name}
    return subprocess.Popen(
        [sys.executable, str(WORKER), scenario, mode, url, str(work), workflow, executor],
        env=env,
        cwd=work,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def finish(process: subprocess.Popen[str], *, killed: bool = False) -> None:
    try:
        output, _ = process.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        process.kill()
        output, _ = process.communicate()
        raise AssertionError(f"the worker hung:\n{output}") from None
    expected = -signal.SIGKILL if killed else 0
    assert process.returncode == expected, output


def effects(work: Path, workflow: str) -> list[str]:
    lines = (work / "effects.log").read_text().splitlines()
    return [line.split(" ", 1)[1] for line in lines if line.startswith(f"{workflow} ")]


def database(kind: str, postgres: str | None) -> str:
    if kind == "sqlite":
        return "sqlite"
    assert postgres is not None
    return create_database(postgres, f"t_{uuid.uuid4().hex[:12]}")


@pytest.fixture(params=["sqlite", "postgres"])
def url(request: pytest.FixtureRequest) -> str:
    if request.param == "sqlite":
        return "sqlite"
    return database("postgres", request.getfixturevalue("postgres_url"))


def test_killed_mid_tool_the_run_completes_without_repeating_finished_steps(
    url: str, tmp_path: Path
) -> None:
    finish(spawn("tools", "start", url, tmp_path, "wf", "w1", kill_at="charge"), killed=True)
    assert effects(tmp_path, "wf").count("charge end") == 0
    finish(spawn("tools", "recover", url, tmp_path, "wf", "w1"))
    log = effects(tmp_path, "wf")
    assert (tmp_path / "wf.answer").read_text() == ANSWER
    models = [line for line in log if line.startswith("model")]
    assert len(models) == 2  # the first model call was recorded: not made again
    assert len(set(models)) == 2
    assert log.count("lookup") == 1  # finished before the crash: not run again
    starts = [line for line in log if line.startswith("charge start")]
    assert len(starts) == 2  # in flight at the crash: run again
    assert len(set(starts)) == 1  # with the same idempotency key both times
    assert log.count("charge end") == 1


def test_killed_between_the_model_call_and_the_tools(url: str, tmp_path: Path) -> None:
    process = spawn("tools", "start", url, tmp_path, "wf", "w1", kill_at="before_tools")
    finish(process, killed=True)
    (only,) = effects(tmp_path, "wf")  # the model call, and no tool yet
    assert only.startswith("model")
    finish(spawn("tools", "recover", url, tmp_path, "wf", "w1"))
    log = effects(tmp_path, "wf")
    assert (tmp_path / "wf.answer").read_text() == ANSWER
    assert len([line for line in log if line.startswith("model")]) == 2
    assert log.count("lookup") == 1
    assert log.count("charge end") == 1


def test_an_approval_given_after_the_restart_is_matched(url: str, tmp_path: Path) -> None:
    finish(spawn("approval", "start", url, tmp_path, "wf", "w1", kill_at="waiting"), killed=True)
    assert (tmp_path / "shown.json").exists()
    (only,) = effects(tmp_path, "wf")  # the model call, and no charge yet
    assert only.startswith("model")
    finish(spawn("approval", "approve", url, tmp_path, "wf", "w1"))
    log = effects(tmp_path, "wf")
    assert (tmp_path / "wf.answer").read_text() == "done: ['charged 5']"
    assert len([line for line in log if line.startswith("model")]) == 2
    assert log.count("charge end") == 1


def test_an_engine_error_ends_a_run_assembled_by_hand(url: str, tmp_path: Path) -> None:
    # DurableChatClient and durable_tool without dbos_agent: charge's step is renamed
    # between the crash and the recovery, so DBOS refuses to replay its recorded step.
    finish(spawn("manual", "start", url, tmp_path, "wf", "w1", kill_at="final_model"), killed=True)
    before = effects(tmp_path, "wf")
    assert before.count("charge end") == 1
    finish(spawn("manual", "recover", url, tmp_path, "wf", "w1", step_name="cafe-v2"))
    assert not (tmp_path / "wf.answer").exists()  # the model was not told "charge failed"
    error = (tmp_path / "wf.error").read_text()
    assert error.startswith("DurableExecutionError: "), error
    assert "DBOSUnexpectedStepError" in error
    assert "cafe.tool.charge" in error
    assert "cafe-v2.tool.charge" in error
    # Nothing ran again: no model call, no tool.
    assert effects(tmp_path, "wf") == before


def test_two_workers_share_postgres_and_one_takes_over_the_dead_ones_run(
    postgres_url: str, tmp_path: Path
) -> None:
    url = database("postgres", postgres_url)
    first = spawn("tools", "start", url, tmp_path, "wf-a", "worker-a", kill_at="charge")
    second = spawn("tools", "start", url, tmp_path, "wf-b", "worker-b")
    finish(first, killed=True)
    finish(second)
    # Worker b (restarted) takes over the run worker a left behind.
    finish(spawn("tools", "adopt", url, tmp_path, "wf-a", "worker-b"))
    for workflow in ("wf-a", "wf-b"):
        log = effects(tmp_path, workflow)
        assert (tmp_path / f"{workflow}.answer").read_text() == ANSWER
        assert len([line for line in log if line.startswith("model")]) == 2
        assert log.count("lookup") == 1
        assert log.count("charge end") == 1
    from agentcore_postgres import PostgresHistoryStore

    store = PostgresHistoryStore(url)
    try:
        for workflow in ("wf-a", "wf-b"):
            stored = anyio.run(store.load, f"session-{workflow}")
            assert [m.role for m in stored] == ["user", "assistant", "tool", "assistant"]
    finally:
        store.close()
