"""Audit logging: one hash-chained JSON Lines record per run, model call and tool call.

Each record carries ``prev_hash`` (the ``hash`` of the record before it) and ``hash``
(the SHA-256 of the record's canonical JSON, ``prev_hash`` included), so editing,
inserting or deleting a line breaks the chain and :func:`verify_audit_log` names the
first bad line. Cutting lines off the *end* leaves a valid chain: anchor
:attr:`AuditLogger.last_hash` somewhere else and pass it as ``expected_last_hash``
to detect that too.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

import anyio
import anyio.to_thread
import attrs

from agentcore import (
    AgentContext,
    AgentResponse,
    ChatContext,
    ChatResponse,
    FunctionInvocationContext,
    Message,
    MiddlewareTermination,
    ResponseStream,
    StreamEnd,
    Usage,
)
from agentcore.errors import AgentcoreError

__all__ = [
    "GENESIS_HASH",
    "AuditLogger",
    "AuditWriteError",
    "VerifyResult",
    "verify_audit_log",
]

GENESIS_HASH = "0" * 64
"""The ``prev_hash`` of the first record of a log."""

Redactor = Callable[[dict[str, Any]], dict[str, Any]]
Outcome = Literal["ok", "error", "terminated", "cancelled"]

_logger = logging.getLogger("agentcore_contrib.audit")


class AuditWriteError(AgentcoreError):
    """An audit record could not be written (or redacted); the run fails with it
    unless the logger was made with ``fail_open=True``."""


def canonical_json(value: Any) -> str:
    """The one JSON spelling the hashes are computed over (sorted keys, no spaces)."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def _digest(body: dict[str, Any]) -> str:
    return hashlib.sha256(canonical_json(body).encode("utf-8")).hexdigest()


def _last_line(path: Path) -> str | None:
    """The last non-empty line of ``path`` (read backwards, so big logs stay cheap)."""
    if not path.exists():
        return None
    with path.open("rb") as handle:
        handle.seek(0, os.SEEK_END)
        end = handle.tell()
        buffer = b""
        position = end
        while position > 0:
            step = min(4096, position)
            position -= step
            handle.seek(position)
            buffer = handle.read(step) + buffer
            stripped = buffer.rstrip(b"\r\n")
            if b"\n" in stripped:
                return stripped.rsplit(b"\n", 1)[1].decode("utf-8")
        stripped = buffer.rstrip(b"\r\n")
        return stripped.decode("utf-8") if stripped else None


class _ChainWriter:
    """Appends records to one file, keeping the hash chain linear across threads."""

    def __init__(self, path: Path, fsync: bool) -> None:
        self.path = path
        self.fsync = fsync
        self.lock = threading.Lock()
        self.last_hash: str | None = None
        self.seq = 0
        self.loaded = False

    def _resume(self) -> None:
        line = _last_line(self.path)
        if line is None:
            self.last_hash, self.seq = GENESIS_HASH, 0
        else:
            try:
                record = json.loads(line)
                self.last_hash = str(record["hash"])
                self.seq = int(record["seq"])
            except (ValueError, KeyError, TypeError) as exc:
                raise AuditWriteError(
                    f"cannot continue the audit chain of {self.path}: its last line is not an "
                    f"audit record ({exc}); check it with verify_audit_log() or start a new file"
                ) from exc
        self.loaded = True

    def append(self, record: dict[str, Any]) -> str:
        with self.lock:
            if not self.loaded:
                self._resume()
            body = json.loads(canonical_json(record))  # normalizes keys and values once
            body["seq"] = self.seq + 1
            body["prev_hash"] = self.last_hash
            body["hash"] = digest = _digest(body)
            line = canonical_json(body) + "\n"
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(line)
                handle.flush()
                if self.fsync:
                    os.fsync(handle.fileno())
            self.last_hash = digest
            self.seq += 1
            return digest


def _now_iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, tz=timezone.utc).isoformat()


def _usage(usage: Usage | None) -> dict[str, int] | None:
    if usage is None:
        return None
    return {k: v for k, v in attrs.asdict(usage).items() if v is not None}


def _error_type(exc: BaseException) -> str:
    cls = type(exc)
    module = cls.__module__
    return cls.__qualname__ if module == "builtins" else f"{module}.{cls.__qualname__}"


def _messages_view(messages: Iterable[Message]) -> list[dict[str, str]]:
    return [{"role": m.role, "text": m.text} for m in messages]


def _scalars(metadata: dict[str, Any]) -> dict[str, Any] | None:
    """What inner middleware noted in ``context.metadata`` (cache hits, retry attempts)."""
    kept = {
        k: v
        for k, v in metadata.items()
        if k != "audit_call_id" and (v is None or isinstance(v, (str, int, float, bool)))
    }
    return kept or None


def _json_safe(value: Any) -> Any:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)
    return value


def _outcome_of(error: BaseException | None) -> tuple[Outcome, dict[str, str] | None]:
    if error is None:
        return "ok", None
    if isinstance(error, MiddlewareTermination):
        return "terminated", {"type": "MiddlewareTermination", "message": error.message}
    if isinstance(error, (GeneratorExit, anyio.get_cancelled_exc_class())):
        return "cancelled", None
    return "error", {"type": _error_type(error), "message": str(error)}


class AuditLogger:
    """Writes a tamper-evident JSON Lines audit trail of runs, model calls and tool calls.

    Give all three scopes to an agent with ``Agent(..., middleware=audit.middleware)``
    (or pick ``audit.agent`` / ``audit.chat`` / ``audit.function``). Records are
    written in a worker thread and chained under a lock, so concurrent runs keep one
    linear chain. ``redact(record) -> record`` runs before hashing. A failed write (or a
    failing ``redact``) raises :class:`AuditWriteError` and fails the run, unless
    ``fail_open=True`` (then it logs a warning). Use one logger per file.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        redact: Redactor | None = None,
        fail_open: bool = False,
        record_content: bool = False,
        clock: Callable[[], float] = time.time,
        fsync: bool = False,
    ) -> None:
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"AuditLogger needs a file path, got {type(path).__name__}")
        if redact is not None and not callable(redact):
            raise TypeError("redact must be a callable taking and returning a record dict")
        if not callable(clock):
            raise TypeError("clock must be a callable returning seconds as a float")
        self.path: Path = Path(path)
        if self.path.is_dir():
            raise ValueError(f"the audit log path {self.path} is a directory; give a file path")
        self.redact = redact
        self.fail_open = fail_open
        self.record_content = record_content
        self.clock = clock
        self._writer = _ChainWriter(self.path, fsync)
        self._failures: dict[str, AuditWriteError] = {}
        self.agent: AgentAudit = AgentAudit(self)
        self.chat: ChatAudit = ChatAudit(self)
        self.function: FunctionAudit = FunctionAudit(self)
        self.middleware: tuple[AgentAudit, ChatAudit, FunctionAudit] = (
            self.agent,
            self.chat,
            self.function,
        )

    @property
    def last_hash(self) -> str | None:
        """The hash of the last record this logger wrote (``None`` before the first)."""
        return self._writer.last_hash if self._writer.loaded else None

    async def write(self, record: dict[str, Any]) -> None:
        """Redact, chain and append one record (what the three scopes call)."""
        try:
            if self.redact is not None:
                record = self.redact(dict(record))
                if not isinstance(record, dict):
                    raise TypeError(
                        f"redact must return the record dict, got {type(record).__name__}"
                    )
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(self._writer.append, record)
        except Exception as exc:
            error = (
                exc
                if isinstance(exc, AuditWriteError)
                else AuditWriteError(f"could not write an audit record to {self.path}: {exc!r}")
            )
            if self.fail_open:
                _logger.warning("audit record dropped (fail_open=True): %s", error)
                return
            if error is not exc:
                raise error from exc
            raise

    def _start(self, kind: str, run_id: str) -> dict[str, Any]:
        return {"v": 1, "kind": kind, "run_id": run_id, "started": self.clock()}

    async def _finish(
        self, record: dict[str, Any], error: BaseException | None, **fields: Any
    ) -> None:
        started = float(record.pop("started"))
        ended = self.clock()
        outcome, detail = _outcome_of(error)
        record.update(
            started_at=_now_iso(started),
            ended_at=_now_iso(ended),
            duration_ms=round((ended - started) * 1000.0, 3),
            outcome=outcome,
            error=detail,
            **fields,
        )
        if outcome != "cancelled":
            await self.write(record)
            return
        try:
            await self.write(record)
        except AuditWriteError as exc:  # never replace a cancellation with another error
            _logger.error("audit record of a cancelled %s was lost: %s", record["kind"], exc)

    def _raise_pending(self, run_id: str) -> None:
        failure = self._failures.pop(run_id, None)
        if failure is not None:
            raise failure


class AgentAudit:
    """The run-scope part of an :class:`AuditLogger`: one ``run`` record per run."""

    def __init__(self, logger: AuditLogger) -> None:
        self.logger = logger

    async def process(
        self, context: AgentContext, call_next: Callable[[], Awaitable[None]]
    ) -> None:
        logger = self.logger
        run_id = context.run.run_id
        record = logger._start("run", run_id)
        record["agent"] = context.agent.name
        record["stream"] = context.stream
        if logger.record_content:
            record["input"] = _messages_view(context.messages)
        try:
            await call_next()
        except BaseException as exc:
            logger._failures.pop(run_id, None)
            await logger._finish(record, exc)
            raise
        result = context.result
        if isinstance(result, ResponseStream):

            async def on_end(end: StreamEnd[AgentResponse[Any]]) -> None:
                await self._end(record, run_id, end.final, end.error)

            context.result = result.on_end(on_end)
        else:
            await self._end(record, run_id, result, None)

    async def _end(
        self,
        record: dict[str, Any],
        run_id: str,
        response: AgentResponse[Any] | None,
        error: BaseException | None,
    ) -> None:
        logger = self.logger
        pending = logger._failures.pop(run_id, None)
        fields: dict[str, Any] = {}
        if response is not None:
            fields["usage"] = _usage(response.usage)
            fields["finish_reason"] = response.finish_reason
            if logger.record_content:
                fields["output"] = response.text
        await logger._finish(record, error, **fields)
        if pending is not None:
            raise pending


class ChatAudit:
    """The model-call part of an :class:`AuditLogger`: one ``model_call`` record each."""

    def __init__(self, logger: AuditLogger) -> None:
        self.logger = logger

    async def process(self, context: ChatContext, call_next: Callable[[], Awaitable[None]]) -> None:
        logger = self.logger
        run_id = context.run.run_id
        logger._raise_pending(run_id)
        record = logger._start("model_call", run_id)
        record["call_id"] = context.metadata.setdefault("audit_call_id", uuid.uuid4().hex)
        record["request_model"] = context.options.get("model") or getattr(
            context.client, "model", None
        )
        record["stream"] = context.stream
        record["message_count"] = len(context.messages)
        if logger.record_content:
            record["input"] = _messages_view(context.messages)
        try:
            await call_next()
        except BaseException as exc:
            await logger._finish(record, exc, metadata=_scalars(context.metadata))
            raise
        result = context.result
        metadata = context.metadata
        if isinstance(result, ResponseStream):

            async def on_end(end: StreamEnd[ChatResponse[Any]]) -> None:
                await self._end(record, metadata, end.final, end.error)

            context.result = result.on_end(on_end)
        else:
            await self._end(record, metadata, result, None)

    async def _end(
        self,
        record: dict[str, Any],
        metadata: dict[str, Any],
        response: ChatResponse[Any] | None,
        error: BaseException | None,
    ) -> None:
        fields: dict[str, Any] = {"metadata": _scalars(metadata)}
        if response is not None:
            fields.update(
                response_id=response.response_id,
                response_model=response.model,
                finish_reason=response.finish_reason,
                usage=_usage(response.usage),
            )
            if self.logger.record_content:
                fields["output"] = response.text
        await self.logger._finish(record, error, **fields)


class FunctionAudit:
    """The tool-call part of an :class:`AuditLogger`: one ``tool_call`` record each.

    A failed write here cannot fail the run directly (the tool loop turns tool-call
    exceptions into error results), so the next model call or the run's end raises it.
    """

    def __init__(self, logger: AuditLogger) -> None:
        self.logger = logger

    async def process(
        self, context: FunctionInvocationContext, call_next: Callable[[], Awaitable[None]]
    ) -> None:
        logger = self.logger
        record = logger._start("tool_call", context.run.run_id)
        record["call_id"] = context.call_id
        record["tool"] = context.function.name
        if logger.record_content:
            record["arguments"] = _json_safe(context.arguments)
        error: BaseException | None = None
        try:
            await call_next()
        except BaseException as exc:
            error = exc
            raise
        finally:
            fields: dict[str, Any] = {"metadata": _scalars(context.metadata)}
            if error is None and logger.record_content:
                fields["result"] = _json_safe(context.result)
            try:
                await logger._finish(record, error, **fields)
            except AuditWriteError as exc:
                # The loop turns tool-call exceptions into error results, so the next
                # model call (or the run's end) raises this instead.
                logger._failures[context.run.run_id] = exc
                if error is None:
                    raise


@attrs.frozen
class VerifyResult:
    """What :func:`verify_audit_log` found.

    ``first_bad_line`` is 1-based; ``records`` counts the records that checked out
    before it (all of them when ``ok``).
    """

    ok: bool
    records: int
    first_bad_line: int | None = None
    reason: str | None = None
    last_hash: str | None = None

    def __bool__(self) -> bool:
        return self.ok


def verify_audit_log(
    path: str | os.PathLike[str], *, expected_last_hash: str | None = None
) -> VerifyResult:
    """Check every record's hash and its link to the record before it.

    ``expected_last_hash`` (a value of :attr:`AuditLogger.last_hash` kept elsewhere)
    also catches records cut off the end of the file.
    """
    previous = GENESIS_HASH
    count = 0
    line_number = 0
    with Path(path).open(encoding="utf-8") as handle:
        for line_number, raw in enumerate(handle, start=1):
            problem = _check_line(raw.rstrip("\r\n"), previous, count + 1)
            if isinstance(problem, str):
                return VerifyResult(False, count, line_number, problem, previous)
            previous = problem[0]
            count += 1
    if expected_last_hash is not None and previous != expected_last_hash:
        return VerifyResult(
            False,
            count,
            line_number + 1,
            "the log ends before the expected last record (lines were removed from the end)",
            previous,
        )
    return VerifyResult(True, count, None, None, previous)


def _check_line(line: str, previous: str, seq: int) -> tuple[str] | str:
    """``(hash,)`` of a good record, or what is wrong with it."""
    try:
        record = json.loads(line)
    except ValueError:
        return "not a JSON record"
    if not isinstance(record, dict):
        return "not a JSON object"
    body: dict[str, Any] = dict(record)  # pyright: ignore[reportUnknownArgumentType]  # isinstance on a generic
    claimed = body.pop("hash", None)
    if body.get("prev_hash") != previous:
        return "prev_hash does not match the hash of the record before it"
    if body.get("seq") != seq:
        return f"seq is {body.get('seq')!r}, expected {seq}"
    if claimed != _digest(body):
        return "hash does not match the record's content"
    return (str(claimed),)
