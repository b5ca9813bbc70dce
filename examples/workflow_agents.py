"""Agents as workflow executors: a writer and an editor, then a fan-out to three
reviewers joined by one function. Offline, on agentcore.testing's scripted model.
"""

from __future__ import annotations

from collections.abc import Sequence

import anyio
from typing_extensions import Never

from agentcore import Agent
from agentcore.testing import ScriptedChatClient
from agentcore.workflows import AgentTurn, WorkflowBuilder, WorkflowContext, executor


async def main() -> None:
    writer = Agent(
        ScriptedChatClient(["Otters hold hands so they do not drift apart."]),
        "Write a first draft.",
        name="writer",
    )
    editor = Agent(
        ScriptedChatClient(["Otters hold hands to stay together asleep."]),
        "Tighten the draft. Keep the facts.",
        name="editor",
    )
    draft_and_edit = WorkflowBuilder(writer, name="draft-edit").add_edge(writer, editor).build()
    result = await draft_and_edit.run("Why do otters hold hands?")
    print("draft :", result.intermediate[0].text)
    print("edited:", result.output.text)

    market = Agent(ScriptedChatClient(["Large market."]), "Assess the market.", name="market")
    legal = Agent(ScriptedChatClient(["Few risks."]), "List legal risks.", name="legal")
    tech = Agent(ScriptedChatClient(["Feasible."]), "Judge feasibility.", name="tech")

    @executor
    async def brief(idea: str) -> str:
        return f"Product idea: {idea}. Answer in one line."

    @executor
    async def combine(turns: Sequence[AgentTurn], ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output("\n".join(f"{t.executor_id}: {t.text}" for t in turns))

    review = (
        WorkflowBuilder(brief, name="idea-review")
        .add_fan_out(brief, [market, legal, tech])
        .add_fan_in([market, legal, tech], combine)
        .build()
    )
    print((await review.run("a solar-powered kettle")).output)


if __name__ == "__main__":
    anyio.run(main)
