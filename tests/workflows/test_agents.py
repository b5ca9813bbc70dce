"""Agents as executors: any SupportsAgentRun is a node; turns carry the conversation."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from typing_extensions import Never

from agentcore import Agent, AgentResponse, ChatResponse, Message, Usage
from agentcore.serialization import to_json
from agentcore.testing import ScriptedChatClient
from agentcore.workflows import (
    AgentExecutor,
    AgentTurn,
    Workflow,
    WorkflowBuilder,
    WorkflowContext,
    executor,
    handler,
    response_handler,
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


def priced(text: str, tokens: int) -> ChatResponse[Any]:
    return ChatResponse(
        messages=(Message("assistant", text),),
        finish_reason="stop",
        usage=Usage(input_tokens=tokens, output_tokens=1, total_tokens=tokens + 1),
    )


@pytest.mark.parametrize("stream", [False, True])
async def test_usage_of_all_agents_adds_up_in_result(stream: bool) -> None:
    def build() -> Workflow[str, Any]:
        writer = Agent(ScriptedChatClient([priced("draft", 10)]), "Write.", name="writer")
        market = Agent(ScriptedChatClient([priced("big", 20)]), "Assess.", name="market")
        legal = Agent(ScriptedChatClient([priced("fine", 30)]), "Risks.", name="legal")
        return WorkflowBuilder(writer, name="priced").add_fan_out(writer, [market, legal]).build()

    if stream:
        running = build().run("kettles", stream=True)
        _ = [e async for e in running]
        result = await running.get_final_response()
    else:
        result = await build().run("kettles")
    # one live superstep (writer alone) and one batched (market and legal)
    assert result.usage == Usage(input_tokens=60, output_tokens=3, total_tokens=63)


async def test_usage_is_kept_in_checkpoints_and_counts_the_whole_run() -> None:
    class Gate:
        id = "gate"

        @handler
        async def on_turn(self, turn: AgentTurn, ctx: WorkflowContext[Never, str]) -> None:
            await ctx.request(turn.text, bool)

        @response_handler
        async def on_answer(self, text: str, ok: bool, ctx: WorkflowContext[str]) -> None:
            await ctx.send(text if ok else "no")

    writer = Agent(ScriptedChatClient([priced("draft", 10)]), "Write.", name="writer")
    editor = Agent(ScriptedChatClient([priced("final", 5)]), "Edit.", name="editor")
    workflow = WorkflowBuilder(writer, name="gated").add_chain(writer, Gate(), editor).build()
    paused = await workflow.run("kettles")
    assert paused.usage == Usage(input_tokens=10, output_tokens=1, total_tokens=11)
    assert paused.checkpoint is not None
    restored = workflow.restore(to_json(paused.checkpoint))
    [request] = paused.requests
    done = await workflow.run(responses=[request.create_response(True)], checkpoint=restored)
    assert done.usage == Usage(input_tokens=15, output_tokens=2, total_tokens=17)
    assert done.output.text == "final"
