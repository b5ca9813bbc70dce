"""A durable agent that is killed in the middle of a tool call and resumes.

Offline: a scripted model, DBOS on a SQLite file in a temporary folder. The script
runs itself three times:

1. a worker starts the run; the model asks for ``lookup`` and ``charge``; the
   process kills itself (SIGKILL) while ``charge`` is running;
2. a new worker launches DBOS, which recovers the run: the recorded model call and
   the finished ``lookup`` are read back, not repeated; ``charge`` runs again;
3. this script prints what happened, then deletes the folder.

Needs the ``dbos`` extra. Run it with ``python examples/durable_resume.py``.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agentcore import (
    Agent,
    AgentSession,
    ChatResponse,
    FunctionCallContent,
    FunctionResultContent,
    Message,
    tool,
)
from agentcore.testing import FunctionChatClient


def log(folder: Path, line: str) -> None:
    with (folder / "effects.log").open("a") as out:
        out.write(line + "\n")


def build_agent(folder: Path) -> Agent:
    async def model(messages: Sequence[Message], options: Any) -> ChatResponse[Any]:
        log(folder, "model call")
        results = [
            c.result for m in messages for c in m.contents if isinstance(c, FunctionResultContent)
        ]
        if results:
            return ChatResponse(messages=(Message("assistant", f"Done: {'; '.join(results)}."),))
        calls = (
            FunctionCallContent("c1", "lookup", '{"item": "tea"}'),
            FunctionCallContent("c2", "charge", '{"amount": 5}'),
        )
        return ChatResponse(messages=(Message("assistant", calls),))

    @tool
    async def lookup(item: str) -> str:
        """The price of an item."""
        log(folder, "lookup ran")
        return f"{item} costs 2.20"

    @tool
    async def charge(amount: int) -> str:
        """Charge the customer's card."""
        log(folder, "charge started")
        await asyncio.sleep(0.2)  # lookup's step is recorded meanwhile
        marker = folder / "crashed"
        if not marker.exists():
            marker.touch()
            os.kill(os.getpid(), signal.SIGKILL)  # the machine dies mid-charge
        log(folder, "charge finished")
        return f"charged {amount}"

    return Agent(FunctionChatClient(model), "Sell tea.", name="cafe", tools=[lookup, charge])


async def worker(folder: Path, start: bool) -> None:
    from agentcore_dbos import dbos_agent, dbos_config
    from dbos import DBOS, SetWorkflowID, WorkflowHandleAsync

    agent = dbos_agent(build_agent(folder))

    @DBOS.workflow(name="cafe.order")
    async def order(question: str) -> str:
        response = await agent.run(question, session=AgentSession(session_id="order-1"))
        return response.text

    url = f"sqlite:///{folder / 'cafe.sqlite'}"  # or postgresql://... to share it between workers
    DBOS(config=dbos_config("cafe", database_url=url, log_level="WARNING"))
    DBOS.launch()  # recovers the runs this worker left unfinished
    try:
        if start:
            with SetWorkflowID("order-1"):
                await order("One tea, please.")
        else:
            handle: WorkflowHandleAsync[str] = await DBOS.retrieve_workflow_async("order-1")
            (folder / "answer.txt").write_text(await handle.get_result())
    finally:
        DBOS.destroy()


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="agentcore-durable-") as name:
        folder = Path(name)
        first = subprocess.run([sys.executable, __file__, "worker", name, "start"], check=False)
        print(f"first worker: killed by signal {-first.returncode}")
        subprocess.run([sys.executable, __file__, "worker", name, "recover"], check=True)
        print("second worker recovered the run; it answered:")
        print("  " + (folder / "answer.txt").read_text())
        print("effects, in order:")
        for line in (folder / "effects.log").read_text().splitlines():
            print("  " + line)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "worker":
        asyncio.run(worker(Path(sys.argv[2]), start=sys.argv[3] == "start"))
    else:
        main()
