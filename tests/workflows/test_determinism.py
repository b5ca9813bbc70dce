"""Same definition, input and responses give the same outputs, requests, checkpoints and
event order, whatever the schedule (random handler delays) and on asyncio and trio.

With the run's ids from a seeded source (``run(..., ids=SeededIds(n))``), everything is
byte-equal but the checkpoints' ``created_at``: run ids, checkpoint ids, child runs'
checkpoints, agent sessions and the ids of an inner agent's approval requests."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Sequence
from typing import Any

import anyio
import attrs
import pytest
from typing_extensions import Never

from agentcore import (
    Agent,
    ChatResponse,
    FunctionApprovalRequestContent,
    FunctionCallContent,
    Message,
    tool,
)
from agentcore.serialization import to_json, unstructure
from agentcore.testing import ScriptedChatClient
from agentcore.workflows import (
    PendingRequest,
    SeededIds,
    Workflow,
    WorkflowBuilder,
    WorkflowContext,
    WorkflowRunResult,
    executor,
    handler,
    response_handler,
)

VOLATILE = {"checkpoint_id", "parent_id", "created_at", "run_id", "resumed_from"}
CREATED_AT = re.compile(r'(\\?"created_at\\?":\\?")[^"\\]*')
"""A checkpoint's wall-clock time, also inside a child run's checkpoint (escaped JSON)."""


@attrs.frozen
class Claim:
    text: str


@attrs.frozen
class NeedSource:
    claim: str


@attrs.frozen
class Verdict:
    claim: str
    by: str
    ok: bool


def build(seed: int) -> Workflow[str, str]:
    rng = random.Random(seed)

    async def pause() -> None:
        await anyio.sleep(rng.random() / 400)

    class Checker:
        id = "checker"

        @handler
        async def on_claim(self, claim: Claim, ctx: WorkflowContext[Never, Verdict]) -> None:
            await pause()
            await ctx.emit(claim.text, name="asking")
            await ctx.request(NeedSource(claim.text), str)

        @response_handler
        async def on_source(
            self, ask: NeedSource, source: str, ctx: WorkflowContext[Never, Verdict]
        ) -> None:
            await pause()
            await ctx.yield_output(Verdict(ask.claim, "child", ask.claim in source))

    child = WorkflowBuilder(Checker(), name="child").build()

    @executor
    async def split(article: str, ctx: WorkflowContext[Claim]) -> None:
        for word in article.split():
            await ctx.send(Claim(word))

    def quick(name: str) -> Any:
        @executor(id=name)
        async def judge(claim: Claim, ctx: WorkflowContext[Verdict]) -> None:
            await pause()
            await ctx.emit(claim.text, name=name)
            await ctx.send(Verdict(claim.text, name, len(claim.text) % 2 == 0))

        return judge

    @executor
    async def tally(verdicts: Sequence[Verdict], ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(";".join(f"{v.by}:{v.claim}:{v.ok}" for v in verdicts))

    a, b = quick("a"), quick("b")
    return (
        WorkflowBuilder(split, name="determinism")
        .add(a, max_concurrency=3)
        .add(child, id="review", forward_requests="caller")
        .add_fan_out(split, [a, b, "review"])
        .add_fan_in([a, b, "review"], tally)
        .build()
    )


def build_with_agents(seed: int) -> Workflow[str, Any]:
    """Two agents beside plain executors: a bank agent whose tool needs an approval (its
    pause becomes a workflow request holding its session), and a workflow as an agent."""
    rng = random.Random(seed)

    @tool(approval_mode="always_require")
    def transfer(to: str, amount: int) -> str:
        """Send money."""
        return f"sent {amount} to {to}"

    call = FunctionCallContent("call_1", "transfer", '{"to": "Grace", "amount": 120}')
    client = ScriptedChatClient(
        [
            ChatResponse(messages=[Message("assistant", [call])], finish_reason="tool_calls"),
            "Done: sent 120.",
        ]
    )
    bank = Agent(client, "Bank.", tools=[transfer], name="bank")

    @executor(id="echo")
    async def echo(text: str, ctx: WorkflowContext[Never, str]) -> None:
        await anyio.sleep(rng.random() / 400)
        await ctx.yield_output(f"echo: {text}")

    helper = WorkflowBuilder(echo, name="helper").build().as_agent(name="helper")

    @executor(id="desk")
    async def desk(text: str, ctx: WorkflowContext[str]) -> None:
        await ctx.send(text)

    @executor(id="slow")
    async def slow(text: str, ctx: WorkflowContext[Never, str]) -> None:
        await anyio.sleep(rng.random() / 400)
        await ctx.yield_output(text.upper())

    return WorkflowBuilder(desk, name="agents").add_fan_out(desk, [bank, helper, slow]).build()


def answer(request: PendingRequest[Any, Any]) -> Any:
    if isinstance(request.data, FunctionApprovalRequestContent):
        return request.create_response(request.data.create_response(True))
    return request.create_response("otters hold hands")


def exact(result: WorkflowRunResult[Any]) -> tuple[Any, ...]:
    """Everything a call gave back, as JSON text, the checkpoints' wall clock aside."""
    assert result.checkpoint is not None
    return (
        result.status,
        CREATED_AT.sub(r"\1", to_json(result.checkpoint)),
        tuple(to_json(e) for e in result.events),
        json.dumps(unstructure(list(result.outputs))),
    )


async def seeded_scenario(seed: int, stream: bool) -> list[tuple[Any, ...]]:
    calls: list[WorkflowRunResult[Any]] = []
    for workflow, message in (
        (build(seed), "otters hold hands tightly"),
        (build_with_agents(seed), "send Grace 120"),
    ):
        if stream:
            running = workflow.run(message, ids=SeededIds(1), stream=True)
            async for _ in running:
                pass
            paused = await running.get_final_response()
        else:
            paused = await workflow.run(message, ids=SeededIds(1))
        ids = [r.id for r in paused.requests][::-1]
        answers = {r.id: answer(r) for r in paused.requests}
        half = await workflow.run(
            responses=[answers[i] for i in ids[:2]], checkpoint=paused.checkpoint, ids=SeededIds(2)
        )
        calls.extend([paused, half])
        if half.status == "paused":
            done = await workflow.run(
                responses=[answers[i] for i in ids[2:]],
                checkpoint=half.checkpoint,
                ids=SeededIds(3),
            )
            calls.append(done)
    return [exact(c) for c in calls]


def stable(value: Any) -> Any:
    """A JSON document without its random or per-call parts."""
    if isinstance(value, dict):
        return {k: stable(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [stable(v) for v in value]
    if isinstance(value, str) and value.startswith('{"schema_version"'):
        return stable(json.loads(value))  # a child run's checkpoint, nested as JSON
    return value


def record(result: WorkflowRunResult[Any]) -> tuple[Any, ...]:
    assert result.checkpoint is not None
    return (
        result.status,
        result.outputs,
        tuple((r.id, r.executor_id, r.data, r.path) for r in result.requests),
        stable(json.loads(to_json(result.checkpoint))),
        tuple(
            (e.type, *(getattr(e, f, None) for f in ("executor_id", "superstep", "data")))
            for e in result.events
            if e.type not in ("run_started", "run_paused", "run_completed")
        ),
    )


async def scenario(seed: int) -> list[tuple[Any, ...]]:
    workflow = build(seed)
    paused = await workflow.run("otters hold hands tightly", run_id="d1")
    sources = {r.id: r.create_response("otters hold hands") for r in paused.requests}
    # answered in reverse, across two calls
    ids = [r.id for r in paused.requests][::-1]
    half = await workflow.run(responses=[sources[i] for i in ids[:2]], checkpoint=paused.checkpoint)
    done = await workflow.run(responses=[sources[i] for i in ids[2:]], checkpoint=half.checkpoint)
    return [record(paused), record(half), record(done)]


def test_outputs_requests_checkpoints_and_events_do_not_depend_on_schedule_or_backend() -> None:
    runs = [
        anyio.run(scenario, seed, backend=backend)
        for seed in range(4)
        for backend in ("asyncio", "trio")
    ]
    first = runs[0]
    assert first[0][0] == "paused"
    assert len(first[0][2]) == 4  # one question per claim, all through the caller
    assert first[2][0] == "completed"
    for other in runs[1:]:
        assert other == first


@pytest.mark.parametrize("stream", [False, True])
def test_with_seeded_ids_every_call_is_byte_equal_whatever_the_schedule(stream: bool) -> None:
    runs = [
        anyio.run(seeded_scenario, seed, stream, backend=backend)
        for seed in range(3)
        for backend in ("asyncio", "trio")
    ]
    first = runs[0]
    assert [call[0] for call in first] == ["paused", "paused", "completed", "paused", "completed"]
    approval = json.loads(first[3][1])["data"]["requests"][0]
    assert approval["data"]["value"]["id"].startswith("apr_")
    session = json.loads(approval["context"]["session"])["data"]
    assert session["session_id"] == f"{json.loads(first[3][1])['data']['run_id']}/bank/2.0"
    # the paused session holds the request under the same (renamed) id
    assert session["paused"]["requests"][0]["id"] == approval["data"]["value"]["id"]
    for other in runs[1:]:
        assert other == first


def test_the_default_ids_are_random() -> None:
    async def twice() -> tuple[str, str]:
        workflow = build_with_agents(0)
        one, two = await workflow.run("send Grace 120"), await workflow.run("send Grace 120")
        return to_json(one.checkpoint), to_json(two.checkpoint)

    one, two = anyio.run(twice)
    assert CREATED_AT.sub(r"\1", one) != CREATED_AT.sub(r"\1", two)


def test_an_id_source_that_is_not_one_is_refused_at_the_call() -> None:
    workflow = build(0)
    with pytest.raises(TypeError, match=r"ids must be an IdSource .*SeededIds\(seed\)"):
        workflow.run("otters", ids=42)  # type: ignore[call-overload]  # the mistake under test
    with pytest.raises(TypeError, match="int or str seed"):
        SeededIds(1.5)  # type: ignore[arg-type]  # the mistake under test


def test_an_invocations_ids_are_a_keyed_stream_of_the_invocation() -> None:
    from agentcore.workflows._ids import InvocationIds, RunCall

    def tokens(key: str) -> list[str]:
        ids = InvocationIds(key)
        return [ids.token(16), ids.token(3), ids.token(16)]

    first = tokens("salt/wfr_1/2.0")
    assert first == tokens("salt/wfr_1/2.0")  # the same invocation: the same ids, in order
    assert [len(token) for token in first] == [32, 6, 32]
    assert all(re.fullmatch(r"[0-9a-f]+", token) for token in first)
    assert len(set(first)) == 3  # each draw is a new token
    assert tokens("salt/wfr_1/2.1") != first  # another ordinal
    assert tokens("salt/wfr_1/3.0") != first  # another superstep
    assert tokens("other/wfr_1/2.0") != first  # another call's salt
    long_key = "s/" + "r" * 100 + "/1.0"  # beyond BLAKE2b's 64-byte key: hashed down
    assert tokens(long_key) == tokens(long_key) != tokens(long_key + "1")
    assert len(InvocationIds("k").token(100)) == 200  # longer than one digest

    call = RunCall(SeededIds(5))
    again = RunCall(SeededIds(5))
    first_call = call.for_invocation("wfr_1", 1, 0).token(8)
    assert first_call == again.for_invocation("wfr_1", 1, 0).token(8)
