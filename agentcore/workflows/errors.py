"""The workflow errors.

::

    AgentcoreError
    ├── WorkflowError                        base of the workflow errors
    │   ├── WorkflowBuildError (ValueError)  the definition is invalid (every problem listed)
    │   ├── WorkflowTypeError (TypeError)    a type does not fit: at build, or at send / request
    │   ├── ExecutorFailedError              a handler raised; the original is ``__cause__``
    │   │   └── ExecutorTimeoutError (TimeoutError)
    │   ├── WorkflowConvergenceError         ``max_supersteps`` reached with messages pending
    │   ├── WorkflowStalledError             a strict fan-in can no longer complete
    │   ├── SharedStateConflictError         two writes to an unmerged key in one superstep
    │   └── CheckpointError                  a checkpoint cannot be read or written
    │       └── CheckpointIncompatibleError  a checkpoint does not fit this definition
    └── RunStateError (kernel)
        └── UnknownRequestError              a response answers no pending request

Every error that ends a run carries the run's state as ``checkpoint`` (a
:class:`~agentcore.workflows.WorkflowCheckpoint`), so the run can be resumed from it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from agentcore.errors import AgentcoreError, RunStateError

if TYPE_CHECKING:
    from agentcore.workflows._value import WorkflowCheckpoint

__all__ = [
    "CheckpointError",
    "CheckpointIncompatibleError",
    "ExecutorFailedError",
    "ExecutorTimeoutError",
    "SharedStateConflictError",
    "UnknownRequestError",
    "WorkflowBuildError",
    "WorkflowBuildWarning",
    "WorkflowConvergenceError",
    "WorkflowError",
    "WorkflowStalledError",
    "WorkflowTypeError",
]


class WorkflowError(AgentcoreError):
    """Base class of the workflow errors."""


class WorkflowBuildError(WorkflowError, ValueError):
    """The definition is invalid. ``problems`` lists every problem found, one a line."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems: tuple[str, ...] = tuple(problems)
        if len(self.problems) == 1:
            text = self.problems[0]
        else:
            text = f"{len(self.problems)} problems:\n" + "\n".join(f"- {p}" for p in self.problems)
        super().__init__(text)


class WorkflowBuildWarning(UserWarning):
    """The definition builds but looks wrong (a cycle that can never reach a final
    output, for one); ``build()`` warns with it."""


class WorkflowTypeError(WorkflowError, TypeError):
    """A type does not fit: at build, or at ``send`` / ``request`` / ``set_state``."""


class _RunError(WorkflowError):
    """An error that ended a run; the run resumes from ``checkpoint``."""

    run_id: str
    superstep: int
    checkpoint: WorkflowCheckpoint | None

    @property
    def checkpoint_id(self) -> str | None:
        """The id of the checkpoint the run resumes from (``None`` when none was taken)."""
        return None if self.checkpoint is None else self.checkpoint.checkpoint_id


class ExecutorFailedError(_RunError):
    """A handler raised (or routing its messages did). The original is ``__cause__``."""

    def __init__(
        self,
        message: str,
        *,
        executor_id: str,
        run_id: str,
        superstep: int,
        checkpoint: WorkflowCheckpoint | None = None,
    ) -> None:
        super().__init__(message)
        self.executor_id = executor_id
        self.run_id = run_id
        self.superstep = superstep
        self.checkpoint = checkpoint


class ExecutorTimeoutError(ExecutorFailedError, TimeoutError):
    """An invocation ran longer than its node's ``timeout``."""


class WorkflowConvergenceError(_RunError):
    """``max_supersteps`` was reached with messages still pending.

    ``pending`` counts the waiting messages per target executor. The run is
    resumable with a higher limit: ``workflow.run(checkpoint=error.checkpoint,
    max_supersteps=...)``.
    """

    def __init__(
        self,
        *,
        run_id: str,
        superstep: int,
        max_supersteps: int,
        pending: Mapping[str, int],
        checkpoint: WorkflowCheckpoint | None = None,
    ) -> None:
        waiting = ", ".join(f"{k}: {v}" for k, v in pending.items())
        super().__init__(
            f"run {run_id!r} did not converge within {max_supersteps} supersteps "
            f"(messages still pending for {waiting}); resume it with a higher "
            f"max_supersteps, or check the loop's exit condition"
        )
        self.run_id = run_id
        self.superstep = superstep
        self.max_supersteps = max_supersteps
        self.pending: dict[str, int] = dict(pending)
        self.checkpoint = checkpoint


class WorkflowStalledError(_RunError):
    """A strict fan-in (``require="each_source"``) can no longer hear from every source."""

    def __init__(
        self,
        *,
        group: str,
        target: str,
        missing_sources: Sequence[str],
        run_id: str,
        superstep: int,
        checkpoint: WorkflowCheckpoint | None = None,
    ) -> None:
        super().__init__(
            f"fan-in {group} into {target!r} cannot complete: {', '.join(missing_sources)} "
            f"sent nothing and nothing is left that could make them send; use "
            f'require="quiescent" to join whatever arrived'
        )
        self.group = group
        self.target = target
        self.missing_sources: tuple[str, ...] = tuple(missing_sources)
        self.run_id = run_id
        self.superstep = superstep
        self.checkpoint = checkpoint


class SharedStateConflictError(WorkflowError):
    """Two invocations of one superstep wrote one shared key that has no merge function."""


class CheckpointError(WorkflowError):
    """A checkpoint cannot be read or written."""


class CheckpointIncompatibleError(CheckpointError):
    """A checkpoint does not fit this definition; ``problems`` lists why."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems: tuple[str, ...] = tuple(problems)
        super().__init__(
            "the checkpoint does not fit this workflow definition:\n"
            + "\n".join(f"- {p}" for p in self.problems)
        )


class UnknownRequestError(RunStateError):
    """A response answers no pending request (unknown, already answered or cancelled)."""

    def __init__(self, request_id: str, pending: Sequence[str]) -> None:
        listed = ", ".join(pending) if pending else "none"
        super().__init__(
            f"no pending request has id {request_id!r} (it is unknown, already answered or "
            f"cancelled); pending requests: {listed}. Nothing was run."
        )
        self.request_id = request_id
        self.pending: tuple[str, ...] = tuple(pending)
