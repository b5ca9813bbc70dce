"""Events are plain values: every event class serializes with the kernel's converter
(``agentcore.serialization.to_json``); the types a request carries become type keys."""

from __future__ import annotations

import json
from typing import Any, Literal, get_args

import attrs
import pytest
from typing_extensions import Never

from agentcore.serialization import to_json
from agentcore.workflows import (
    ErrorInfo,
    ExecutorEvent,
    PendingRequest,
    RequestInfo,
    SubWorkflowRequest,
    WorkflowBuilder,
    WorkflowContext,
    WorkflowEvent,
    executor,
    handler,
    response_handler,
)
from agentcore.workflows import _events as events

pytestmark = pytest.mark.anyio


@attrs.frozen
class Question:
    text: str


@attrs.frozen
class Ruling:
    verdict: Literal["yes", "no"]


def request(response_type: Any) -> PendingRequest[Any, Any]:
    return PendingRequest("req_1_0_0", "judge", Question("fair?"), response_type, 1, ("court",))


def one_of_each() -> dict[type[Any], Any]:
    error = ErrorInfo("builtins.ValueError", "bad", "judge")
    delivery = events.EdgeDelivery(2, "g0", "direct", "a", "b", "m:T", "dropped_type_mismatch")
    return {
        events.RunStarted: events.RunStarted("wfr_1", "court", "ck_1"),
        events.SuperstepStarted: events.SuperstepStarted(1, 2),
        events.ExecutorInvoked: events.ExecutorInvoked("judge", 1, 0, ("clerk",)),
        events.ExecutorReplayed: events.ExecutorReplayed("judge", 1, 0, ("clerk",)),
        events.ExecutorCompleted: events.ExecutorCompleted("judge", 1, 0, 1, 0, 1),
        events.ExecutorFailed: events.ExecutorFailed("judge", 1, 0, error),
        ExecutorEvent: ExecutorEvent("court/judge", "note", Question("why?")),
        events.WorkflowOutput: events.WorkflowOutput("judge", Ruling("yes"), 2),
        events.IntermediateOutput: events.IntermediateOutput("clerk", ("a", "b"), 1),
        RequestInfo: RequestInfo(request(Ruling)),
        events.RequestCancelled: events.RequestCancelled("req_1_0_0", "judge", "cancel_pending"),
        events.EdgeDelivery: delivery,
        events.SuperstepCompleted: events.SuperstepCompleted(1, 3, 1),
        events.SuperstepAborted: events.SuperstepAborted(2, "cancelled"),
        events.RunPaused: events.RunPaused("wfr_1", ("req_1_0_0",), "ck_2"),
        events.RunCompleted: events.RunCompleted("wfr_1", 3, "ck_3"),
        events.RunFailed: events.RunFailed("wfr_1", error, None),
        events.WorkflowWarning: events.WorkflowWarning("a dead letter", "clerk"),
    }


def test_every_event_class_serializes_with_the_kernel_converter() -> None:
    samples = one_of_each()
    # a new event class fails here until it has a sample
    assert set(samples) == set(get_args(WorkflowEvent))
    for cls, event in samples.items():
        document = json.loads(to_json(event))
        assert document["kind"] == cls.__name__
        fields = {f.name for f in attrs.fields(cls)}
        assert set(document["data"]) == fields, cls


@pytest.mark.parametrize(
    ("response_type", "key"),
    [
        (bool, "builtins:bool"),
        (Ruling, f"{__name__}:Ruling"),
        (tuple[str, ...], "builtins:tuple[builtins:str,...]"),
        (Literal["yes", "no"], "Literal['yes','no']"),
    ],
)
def test_request_types_become_type_keys(response_type: Any, key: str) -> None:
    document = json.loads(to_json(RequestInfo(request(response_type))))
    assert document["data"]["request"] == {
        "id": "req_1_0_0",
        "executor_id": "judge",
        "data": {"text": "fair?"},
        "request_type": f"{__name__}:Question",
        "response_type": key,
        "superstep": 1,
        "path": ["court"],
    }


def test_a_child_request_as_event_data_serializes_too() -> None:
    asked = SubWorkflowRequest(request(bool), "court", "wfr_1/court/1.0")
    document = json.loads(to_json(ExecutorEvent("clerk", "asked", asked)))
    assert document["data"]["data"]["request"]["response_type"] == "builtins:bool"
    assert document["data"]["data"]["child_run_id"] == "wfr_1/court/1.0"


class Judge:
    id = "judge"

    @handler
    async def on_question(self, q: Question, ctx: WorkflowContext[Never, Ruling]) -> None:
        await ctx.emit(q, name="heard")
        await ctx.request(q, bool)

    @response_handler
    async def on_ruling(
        self, q: Question, answer: bool, ctx: WorkflowContext[Never, Ruling]
    ) -> None:
        await ctx.yield_output(Ruling("yes" if answer else "no"))


@executor
async def clerk(text: str, ctx: WorkflowContext[Question]) -> None:
    await ctx.send(Question(text))


@executor
async def announce(ruling: Ruling, ctx: WorkflowContext[Never, str]) -> None:
    await ctx.yield_output(f"ruled {ruling.verdict}")


@pytest.mark.parametrize("stream", [False, True])
async def test_the_events_of_a_real_run_serialize(stream: bool) -> None:
    court = WorkflowBuilder(Judge(), name="court").build()
    workflow = (
        WorkflowBuilder(clerk, name="hall")
        .add(court, id="court", forward_requests="caller")
        .add_chain(clerk, "court", announce)
        .build()
    )
    seen: list[WorkflowEvent] = []
    if stream:
        running = workflow.run("fair?", stream=True, verbose_events=True)
        seen.extend([e async for e in running])
        paused = await running.get_final_response()
    else:
        paused = await workflow.run("fair?", verbose_events=True)
        seen.extend(paused.events)
    [asked] = paused.requests
    done = await workflow.run(responses=[asked.create_response(True)], checkpoint=paused.checkpoint)
    seen.extend(done.events)
    assert done.output == "ruled yes"
    kinds = {type(e) for e in seen}
    assert {RequestInfo, ExecutorEvent, events.EdgeDelivery, events.WorkflowOutput} <= kinds
    for event in seen:
        json.loads(to_json(event))
    [info] = [json.loads(to_json(e)) for e in seen if isinstance(e, RequestInfo)]
    assert info["data"]["request"]["response_type"] == "builtins:bool"
    assert info["data"]["request"]["path"] == ["court"]
