"""The DBOS engine behind :mod:`agentcore.durable`, and the helpers around it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, TypeVar, cast

from dbos import DBOS, DBOSConfig, DBOSPortableJSONSerializer, StepOptions, StepReservation
from dbos import error as dbos_error

from agentcore import (
    Agent,
    AgentResponse,
    AgentSession,
    FunctionApprovalRequestContent,
    FunctionApprovalResponseContent,
    UserInputRequestContent,
    UserInputResponseContent,
    durable,
)
from agentcore.durable import JSON, StepPolicy, StepSlot
from agentcore.protocols import AgentInput

__all__ = [
    "DBOSEngine",
    "dbos_agent",
    "dbos_config",
    "pending_requests",
    "run_until_answered",
    "send_decisions",
]

DepsT = TypeVar("DepsT")
_NO_DEPS: Any = object()  # run_until_answered(deps=...) not given

_FOREVER = 10 * 365 * 24 * 3600.0  # DBOS waits take a timeout; "no limit" is ten years


def _options(name: str, policy: StepPolicy | None) -> StepOptions:
    if policy is None or policy.max_attempts <= 1:
        return {"name": name, "retries_allowed": False}
    return {
        "name": name,
        "retries_allowed": True,
        "max_attempts": policy.max_attempts,
        "interval_seconds": policy.backoff,
        "backoff_rate": policy.backoff_rate,
    }


class _Slot:
    """A DBOS step id drawn ahead (``DBOS.reserve_step``)."""

    __slots__ = ("_reservation",)

    def __init__(self, reservation: StepReservation) -> None:
        self._reservation = reservation

    async def step(
        self, name: str, body: Callable[[], Awaitable[JSON]], *, policy: StepPolicy | None = None
    ) -> JSON:
        return await self._reservation.run_async(_options(name, policy), body)


class DBOSEngine:
    """:class:`agentcore.durable.DurableEngine` over DBOS's class API.

    Steps are ``DBOS.run_step_async``, reservations ``DBOS.reserve_step``, messages
    ``DBOS.recv_async`` and events ``DBOS.set_event_async``. DBOS must be configured
    and launched in the process (``DBOS(config=dbos_config(...))``, ``DBOS.launch()``).
    """

    name = "dbos"
    errors: tuple[type[BaseException], ...] = (
        dbos_error.DBOSException,
        dbos_error.DBOSBaseException,
    )

    def active(self) -> bool:
        return DBOS.workflow_id is not None and DBOS.step_id is None

    def new_run_key(self) -> str:
        # A step id of its own: unique in the workflow, and the same on replay.
        return f"{DBOS.workflow_id}.{DBOS.reserve_step().step_id}"

    async def step(
        self, name: str, body: Callable[[], Awaitable[JSON]], *, policy: StepPolicy | None = None
    ) -> JSON:
        return await DBOS.run_step_async(_options(name, policy), body)

    def reserve(self, count: int) -> Sequence[StepSlot]:
        return [_Slot(DBOS.reserve_step()) for _ in range(count)]

    async def receive(self, topic: str, *, wait: float | None = None) -> JSON | None:
        return await DBOS.recv_async(topic, timeout_seconds=_FOREVER if wait is None else wait)

    async def publish(self, key: str, value: JSON) -> None:
        await DBOS.set_event_async(key, value)


_ENGINE = DBOSEngine()


def dbos_config(
    name: str,
    *,
    database_url: str | None = None,
    application_version: str = "1",
    **options: Any,
) -> DBOSConfig:
    """A DBOS configuration for durable agents.

    ``database_url`` defaults to a SQLite file ``<name>.sqlite`` in the working
    directory (no server to start); give a ``postgresql://`` URL to share one
    database between several workers. Payloads are stored with DBOS's portable
    JSON serializer (never pickle). ``application_version`` is pinned, so a worker
    restarted with new code still recovers the runs in flight: change it only when
    the steps of a run change (see the durable runs guide). Other DBOS settings pass
    through ``options``.
    """
    config: dict[str, Any] = {
        "name": name,
        "system_database_url": database_url or f"sqlite:///{name}.sqlite",
        "serializer": DBOSPortableJSONSerializer(),
        "application_version": application_version,
        **options,
    }
    return cast("DBOSConfig", config)  # extra keys are checked by DBOS at launch


def dbos_agent(
    agent: Agent[DepsT],
    *,
    name: str | None = None,
    model_policy: StepPolicy | None = None,
    tool_policies: Mapping[str, StepPolicy] | None = None,
) -> Agent[DepsT]:
    """``agent`` made durable on DBOS: run it inside a ``@DBOS.workflow`` function.

    Its model calls, tool calls and history load/append are DBOS steps named
    ``<name>.model``, ``<name>.tool.<tool>``, ``<name>.history.load`` and
    ``<name>.history.append`` (``name`` defaults to the agent's name). Run outside a
    workflow, or on trio, it raises ``DurableExecutionError``.
    """
    return durable.durable_agent(
        agent, _ENGINE, name=name, model_policy=model_policy, tool_policies=tool_policies
    )


async def run_until_answered(
    agent: Agent[DepsT],
    messages: AgentInput | None = None,
    *,
    session: AgentSession,
    wait: float | None = None,
    deps: DepsT = _NO_DEPS,
) -> AgentResponse[Any]:
    """From a workflow: run ``agent`` (a :func:`dbos_agent`) until it answers, waiting
    durably for decisions whenever it pauses, each run with ``deps`` when given (never
    recorded by DBOS); see :func:`agentcore.durable.run_until_answered`."""
    if deps is _NO_DEPS:
        return await durable.run_until_answered(
            agent, _ENGINE, messages, session=session, wait=wait
        )
    return await durable.run_until_answered(
        agent, _ENGINE, messages, session=session, wait=wait, deps=deps
    )


async def pending_requests(
    workflow_id: str, *, wait: float = 60.0
) -> list[FunctionApprovalRequestContent | UserInputRequestContent]:
    """The approval and input requests the run in ``workflow_id`` waits on (empty once
    it needs nothing). Waits up to ``wait`` seconds for the run to publish them."""
    durable.require_asyncio()
    value = await DBOS.get_event_async(workflow_id, durable.PENDING_KEY, timeout_seconds=wait)
    return durable.decode_requests(value)


async def send_decisions(
    workflow_id: str,
    decisions: Sequence[FunctionApprovalResponseContent | UserInputResponseContent],
) -> None:
    """Send decisions to the run in ``workflow_id`` (it may be waiting since before a
    restart: request ids are the same after recovery)."""
    durable.require_asyncio()
    await DBOS.send_async(
        workflow_id, durable.encode_decisions(decisions), topic=durable.DECISIONS_TOPIC
    )
