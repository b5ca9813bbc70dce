"""A fan-out whose sibling fails after one branch finished: used by the pending-writes
tests, in this process and (through ``python -m``) in fresh ones. The finished branch
appends a line to a file per invocation, so a test can count them across processes."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

import anyio
import attrs
from typing_extensions import Never

from agentcore.errors import RunStateError
from agentcore.workflows import Workflow, WorkflowBuilder, WorkflowContext, executor
from agentcore.workflows.protocols import CheckpointStore


@attrs.frozen
class Tally:
    runs: int = 0


class Flow:
    """The executors, with the switch a test flips: ``mode`` ``"fail"`` makes ``flaky``
    fail and ``"hang"`` makes it wait forever, both once ``counted`` finished (so its
    work is saved); ``log`` counts ``counted``'s invocations."""

    def __init__(self, log: Path, *, mode: str) -> None:
        self.log = log
        self.mode = mode
        self.finished: anyio.Event | None = None
        self.event_data: object = None
        """What ``counted`` emits (``{"counted": n}`` when ``None``)."""

    def arm(self) -> anyio.Event:
        """A fresh event ``counted`` sets when it finishes (call inside an event loop)."""
        self.finished = anyio.Event()
        return self.finished

    def build(
        self,
        store: CheckpointStore | str | None = None,
        *,
        flaky_first: bool = False,
        claim_ttl: float = 600.0,
    ) -> Workflow[int, str]:
        flow = self

        @executor
        async def start(n: int, ctx: WorkflowContext[int]) -> None:
            await ctx.send(n)

        @executor
        async def counted(n: int, ctx: WorkflowContext[str]) -> None:
            with flow.log.open("a") as f:
                f.write("ran\n")
            tally = ctx.get_state(Tally) or Tally()
            ctx.set_state(Tally(tally.runs + 1))
            ctx.shared.set("seen", n)
            data = {"counted": n} if flow.event_data is None else flow.event_data
            await ctx.emit(data, name="progress")
            await ctx.send(f"counted {n}")
            if flow.finished is not None:
                flow.finished.set()

        @executor
        async def flaky(n: int, ctx: WorkflowContext[str]) -> None:
            if flow.mode != "ok":
                assert flow.finished is not None, "arm() the flow before a failing run"
                await flow.finished.wait()
                if flow.mode == "hang":
                    await anyio.sleep_forever()
                raise RuntimeError("flaky is down")
            await ctx.send(f"flaky {n}")

        @executor
        async def join(parts: Sequence[str], ctx: WorkflowContext[Never, str]) -> None:
            await ctx.yield_output(f"{' + '.join(parts)} (seen {ctx.shared.get('seen')})")

        return (
            WorkflowBuilder(start, name="replay", checkpoints=store, claim_ttl=claim_ttl)
            .add_shared("seen")
            .add(counted, state_type=Tally)
            .add_fan_out(start, [flaky, counted] if flaky_first else [counted, flaky])
            .add_fan_in([counted, flaky], join)
            .build()
        )

    def runs(self) -> int:
        return len(self.log.read_text().splitlines()) if self.log.exists() else 0


async def _main(db: str, log: str, step: str) -> None:
    flow = Flow(Path(log), mode={"start": "fail", "hang": "hang"}.get(step, "ok"))
    # a short claim: the process the test kills leaves its claim behind
    workflow = flow.build(db, claim_ttl=1.0)
    if step == "hang":  # the test kills this process once counted has finished
        flow.arm()
        await workflow.run(5, run_id="replay-run")
    elif step == "start":
        flow.arm()
        try:
            await workflow.run(5, run_id="replay-run")
        except Exception as exc:  # the failure is what this step is for: report it
            print("failed", type(exc).__name__)
    else:
        for _ in range(100):  # until the claim of a killed process has expired
            try:
                done = await workflow.run(run_id="replay-run")
                break
            except RunStateError as exc:
                if "being driven by another process" not in str(exc):
                    raise
                await anyio.sleep(0.1)
        else:
            raise SystemExit("the killed process's claim never expired")
        print(done.status, done.output)


if __name__ == "__main__":
    sys.path.insert(0, os.getcwd())
    anyio.run(_main, sys.argv[1], sys.argv[2], sys.argv[3])
