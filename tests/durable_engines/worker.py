"""A worker process for the kill tests: one durable agent turn on DBOS.

    python worker.py <scenario> <mode> <database url> <workdir> <workflow id> <executor>

``scenario``: ``tools`` (lookup and charge in parallel), ``approval`` (charge
needs approval) or ``manual`` (as ``tools``, with the agent assembled by hand from
``DurableChatClient`` and ``durable_tool``, no ``dbos_agent``; ``STEP_NAME`` renames
charge's step). ``mode``: ``start`` starts the workflow; ``recover`` relaunches
(DBOS recovers this executor's workflows) and waits; ``adopt`` resumes the
workflow of another (dead) worker; ``approve`` recovers, then sends the
approval for the request shown before the crash. ``KILL_AT`` names the point where
the first process SIGKILLs itself. Effects are appended to ``<workdir>/effects.log``;
the answer is written to ``<workdir>/<workflow id>.answer``, or the error that ended
the run to ``<workdir>/<workflow id>.error``.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from agentcore_dbos import (
    DBOSEngine,
    dbos_agent,
    dbos_config,
    pending_requests,
    run_until_answered,
    send_decisions,
)
from dbos import DBOS, SetWorkflowID, WorkflowHandleAsync

from agentcore import (
    Agent,
    AgentSession,
    ChatResponse,
    FunctionApprovalRequestContent,
    FunctionCallContent,
    FunctionInvocationContext,
    FunctionResultContent,
    Message,
    SqliteHistoryStore,
    tool,
)
from agentcore.durable import DurableChatClient, durable_tool
from agentcore.protocols import HistoryStore
from agentcore.testing import FunctionChatClient
from agentcore.tools import ToolContext

SCENARIO, MODE, URL, WORKDIR, WORKFLOW, EXECUTOR = sys.argv[1:7]
WORK = Path(WORKDIR)
KILL_AT = os.environ.get("KILL_AT", "")


def effect(line: str) -> None:
    with (WORK / "effects.log").open("a") as log:
        log.write(f"{WORKFLOW} {line}\n")


def maybe_die(point: str) -> None:
    marker = WORK / f"{WORKFLOW}.killed-at-{point}"
    if point == KILL_AT and not marker.exists():
        marker.touch()
        os.kill(os.getpid(), signal.SIGKILL)


async def respond(messages: Sequence[Message], options: Any) -> ChatResponse[Any]:
    effect(f"model {len(messages)}")
    if any(m.role == "tool" for m in messages):
        maybe_die("final_model")  # both tools' steps are recorded; this one is not
        answers = [
            c.result for m in messages for c in m.contents if isinstance(c, FunctionResultContent)
        ]
        return ChatResponse(messages=(Message("assistant", f"done: {answers}"),))
    wanted: tuple[FunctionCallContent, ...]
    if SCENARIO == "approval":
        wanted = (FunctionCallContent("c1", "charge", '{"amount": 5}'),)
    else:
        wanted = (
            FunctionCallContent("c1", "lookup", '{"item": "tea"}'),
            FunctionCallContent("c2", "charge", '{"amount": 5}'),
        )
    return ChatResponse(messages=(Message("assistant", wanted),))


@tool
async def lookup(item: str) -> str:
    """Look up a price."""
    effect("lookup")
    return f"{item} 2.2"


@tool(approval_mode="always_require" if SCENARIO == "approval" else "never_require")
async def charge(amount: int, context: ToolContext) -> str:
    """Charge the card."""
    effect(f"charge start {context.idempotency_key}")
    if KILL_AT == "charge":
        # Die only once lookup's step is recorded: a step that finished but was not
        # recorded yet runs again (at-least-once), which is not what this test checks.
        await lookup_recorded().wait()
    maybe_die("charge")
    await asyncio.sleep(0.05)
    effect("charge end")
    return f"charged {amount}"


_lookup_recorded: list[asyncio.Event] = []


def lookup_recorded() -> asyncio.Event:
    if not _lookup_recorded:
        _lookup_recorded.append(asyncio.Event())
    return _lookup_recorded[0]


async def between_model_and_tool(
    context: FunctionInvocationContext, call_next: Callable[[], Awaitable[None]]
) -> None:
    maybe_die("before_tools")  # workflow code: the model step is recorded, no tool ran
    await call_next()
    if context.function.name == "lookup":
        lookup_recorded().set()  # the step returned: DBOS has recorded it


def history() -> HistoryStore:
    if URL.startswith("postgresql"):
        from agentcore_postgres import PostgresHistoryStore

        return PostgresHistoryStore(URL)
    return SqliteHistoryStore(WORK / "history.db")


def by_hand() -> Agent:
    """The durable pieces assembled without ``dbos_agent``, as an application may."""
    engine = DBOSEngine()
    return Agent(
        DurableChatClient(FunctionChatClient(respond), engine, name="cafe"),
        "Sell tea.",
        name="cafe",
        tools=[
            durable_tool(lookup, engine, name="cafe"),
            durable_tool(charge, engine, name=os.environ.get("STEP_NAME", "cafe")),
        ],
    )


AGENT = (
    by_hand()
    if SCENARIO == "manual"
    else dbos_agent(
        Agent(
            FunctionChatClient(respond),
            "Sell tea.",
            name="cafe",
            tools=[lookup, charge],
            middleware=[between_model_and_tool],
            history=history(),
        )
    )
)


@DBOS.workflow(name="agentcore_test.turn")
async def turn(session_id: str, question: str) -> str:
    if SCENARIO == "manual":
        return (await AGENT.run(question)).text
    session = AgentSession(session_id=session_id)
    return (await run_until_answered(AGENT, question, session=session)).text


async def main() -> None:
    db = URL if URL.startswith("postgresql") else f"sqlite:///{WORK / 'dbos.sqlite'}"
    DBOS(config=dbos_config("agentcore_test", database_url=db, executor_id=EXECUTOR))
    DBOS.launch()
    handle: WorkflowHandleAsync[str]
    try:
        if MODE == "start":
            with SetWorkflowID(WORKFLOW):
                handle = await DBOS.start_workflow_async(turn, f"session-{WORKFLOW}", "one tea")
            if SCENARIO == "approval":
                shown = await pending_requests(WORKFLOW)
                (WORK / "shown.json").write_text(json.dumps([r.id for r in shown]))
                maybe_die("waiting")
        else:
            if MODE == "adopt":
                await DBOS.resume_workflow_async(WORKFLOW)  # take over a dead worker's run
            handle = await DBOS.retrieve_workflow_async(WORKFLOW)
            if MODE == "approve":
                shown_ids = json.loads((WORK / "shown.json").read_text())
                pending = await pending_requests(WORKFLOW)
                assert [r.id for r in pending] == shown_ids, (pending, shown_ids)
                (request,) = pending
                assert isinstance(request, FunctionApprovalRequestContent)
                await send_decisions(WORKFLOW, [request.create_response(True)])
        try:
            answer = await handle.get_result()
        except Exception as exc:  # the run ended with an error: recorded for the test
            name = getattr(exc, "name", type(exc).__name__)  # DBOS's portable error keeps it
            (WORK / f"{WORKFLOW}.error").write_text(f"{name}: {exc}")
        else:
            (WORK / f"{WORKFLOW}.answer").write_text(answer)
    finally:
        DBOS.destroy()


if __name__ == "__main__":
    asyncio.run(main())
