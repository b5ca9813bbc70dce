"""Sub-workflows: a child asks its parent through SubWorkflowRequest messages."""

from __future__ import annotations

from collections.abc import Sequence

import attrs
import pytest
from typing_extensions import Never

from agentcore.workflows import (
    EdgeDelivery,
    ExecutorFailedError,
    SubWorkflowRequest,
    SubWorkflowResponse,
    Workflow,
    WorkflowBuilder,
    WorkflowBuildError,
    WorkflowContext,
    executor,
    handler,
    response_handler,
)

pytestmark = pytest.mark.anyio


@attrs.frozen
class Claim:
    text: str


@attrs.frozen
class NeedSource:
    claim: str


@attrs.frozen
class Verdict:
    claim: str
    supported: bool


class Checker:
    id = "checker"

    @handler
    async def on_claim(self, claim: Claim, ctx: WorkflowContext[Never, Verdict]) -> None:
        await ctx.request(NeedSource(claim.text), str)

    @response_handler
    async def on_source(
        self, ask: NeedSource, source: str, ctx: WorkflowContext[Never, Verdict]
    ) -> None:
        await ctx.yield_output(Verdict(ask.claim, supported=ask.claim.lower() in source.lower()))


ARCHIVE = "otters hold hands. otters sleep on water."


class Librarian:
    id = "librarian"

    def __init__(self, wrong: bool = False) -> None:
        self.wrong = wrong

    @handler
    async def on_request(
        self,
        msg: SubWorkflowRequest[NeedSource, str],
        ctx: WorkflowContext[SubWorkflowResponse[str]],
    ) -> None:
        if self.wrong:
            await ctx.send(msg.create_response(42))  # type: ignore[arg-type]  # the wrong type under test
        await ctx.send(msg.create_response(ARCHIVE))


@executor
async def split_claims(article: str, ctx: WorkflowContext[Claim]) -> None:
    for sentence in article.split(". "):
        await ctx.send(Claim(sentence))


@executor
async def tally(verdicts: Sequence[Verdict], ctx: WorkflowContext[Never, str]) -> None:
    supported = sum(v.supported for v in verdicts)
    await ctx.yield_output(f"{supported}/{len(verdicts)} claims supported")


def fact_check() -> Workflow[Claim, Verdict]:
    return WorkflowBuilder(Checker(), name="fact-check").build()


def article_check(librarian: Librarian) -> Workflow[str, str]:
    return (
        WorkflowBuilder(split_claims, name="article-check")
        .add(fact_check(), id="fact_check")
        .add_edge(split_claims, "fact_check")
        .add_edge("fact_check", librarian)
        .add_edge(librarian, "fact_check")
        .add_fan_in(["fact_check"], tally)
        .build()
    )


async def test_child_request_reaches_parent_handler_and_answer_resumes_child() -> None:
    result = await article_check(Librarian()).run("Otters hold hands. Otters can fly")
    assert result.status == "completed"
    assert result.output == "1/2 claims supported"


async def test_each_input_gets_a_fresh_child_run() -> None:
    seen: list[str] = []

    class Recorder(Librarian):
        @handler
        async def on_request(
            self,
            msg: SubWorkflowRequest[NeedSource, str],
            ctx: WorkflowContext[SubWorkflowResponse[str]],
        ) -> None:
            seen.append(msg.child_run_id)
            await ctx.send(msg.create_response(ARCHIVE))

    await article_check(Recorder()).run("a. b. c")
    assert len(seen) == 3
    assert len(set(seen)) == 3
    assert all("/fact_check/" in run_id for run_id in seen)


async def test_sub_workflow_create_response_type_checks() -> None:
    with pytest.raises(ExecutorFailedError) as info:
        await article_check(Librarian(wrong=True)).run("Otters hold hands")
    assert isinstance(info.value.__cause__, TypeError)
    assert "must be a str" in str(info.value.__cause__)


async def test_sub_workflow_response_is_dropped_as_target_mismatch_on_other_edges() -> None:
    @executor
    async def audit(answer: SubWorkflowResponse[str]) -> None:
        del answer

    librarian = Librarian()
    workflow = (
        WorkflowBuilder(split_claims, name="article-check")
        .add(fact_check(), id="fact_check")
        .add_edge(split_claims, "fact_check")
        .add_edge("fact_check", librarian)
        .add_fan_out(librarian, ["fact_check", audit])
        .add_fan_in(["fact_check"], tally)
        .build()
    )
    result = await workflow.run("Otters hold hands", verbose_events=True)
    assert result.output == "1/1 claims supported"
    answers = [
        (e.target_id, e.status)
        for e in result.events
        if isinstance(e, EdgeDelivery) and e.source_id == "librarian"
    ]
    assert answers == [("fact_check", "delivered"), ("audit", "dropped_target_mismatch")]


async def test_sub_workflow_node_needs_an_id_and_no_store_yet(tmp_path: object) -> None:
    with pytest.raises(TypeError, match="needs an id"):
        WorkflowBuilder(split_claims, name="w").add_edge(split_claims, fact_check())
    from agentcore.workflows import InMemoryCheckpointStore

    builder = (
        WorkflowBuilder(split_claims, name="w", checkpoints=InMemoryCheckpointStore())
        .add(fact_check(), id="fact_check")
        .add_edge(split_claims, "fact_check")
        .add_edge("fact_check", Librarian())
        .add_edge("librarian", "fact_check")
        .add_fan_in(["fact_check"], tally)
    )
    with pytest.raises(WorkflowBuildError, match="cannot be combined with a checkpoint store"):
        builder.build()
