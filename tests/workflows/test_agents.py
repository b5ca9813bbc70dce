"""Agents as executors: any SupportsAgentRun is a node; turns carry the conversation."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from typing_extensions import Never

from agentcore import Agent, AgentResponse, Message
from agentcore.testing import ScriptedChatClient
from agentcore.workflows import (
    AgentExecutor,
    AgentTurn,
    WorkflowBuilder,
    WorkflowContext,
    executor,
)

pytestmark = pytest.mark.anyio


def texts(messages: Sequence[Message]) -> list[str]:
    return [m.text for m in messages]


async def test_agent_is_an_executor_and_turn_carries_conversation() -> None:
    writer_client = ScriptedChatClient(["a first draft"])
    editor_client = ScriptedChatClient(["a tighter draft"])
    writer = Agent(writer_client, "Write a first draft.", name="writer")
    editor = Agent(editor_client, "Tighten the draft.", name="editor")
    workflow = WorkflowBuilder(writer, name="draft-edit").add_edge(writer, editor).build()
    result = await workflow.run("why otters hold hands")
    assert workflow.executor_ids == ("writer", "editor")
    [final] = result.outputs
    assert isinstance(final, AgentResponse)
    assert final.text == "a tighter draft"
    [intermediate] = result.intermediate
    assert intermediate.text == "a first draft"
    [editor_request] = editor_client.requests
    assert texts(editor_request.messages)[-2:] == ["why otters hold hands", "a first draft"]


async def test_context_modes_full_inputs_last_and_function() -> None:
    async def second_sees(context: object) -> list[str]:
        triage = Agent(ScriptedChatClient(["billing"]), "Route.", name="triage")
        client = ScriptedChatClient(["done"])
        specialist = Agent(client, "Help.", name="specialist")
        builder = WorkflowBuilder(triage, name="w").add_edge(triage, specialist)
        builder.add(specialist, context=context)  # type: ignore[arg-type]  # each mode in turn
        await builder.build().run("charged twice")
        [request] = client.requests
        return [t for t in texts(request.messages) if t in ("charged twice", "billing")]

    assert await second_sees("full") == ["charged twice", "billing"]
    assert await second_sees("inputs") == ["charged twice"]
    assert await second_sees("last") == ["billing"]
    assert await second_sees(lambda turn: [Message("user", turn.text.upper())]) == []


async def test_turns_reach_plain_executors_and_with_text_keeps_the_context() -> None:
    agent = Agent(ScriptedChatClient(["raw answer"]), "Answer.", name="answerer")

    @executor
    async def polish(turn: AgentTurn, ctx: WorkflowContext[Never, AgentTurn]) -> None:
        await ctx.yield_output(turn.with_text(turn.text.upper()))

    result = await WorkflowBuilder(agent, name="w").add_edge(agent, polish).build().run("q")
    [turn] = result.outputs
    assert turn.text == "RAW ANSWER"
    assert texts(turn.conversation)[-2:] == ["q", "RAW ANSWER"]
    assert turn.executor_id == "answerer"


async def test_agent_without_a_name_needs_an_id_and_context_is_for_agents_only() -> None:
    nameless = Agent(ScriptedChatClient(["x"]), "Answer.")
    with pytest.raises(TypeError, match="has no name"):
        WorkflowBuilder(nameless, name="w")
    named = WorkflowBuilder(AgentExecutor(nameless, id="helper"), name="w").build()
    assert named.executor_ids == ("helper",)

    @executor
    async def plain(text: str, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(text)

    with pytest.raises(TypeError, match="context= applies to agents only"):
        WorkflowBuilder(plain, name="w").add(plain, context="last")
