"""AuditLogger: one chained record per run, model call and tool call; verify finds tampering."""

from __future__ import annotations

import contextlib
import json
import logging
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from agentcore_contrib.audit import (
    GENESIS_HASH,
    AuditLogger,
    AuditWriteError,
    verify_audit_log,
)

from agentcore import (
    Agent,
    AgentContext,
    ChatContext,
    ChatResponse,
    FunctionCallContent,
    Message,
    MiddlewareTermination,
    ResponseStream,
    RunContext,
    Usage,
    agent_middleware,
    tool,
)
from agentcore.errors import TransientError
from agentcore.testing import ScriptedChatClient

pytestmark = pytest.mark.anyio

DOCS = Path(__file__).resolve().parents[2] / "docs" / "middleware" / "audit.md"


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool
def explode() -> str:
    """Always fails."""
    raise RuntimeError("boom")


def call(name: str, arguments: str = "{}", call_id: str = "c1") -> ChatResponse[None]:
    return ChatResponse(
        messages=(Message("assistant", (FunctionCallContent(call_id, name, arguments),)),),
        finish_reason="tool_calls",
        usage=Usage(input_tokens=10, output_tokens=2),
    )


def answer(text: str) -> ChatResponse[None]:
    return ChatResponse(
        messages=(Message("assistant", text),),
        finish_reason="stop",
        usage=Usage(input_tokens=12, output_tokens=5),
        model="m-1",
        response_id="r-2",
    )


class StepClock:
    """A clock that advances one second each time it is read."""

    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def read_lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def write_lines(path: Path, lines: list[str]) -> None:
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")


def remove(folder: Path) -> None:
    folder.rmdir()


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in read_lines(path)]


async def run(agent: Agent, stream: bool, prompt: str = "hi") -> Any:
    if stream:
        async with agent.run(prompt, stream=True) as updates:
            async for _ in updates:
                pass
            return await updates.get_final_response()
    return await agent.run(prompt)


@pytest.fixture
def log_path(tmp_path: Path) -> Path:
    return tmp_path / "audit.jsonl"


@pytest.mark.parametrize("stream", [False, True])
async def test_writes_one_record_per_run_model_call_and_tool_call(
    log_path: Path, stream: bool
) -> None:
    audit = AuditLogger(log_path)
    client = ScriptedChatClient([call("add", '{"a": 1, "b": 2}'), answer("3")])
    agent = Agent(client, name="calc", tools=[add], middleware=audit.middleware)
    await run(agent, stream)
    kinds = [r["kind"] for r in records(log_path)]
    assert kinds == ["model_call", "tool_call", "model_call", "run"]


@pytest.mark.parametrize("stream", [False, True])
async def test_records_share_the_run_id_and_carry_call_ids(log_path: Path, stream: bool) -> None:
    audit = AuditLogger(log_path)
    client = ScriptedChatClient([call("add", '{"a": 1, "b": 2}', call_id="t-9"), answer("3")])
    agent = Agent(client, name="calc", tools=[add], middleware=audit.middleware)
    await run(agent, stream)
    got = records(log_path)
    assert len({r["run_id"] for r in got}) == 1
    assert got[1]["call_id"] == "t-9"
    assert got[1]["tool"] == "add"
    model_ids = {got[0]["call_id"], got[2]["call_id"]}
    assert len(model_ids) == 2
    assert got[3]["agent"] == "calc"


@pytest.mark.parametrize("stream", [False, True])
async def test_run_and_model_records_carry_usage(log_path: Path, stream: bool) -> None:
    audit = AuditLogger(log_path)
    client = ScriptedChatClient([call("add", '{"a": 1, "b": 2}'), answer("3")])
    agent = Agent(client, tools=[add], middleware=audit.middleware)
    await run(agent, stream)
    got = records(log_path)
    assert got[2]["usage"] == {"input_tokens": 12, "output_tokens": 5}
    assert got[3]["usage"] == {"input_tokens": 22, "output_tokens": 7}


async def test_timing_comes_from_the_injected_clock(log_path: Path) -> None:
    audit = AuditLogger(log_path, clock=StepClock())
    agent = Agent(ScriptedChatClient([answer("hello")]), middleware=audit.middleware)
    await agent.run("hi")
    model_call, run_record = records(log_path)
    assert model_call["duration_ms"] == 1000.0
    assert run_record["duration_ms"] == 3000.0
    assert run_record["started_at"] == "2023-11-14T22:13:21+00:00"


async def test_a_failing_model_call_records_the_error_type(log_path: Path) -> None:
    audit = AuditLogger(log_path)
    agent = Agent(ScriptedChatClient([TransientError("down")]), middleware=audit.middleware)
    with pytest.raises(TransientError):
        await agent.run("hi")
    model_call, run_record = records(log_path)
    assert model_call["outcome"] == "error"
    assert model_call["error"] == {"type": "agentcore.errors.TransientError", "message": "down"}
    assert run_record["outcome"] == "error"


async def test_a_failing_tool_records_an_error_outcome(log_path: Path) -> None:
    audit = AuditLogger(log_path)
    client = ScriptedChatClient([call("explode"), answer("sorry")])
    agent = Agent(client, tools=[explode], middleware=audit.middleware)
    await agent.run("hi")
    tool_record = records(log_path)[1]
    assert tool_record["outcome"] == "error"
    assert tool_record["error"] == {"type": "RuntimeError", "message": "boom"}


async def test_a_termination_is_recorded_as_terminated(log_path: Path) -> None:
    @agent_middleware
    async def stop(context: AgentContext, call_next: Callable[[], Awaitable[None]]) -> None:
        raise MiddlewareTermination("not today", result="stopped")

    audit = AuditLogger(log_path)
    agent = Agent(ScriptedChatClient([]), middleware=[audit.agent, stop])
    response = await agent.run("hi")
    assert response.text == "stopped"
    (run_record,) = records(log_path)
    assert run_record["outcome"] == "terminated"
    assert run_record["error"]["message"] == "not today"


async def test_content_is_left_out_unless_asked_for(log_path: Path) -> None:
    audit = AuditLogger(log_path)
    client = ScriptedChatClient([call("add", '{"a": 1, "b": 2}'), answer("secret 3")])
    await Agent(client, tools=[add], middleware=audit.middleware).run("my secret")
    assert "secret" not in "".join(read_lines(log_path))


async def test_record_content_keeps_inputs_outputs_arguments_and_results(log_path: Path) -> None:
    audit = AuditLogger(log_path, record_content=True)
    client = ScriptedChatClient([call("add", '{"a": 1, "b": 2}'), answer("it is 3")])
    await Agent(client, tools=[add], middleware=audit.middleware).run("add 1 and 2")
    got = records(log_path)
    assert got[1]["arguments"] == {"a": 1, "b": 2}
    assert got[1]["result"] == 3
    assert got[3]["input"] == [{"role": "user", "text": "add 1 and 2"}]
    assert got[3]["output"] == "it is 3"


async def test_redaction_runs_before_hashing(log_path: Path) -> None:
    def redact(record: dict[str, Any]) -> dict[str, Any]:
        if "output" in record:
            record["output"] = "[redacted]"
        return record

    audit = AuditLogger(log_path, record_content=True, redact=redact)
    await Agent(ScriptedChatClient([answer("card 4111")]), middleware=audit.middleware).run("x")
    # the answer's text, not its digits alone: a record's hash is hex and may hold 4111
    assert "card 4111" not in "".join(read_lines(log_path))
    assert verify_audit_log(log_path).ok


async def test_a_redactor_that_returns_no_dict_fails_the_run(log_path: Path) -> None:
    audit = AuditLogger(log_path, redact=lambda record: None)  # type: ignore[arg-type,return-value]  # the wrong type is the point of the test
    agent = Agent(ScriptedChatClient([answer("x")]), middleware=audit.middleware)
    with pytest.raises(AuditWriteError, match="redact must return the record dict"):
        await agent.run("hi")


async def test_records_are_hash_chained_from_the_genesis_hash(log_path: Path) -> None:
    audit = AuditLogger(log_path)
    client = ScriptedChatClient([call("add", '{"a": 1, "b": 2}'), answer("3")])
    await Agent(client, tools=[add], middleware=audit.middleware).run("hi")
    got = records(log_path)
    assert got[0]["prev_hash"] == GENESIS_HASH
    assert [r["prev_hash"] for r in got[1:]] == [r["hash"] for r in got[:-1]]
    assert [r["seq"] for r in got] == [1, 2, 3, 4]
    assert audit.last_hash == got[-1]["hash"]


async def test_verify_accepts_an_untouched_log(log_path: Path) -> None:
    audit = AuditLogger(log_path)
    client = ScriptedChatClient([call("add", '{"a": 1, "b": 2}'), answer("3")])
    await Agent(client, tools=[add], middleware=audit.middleware).run("hi")
    result = verify_audit_log(log_path, expected_last_hash=audit.last_hash)
    assert result.ok
    assert result.records == 4
    assert result.first_bad_line is None


async def _four_records(log_path: Path) -> AuditLogger:
    audit = AuditLogger(log_path)
    client = ScriptedChatClient([call("add", '{"a": 1, "b": 2}'), answer("3")])
    await Agent(client, tools=[add], middleware=audit.middleware).run("hi")
    return audit


async def test_verify_reports_the_first_edited_line(log_path: Path) -> None:
    await _four_records(log_path)
    lines = read_lines(log_path)
    lines[2] = lines[2].replace('"outcome":"ok"', '"outcome":"error"')
    write_lines(log_path, lines)
    result = verify_audit_log(log_path)
    assert not result.ok
    assert result.first_bad_line == 3
    assert result.records == 2
    assert result.reason == "hash does not match the record's content"


async def test_verify_reports_a_deleted_line(log_path: Path) -> None:
    await _four_records(log_path)
    lines = read_lines(log_path)
    del lines[1]
    write_lines(log_path, lines)
    result = verify_audit_log(log_path)
    assert result.first_bad_line == 2
    assert result.reason is not None
    assert "prev_hash" in result.reason


async def test_verify_reports_a_line_that_is_not_json(log_path: Path) -> None:
    await _four_records(log_path)
    write_lines(log_path, [*read_lines(log_path), "{not json"])
    result = verify_audit_log(log_path)
    assert (result.ok, result.first_bad_line, result.reason) == (False, 5, "not a JSON record")


async def test_verify_with_the_anchored_hash_catches_truncation(log_path: Path) -> None:
    audit = await _four_records(log_path)
    lines = read_lines(log_path)
    write_lines(log_path, lines[:3])
    assert verify_audit_log(log_path).ok
    result = verify_audit_log(log_path, expected_last_hash=audit.last_hash)
    assert not result.ok
    assert result.first_bad_line == 4


async def test_a_new_logger_continues_the_chain_of_an_existing_log(log_path: Path) -> None:
    await _four_records(log_path)
    await _four_records(log_path)
    result = verify_audit_log(log_path)
    assert result.ok
    assert result.records == 8


async def test_a_corrupt_last_line_stops_a_new_logger_from_continuing(log_path: Path) -> None:
    write_lines(log_path, ["garbage"])
    agent = Agent(ScriptedChatClient([answer("x")]), middleware=AuditLogger(log_path).middleware)
    with pytest.raises(AuditWriteError, match="cannot continue the audit chain"):
        await agent.run("hi")


async def test_concurrent_runs_keep_one_linear_chain(log_path: Path) -> None:
    audit = AuditLogger(log_path)

    async def one() -> None:
        client = ScriptedChatClient([call("add", '{"a": 1, "b": 2}'), answer("3")])
        await Agent(client, tools=[add], middleware=audit.middleware).run("hi")

    async with anyio.create_task_group() as group:
        for _ in range(8):
            group.start_soon(one)
    result = verify_audit_log(log_path)
    assert result.ok
    assert result.records == 32


@pytest.fixture
def unwritable(tmp_path: Path) -> Path:
    """A log path whose parent folder the tests remove after making the logger."""
    folder = tmp_path / "gone"
    folder.mkdir()
    return folder / "audit.jsonl"


@pytest.mark.parametrize("stream", [False, True])
async def test_a_write_failure_fails_the_run(unwritable: Path, stream: bool) -> None:
    audit = AuditLogger(unwritable)
    remove(unwritable.parent)
    agent = Agent(ScriptedChatClient([answer("x")]), middleware=audit.middleware)
    with pytest.raises(AuditWriteError, match="could not write an audit record"):
        await run(agent, stream)


async def test_a_failed_tool_record_fails_the_run_at_the_next_model_call(
    unwritable: Path,
) -> None:
    audit = AuditLogger(unwritable)
    client = ScriptedChatClient([call("add", '{"a": 1, "b": 2}'), answer("3")])
    agent = Agent(client, tools=[add], middleware=[audit.function, audit.chat])
    remove(unwritable.parent)
    with pytest.raises(AuditWriteError):
        await agent.run("hi")
    assert client.remaining == 1  # the second model call never happened


async def test_fail_open_logs_a_warning_and_the_run_goes_on(
    unwritable: Path, caplog: pytest.LogCaptureFixture
) -> None:
    audit = AuditLogger(unwritable, fail_open=True)
    remove(unwritable.parent)
    agent = Agent(ScriptedChatClient([answer("fine")]), middleware=audit.middleware)
    with caplog.at_level(logging.WARNING, logger="agentcore_contrib.audit"):
        response = await agent.run("hi")
    assert response.text == "fine"
    assert any("audit record dropped" in r.getMessage() for r in caplog.records)


async def test_a_stream_left_early_is_recorded_as_cancelled(log_path: Path) -> None:
    # Driven by hand: the kernel's own loop does not close abandoned inner streams yet.
    audit = AuditLogger(log_path)
    client = ScriptedChatClient([answer("a long answer here")])
    context = ChatContext(client=client, messages=[], options={}, stream=True, run=RunContext())

    async def call_next() -> None:
        context.result = client.get_response([], stream=True)

    await audit.chat.process(context, call_next)
    stream = context.result
    assert isinstance(stream, ResponseStream)
    async with contextlib.aclosing(stream.__aiter__()) as updates:
        async for _ in updates:
            break
    (record,) = records(log_path)
    assert record["outcome"] == "cancelled"


def test_a_directory_is_refused_as_the_log_path(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="is a directory"):
        AuditLogger(tmp_path)


def test_a_non_callable_redactor_is_refused(log_path: Path) -> None:
    with pytest.raises(TypeError, match="redact must be a callable"):
        AuditLogger(log_path, redact="yes")  # type: ignore[arg-type]  # the wrong type is the point of the test


async def test_the_docs_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    source = re.search(r"```python\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.DOTALL)
    assert source is not None
    namespace: dict[str, Any] = {"__name__": "docs_example"}
    exec(compile(source.group(1), str(DOCS), "exec"), namespace)
    await namespace["main"]()
    assert capsys.readouterr().out.splitlines() == [
        "['model_call', 'tool_call', 'model_call', 'run']",
        "True 4",
    ]
