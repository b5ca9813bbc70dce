"""Running workflows: supersteps, deterministic commits, routing statuses, fan-in,
state, limits and failures, on asyncio and trio."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import anyio
import attrs
import pytest
from typing_extensions import Never

from agentcore.workflows import (
    Case,
    Default,
    DeliveryRecord,
    EdgeDelivery,
    ExecutorFailedError,
    ExecutorTimeoutError,
    RetryPolicy,
    SharedStateConflictError,
    Workflow,
    WorkflowBuilder,
    WorkflowContext,
    WorkflowConvergenceError,
    WorkflowEvent,
    WorkflowStalledError,
    WorkflowTypeError,
    executor,
    handler,
)

pytestmark = pytest.mark.anyio


@attrs.frozen
class Round:
    n: int


@attrs.frozen
class Big:
    n: int


@attrs.frozen
class Refund:
    amount: float


@attrs.frozen
class Question:
    text: str


@attrs.frozen
class Base:
    pass


@attrs.frozen
class Sub(Base):
    pass


@attrs.frozen
class Draft:
    text: str


@attrs.frozen
class Reviewed:
    text: str
    issues: tuple[str, ...]


@executor
async def write(topic: str) -> Draft:
    return Draft(f"A short note about {topic}.")


@executor
async def review(draft: Draft) -> Reviewed:
    return Reviewed(draft.text, ("too short",) if len(draft.text) < 40 else ())


@executor
async def publish(r: Reviewed, ctx: WorkflowContext[Never, str]) -> None:
    await ctx.yield_output(r.text if not r.issues else f"{r.text} (to fix: {', '.join(r.issues)})")


def notes() -> Workflow[str, str]:
    return (
        WorkflowBuilder(write, name="notes", input_type=str, output_type=str)
        .add_chain(write, review, publish)
        .build()
    )


async def test_messages_sent_in_a_superstep_are_delivered_in_the_next() -> None:
    result = await notes().run("otters")
    assert result.status == "completed"
    assert result.output == "A short note about otters. (to fix: too short)"
    assert result.supersteps == 3
    invoked = [(e.executor_id, e.superstep) for e in result.events if e.type == "executor_invoked"]
    assert invoked == [("write", 1), ("review", 2), ("publish", 3)]
    assert result.events[0].type == "run_started"
    assert result.events[-1].type == "run_completed"
    assert result.checkpoint is not None
    assert result.checkpoint.status == "completed"


async def test_stream_final_equals_non_streaming_result() -> None:
    workflow = notes()
    plain = await workflow.run("otters")
    stream = workflow.run("otters", stream=True)
    seen: list[WorkflowEvent] = [event async for event in stream]
    final = await stream.get_final_response()
    assert final.outputs == plain.outputs
    assert [e.type for e in seen] == [e.type for e in plain.events]
    assert final.events == tuple(seen)


async def test_every_event_has_a_source_and_executors_cannot_emit_framework_events() -> None:
    @executor
    async def chatty(text: str, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.emit({"step": 1}, name="progress")
        await ctx.yield_output(text)

    result = await WorkflowBuilder(chatty, name="c").build().run("hi")
    sources = {e.type: e.source for e in result.events}
    assert sources["executor_event"] == "executor"
    assert all(s == "framework" for t, s in sources.items() if t != "executor_event")
    [custom] = [e for e in result.events if e.type == "executor_event"]
    assert (custom.executor_id, custom.name, custom.data) == ("chatty", "progress", {"step": 1})


async def test_send_of_undeclared_type_raises_at_send_and_nothing_is_delivered() -> None:
    delivered: list[object] = []

    @executor
    async def liar(text: str, ctx: WorkflowContext[Draft]) -> None:
        await ctx.send(Draft(text))
        await ctx.send(text)  # type: ignore[arg-type]  # the undeclared send under test

    @executor
    async def sink(draft: Draft, ctx: WorkflowContext[Never, str]) -> None:
        delivered.append(draft)
        await ctx.yield_output(draft.text)

    workflow = WorkflowBuilder(liar, name="w").add_edge(liar, sink).build()
    with pytest.raises(ExecutorFailedError) as info:
        await workflow.run("x")
    cause = info.value.__cause__
    assert isinstance(cause, WorkflowTypeError)
    assert "'liar' sent a str" in str(cause)
    assert "Draft" in str(cause)
    assert info.value.executor_id == "liar"
    assert info.value.superstep == 1
    assert delivered == []


async def test_send_to_unreachable_target_raises_at_send() -> None:
    @executor
    async def pick(text: str, ctx: WorkflowContext[Draft]) -> None:
        await ctx.send(Draft(text), target="publish")

    @executor
    async def take(draft: Draft, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(draft.text)

    workflow = WorkflowBuilder(pick, name="w").add_edge(pick, take).build()
    with pytest.raises(ExecutorFailedError) as info:
        await workflow.run("x")
    assert "target 'publish', which none of its edges reaches" in str(info.value.__cause__)


async def test_targeted_send_drops_other_edges_as_target_mismatch() -> None:
    @executor
    async def pick(text: str, ctx: WorkflowContext[Draft]) -> None:
        await ctx.send(Draft(text), target="right")

    @executor(id="left")
    async def left(draft: Draft, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output("left")

    @executor(id="right")
    async def right(draft: Draft, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output("right")

    workflow = WorkflowBuilder(pick, name="w").add_fan_out(pick, [left, right]).build()
    result = await workflow.run("x", verbose_events=True)
    assert result.outputs == ("right",)
    statuses = {(e.target_id, e.status) for e in result.events if isinstance(e, EdgeDelivery)}
    assert statuses == {("left", "dropped_target_mismatch"), ("right", "delivered")}


async def test_lane_runs_one_invocation_at_a_time_in_key_order() -> None:
    running = 0
    most = 0
    order: list[int] = []

    @executor
    async def split(n: int, ctx: WorkflowContext[int]) -> None:
        for i in range(n):
            await ctx.send(i)

    @executor
    async def slow(i: int, ctx: WorkflowContext[Never, int]) -> None:
        nonlocal running, most
        running += 1
        most = max(most, running)
        await anyio.sleep(0.001 * (5 - i))
        order.append(i)
        running -= 1
        await ctx.yield_output(i)

    one_at_a_time = WorkflowBuilder(split, name="w").add_edge(split, slow).build()
    result = await one_at_a_time.run(5)
    assert most == 1
    assert order == [0, 1, 2, 3, 4]
    assert result.outputs == (0, 1, 2, 3, 4)

    order.clear()
    most = 0
    overlapping = (
        WorkflowBuilder(split, name="w").add(slow, max_concurrency=5).add_edge(split, slow).build()
    )
    result = await overlapping.run(5)
    assert most > 1
    assert result.outputs == (0, 1, 2, 3, 4)  # commit order, not completion order


@attrs.frozen
class Item:
    branch: str
    n: int


def random_delay_workflow(seed: int) -> Workflow[int, str]:
    rng = random.Random(seed)

    @executor
    async def source(n: int, ctx: WorkflowContext[Item]) -> None:
        for i in range(n):
            await ctx.send(Item("root", i))

    def branch(name: str) -> Any:
        @executor(id=name)
        async def work(item: Item, ctx: WorkflowContext[Item, str]) -> None:
            await anyio.sleep(rng.random() / 500)
            await ctx.emit(item.n, name=name)
            await ctx.yield_output(f"{name}:{item.n}")
            await ctx.send(Item(name, item.n * 10))

        return work

    a, b, c = branch("a"), branch("b"), branch("c")

    @executor
    async def join(items: Sequence[Item], ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(",".join(f"{i.branch}{i.n}" for i in items))

    return (
        WorkflowBuilder(source, name="random", outputs_from=[join])
        .add(a, max_concurrency=3)
        .add_fan_out(source, [a, b, c])
        .add_fan_in([a, b, c], join)
        .build()
    )


def shape(result: Any) -> tuple[Any, ...]:
    return (
        result.outputs,
        result.intermediate,
        tuple(
            (e.type, getattr(e, "executor_id", None), getattr(e, "data", None))
            for e in result.events
            if e.type not in ("run_started", "run_completed")
        ),
    )


async def test_commits_do_not_depend_on_completion_order() -> None:
    shapes = {shape(await random_delay_workflow(seed).run(4)) for seed in range(6)}
    assert len(shapes) == 1
    [(outputs, intermediate, _)] = shapes
    assert outputs == ("a0,a10,a20,a30,b0,b10,b20,b30,c0,c10,c20,c30",)
    assert intermediate[:4] == ("a:0", "a:1", "a:2", "a:3")


def test_commits_are_the_same_on_asyncio_and_trio() -> None:
    async def once() -> tuple[Any, ...]:
        return shape(await random_delay_workflow(1).run(3))

    assert anyio.run(once, backend="asyncio") == anyio.run(once, backend="trio")


async def test_fan_in_tuple_order_is_source_then_key_not_completion() -> None:
    @executor
    async def go(n: int, ctx: WorkflowContext[int]) -> None:
        await ctx.send(n)

    @executor(id="slow")
    async def slow(n: int) -> str:
        await anyio.sleep(0.01)
        return f"slow{n}"

    @executor(id="fast")
    async def fast(n: int, ctx: WorkflowContext[str]) -> None:
        await ctx.send(f"fast{n}")
        await ctx.send(f"fast{n + 1}")

    @executor
    async def join(parts: Sequence[str], ctx: WorkflowContext[Never, tuple[str, ...]]) -> None:
        assert ctx.sources == ("slow", "fast")
        await ctx.yield_output(tuple(parts))

    workflow = (
        WorkflowBuilder(go, name="w")
        .add_fan_out(go, [fast, slow])
        .add_fan_in([slow, fast], join)
        .build()
    )
    assert (await workflow.run(1)).output == ("slow1", "fast1", "fast2")


async def test_fan_in_after_conditional_split_fires_with_the_branch_taken() -> None:
    @executor
    async def decide(n: int) -> int:
        return n

    @executor(id="small")
    async def small(n: int) -> str:
        return f"small {n}"

    @executor(id="big")
    async def big(n: int) -> str:
        return f"big {n}"

    @executor
    async def join(parts: Sequence[str], ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(" + ".join(parts))

    workflow = (
        WorkflowBuilder(decide, name="w")
        .add_switch(decide, Case(lambda n: n < 10, small), Default(big))
        .add_fan_in([small, big], join)
        .build()
    )
    assert (await workflow.run(3)).output == "small 3"
    assert (await workflow.run(30)).output == "big 30"


async def test_fan_in_waits_for_the_longer_branch() -> None:
    @executor
    async def go(n: int) -> int:
        return n

    @executor(id="short")
    async def short(n: int) -> str:
        return "short"

    @executor(id="long1")
    async def long1(n: int) -> Draft:
        return Draft("long")

    @executor(id="long2")
    async def long2(d: Draft) -> str:
        return d.text + "er"

    @executor
    async def join(parts: Sequence[str], ctx: WorkflowContext[Never, tuple[str, ...]]) -> None:
        await ctx.yield_output(tuple(parts))

    workflow = (
        WorkflowBuilder(go, name="w")
        .add_fan_out(go, [short, long1])
        .add_edge(long1, long2)
        .add_fan_in([short, long2], join)
        .build()
    )
    result = await workflow.run(1)
    assert result.outputs == (("short", "longer"),)
    assert [e.executor_id for e in result.events if e.type == "executor_invoked"].count("join") == 1


async def test_fan_in_inside_a_loop_rearms_each_iteration() -> None:
    @executor
    async def spread(r: Round, ctx: WorkflowContext[Round]) -> None:
        await ctx.send(r)

    @executor(id="x")
    async def x(r: Round) -> str:
        return f"x{r.n}"

    @executor(id="y")
    async def y(r: Round) -> str:
        return f"y{r.n}"

    @executor
    async def gather(parts: Sequence[str], ctx: WorkflowContext[Round, str]) -> None:
        n = int(parts[0][1:])
        await ctx.yield_output("".join(parts))
        if n < 2:
            await ctx.send(Round(n + 1))

    workflow = (
        WorkflowBuilder(spread, name="loop", outputs_from=[gather])
        .add_fan_out(spread, [x, y])
        .add_fan_in([x, y], gather)
        .add_edge(gather, spread)
        .build()
    )
    assert (await workflow.run(Round(0))).outputs == ("x0y0", "x1y1", "x2y2")


async def test_strict_fan_in_raises_stalled_when_a_source_can_no_longer_send() -> None:
    @executor
    async def decide(n: int) -> int:
        return n

    @executor(id="small")
    async def small(n: int) -> str:
        return "small"

    @executor(id="big")
    async def big(n: int) -> str:
        return "big"

    @executor
    async def join(parts: Sequence[str], ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(",".join(parts))

    workflow = (
        WorkflowBuilder(decide, name="w")
        .add_switch(decide, Case(lambda n: n < 10, small), Default(big))
        .add_fan_in([small, big], join, require="each_source")
        .build()
    )
    with pytest.raises(WorkflowStalledError) as info:
        await workflow.run(1)
    assert info.value.missing_sources == ("big",)
    assert "'join'" in str(info.value)


async def test_map_of_zero_items_does_not_fire_the_join() -> None:
    joined: list[object] = []

    @executor
    async def split(n: int, ctx: WorkflowContext[int]) -> None:
        for i in range(n):
            await ctx.send(i)

    @executor
    async def double(i: int) -> int:
        return 2 * i

    @executor
    async def total(xs: Sequence[int], ctx: WorkflowContext[Never, int]) -> None:
        joined.append(xs)
        await ctx.yield_output(sum(xs))

    workflow = WorkflowBuilder(split, name="map").add_edge(split, double)
    workflow = workflow.add_fan_in([double], total)
    built = workflow.build()
    assert (await built.run(0)).outputs == ()
    assert joined == []
    assert (await built.run(4)).output == 12


async def test_verbose_events_record_all_six_delivery_statuses() -> None:
    @executor
    async def fan(n: int, ctx: WorkflowContext[int | Big]) -> None:
        await ctx.send(n)
        await ctx.send(Big(n))

    @executor(id="ints")
    async def ints(n: int) -> str:
        return str(n)

    @executor(id="bigs")
    async def bigs(b: Big, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(f"big {b.n}")

    @executor(id="never")
    async def never(n: int, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output("never")

    @executor
    async def join(parts: Sequence[str], ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output("+".join(parts))

    workflow = (
        WorkflowBuilder(fan, name="all-six", dead_letters="ignore")
        .add_fan_out(fan, [ints, bigs])
        .add_edge(fan, never, when=lambda m: False)
        .add_fan_in([ints], join)
        .build()
    )
    seen: list[DeliveryRecord] = []

    class Watcher:
        def on_delivery(self, record: DeliveryRecord) -> None:
            seen.append(record)

    result = await workflow.run(7, verbose_events=True)
    statuses = {e.status for e in result.events if isinstance(e, EdgeDelivery)}
    assert statuses >= {
        "delivered",
        "buffered",
        "dropped_type_mismatch",
        "dropped_condition_false",
    }
    assert sorted(result.outputs) == ["7", "big 7"] or set(result.outputs) == {"7", "big 7"}

    @executor
    async def picky(n: int, ctx: WorkflowContext[int]) -> None:
        await ctx.send(n, target="ints")

    def boom(message: object) -> bool:
        raise RuntimeError("predicate broke")

    @executor
    async def plain(n: int, ctx: WorkflowContext[int]) -> None:
        await ctx.send(n)

    observed = (
        WorkflowBuilder(plain, name="w2", observers=[Watcher()])
        .add_edge(plain, ints)
        .add_edge(plain, never, when=boom)
        .add_fan_in([ints], join)
        .build()
    )
    with pytest.raises(ExecutorFailedError) as info:
        await observed.run(1)
    assert str(info.value.__cause__) == "predicate broke"
    observed_statuses = [r.delivery.status for r in seen]
    assert observed_statuses == ["delivered", "exception"]
    more = (
        WorkflowBuilder(picky, name="w3", observers=[Watcher()])
        .add_fan_out(picky, [ints, never])
        .add_fan_in([ints], join)
        .build()
    )
    await more.run(2)
    assert [r.delivery.status for r in seen[2:]] == [
        "delivered",
        "dropped_target_mismatch",
        "buffered",
    ]
    assert seen[2].message == 2


async def test_observer_sees_deliveries_without_verbose_events_and_failures_are_swallowed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    class Broken:
        def on_delivery(self, record: DeliveryRecord) -> None:
            raise RuntimeError("observer bug")

    workflow = (
        WorkflowBuilder(write, name="w", observers=[Broken()])
        .add_chain(write, review, publish)
        .build()
    )
    result = await workflow.run("x")
    assert result.outputs
    assert not any(isinstance(e, EdgeDelivery) for e in result.events)
    assert "on_delivery failed" in caplog.text


async def test_switch_takes_the_first_true_case_and_records_the_rest() -> None:
    @executor
    async def classify(text: str) -> Refund | Question:
        return Refund(float(text)) if text.isdigit() else Question(text)

    @executor(id="auto")
    async def auto(r: Refund, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(f"refunded {r.amount}")

    @executor(id="manual")
    async def manual(r: Refund, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(f"review {r.amount}")

    @executor(id="answer")
    async def answer(q: Question, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(f"answer {q.text}")

    def small(m: Refund | Question) -> bool:
        return isinstance(m, Refund) and m.amount <= 50

    router = (
        WorkflowBuilder(classify, name="router")
        .add_switch(classify, Case(small, auto), Case(Refund, manual), Case(Question, answer))
        .build()
    )
    assert (await router.run("20")).output == "refunded 20.0"
    assert (await router.run("200")).output == "review 200.0"
    result = await router.run("why", verbose_events=True)
    assert result.output == "answer why"
    decisions = [(e.target_id, e.status) for e in result.events if isinstance(e, EdgeDelivery)]
    assert decisions == [
        ("auto", "dropped_condition_false"),
        ("manual", "dropped_condition_false"),
        ("answer", "delivered"),
    ]


async def test_dead_letter_warns_by_default_and_fails_when_configured() -> None:
    @executor
    async def src(n: int) -> int:
        return n

    @executor
    async def sink(n: int, ctx: WorkflowContext[Never, int]) -> None:
        await ctx.yield_output(n)

    warned = await (
        WorkflowBuilder(src, name="w").add_edge(src, sink, when=lambda n: n > 5).build().run(1)
    )
    [warning] = [e for e in warned.events if e.type == "warning"]
    assert "taken by none of its edge groups" in warning.message
    strict = WorkflowBuilder(src, name="w", dead_letters="error")
    with pytest.raises(ExecutorFailedError) as info:
        await strict.add_edge(src, sink, when=lambda n: n > 5).build().run(1)
    assert isinstance(info.value.__cause__, WorkflowTypeError)


async def test_outputs_default_to_executors_without_outgoing_edges() -> None:
    @executor
    async def first(text: str, ctx: WorkflowContext[str, str]) -> None:
        await ctx.yield_output(f"first saw {text}")
        await ctx.send(text.upper())

    @executor
    async def last(text: str, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(text)

    default = await WorkflowBuilder(first, name="w").add_edge(first, last).build().run("a")
    assert default.outputs == ("A",)
    assert default.intermediate == ("first saw a",)
    types = [e.type for e in default.events]
    assert "intermediate" in types
    assert "output" in types
    chosen = WorkflowBuilder(first, name="w", outputs_from=[first, last])
    both = await chosen.add_edge(first, last).build().run("a")
    assert both.outputs == ("first saw a", "A")
    with pytest.raises(ValueError, match="2 final outputs"):
        _ = both.output


async def test_yield_of_undeclared_type_is_refused() -> None:
    @executor
    async def wrong(text: str, ctx: WorkflowContext[Never, int]) -> None:
        await ctx.yield_output(text)  # type: ignore[arg-type]  # the undeclared yield under test

    with pytest.raises(ExecutorFailedError) as info:
        await WorkflowBuilder(wrong, name="w").build().run("x")
    assert "yielded a str" in str(info.value.__cause__)


@attrs.frozen
class Start:
    goal: int


@attrs.frozen
class Tick:
    pass


@attrs.frozen
class CounterState:
    goal: int = 0
    seen: int = 0


class Counter:
    id = "counter"
    state_type = CounterState

    async def handle(self, message: Start | Tick, ctx: WorkflowContext[Tick, int]) -> None:
        state = ctx.get_state(CounterState) or CounterState()
        if isinstance(message, Start):
            ctx.set_state(attrs.evolve(state, goal=message.goal))
            await ctx.send(Tick())
            return
        state = attrs.evolve(state, seen=state.seen + 1)
        ctx.set_state(state)
        if state.seen < state.goal:
            await ctx.send(Tick())
        else:
            await ctx.yield_output(state.seen)


def counting(max_supersteps: int = 100) -> Workflow[Any, Any]:
    counter = Counter()
    return (
        WorkflowBuilder(
            counter, name="count", outputs_from=[counter], max_supersteps=max_supersteps
        )
        .add_edge(counter, counter)
        .build()
    )


async def test_executor_state_is_per_run_and_committed_at_barriers() -> None:
    workflow = counting()
    first, second = await workflow.run(Start(3)), await workflow.run(Start(5))
    assert (first.output, second.output) == (3, 5)
    assert first.supersteps == 4


async def test_wrong_state_type_is_refused() -> None:
    class Bad:
        id = "bad"
        state_type = CounterState

        async def handle(self, message: int, ctx: WorkflowContext) -> None:
            ctx.set_state("not a counter")

    with pytest.raises(ExecutorFailedError) as info:
        await WorkflowBuilder(Bad(), name="w").build().run(1)
    assert "must be a CounterState" in str(info.value.__cause__)


async def test_convergence_error_at_superstep_limit_names_pending_and_resumes() -> None:
    workflow = counting(max_supersteps=3)
    with pytest.raises(WorkflowConvergenceError) as info:
        await workflow.run(Start(5))
    error = info.value
    assert error.pending == {"counter": 1}
    assert error.superstep == 3
    assert error.max_supersteps == 3
    assert "did not converge within 3 supersteps" in str(error)
    assert error.checkpoint is not None
    assert error.checkpoint_id == error.checkpoint.checkpoint_id
    resumed = await workflow.run(checkpoint=error.checkpoint, max_supersteps=10)
    assert resumed.output == 5
    assert resumed.supersteps == 3


async def test_handler_raising_cancels_siblings_and_commits_nothing() -> None:
    cancelled: list[str] = []

    @executor
    async def split(n: int, ctx: WorkflowContext[int]) -> None:
        await ctx.send(n)

    @executor(id="ok")
    async def ok(n: int, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output("ok")
        try:
            await anyio.sleep(5)
        except anyio.get_cancelled_exc_class():
            cancelled.append("ok")
            raise

    @executor(id="bad")
    async def bad(n: int, ctx: WorkflowContext[Never, str]) -> None:
        await anyio.sleep(0.01)
        raise ValueError("boom")

    workflow = WorkflowBuilder(split, name="w").add_fan_out(split, [ok, bad]).build()
    stream = workflow.run(1, stream=True)
    seen: list[WorkflowEvent] = []

    async def drain() -> None:
        async for event in stream:
            seen.append(event)

    with pytest.raises(ExecutorFailedError) as info:
        await drain()
    error = info.value
    assert cancelled == ["ok"]
    assert isinstance(error.__cause__, ValueError)
    assert str(error.__cause__) == "boom"
    assert error.executor_id == "bad"
    assert error.superstep == 2
    assert not any(e.type == "output" for e in seen)
    assert [e.type for e in seen[-3:]] == ["executor_failed", "superstep_aborted", "run_failed"]
    assert error.checkpoint is not None
    assert error.checkpoint.superstep == 1


async def test_handler_raising_base_exception_passes_unwrapped() -> None:
    class Stop(BaseException):
        pass

    @executor
    async def halt(n: int) -> None:
        raise Stop

    with pytest.raises(Stop):
        await WorkflowBuilder(halt, name="w").build().run(1)


async def test_timeout_raises_executor_timeout_error() -> None:
    @executor
    async def sleepy(n: int) -> None:
        await anyio.sleep(5)

    workflow = WorkflowBuilder(sleepy, name="w").add(sleepy, timeout=0.01).build()
    with pytest.raises(ExecutorTimeoutError) as info:
        await workflow.run(1)
    assert isinstance(info.value, TimeoutError)
    assert info.value.executor_id == "sleepy"


async def test_retry_policy_retries_retryable_errors_only() -> None:
    from agentcore.errors import TransientError

    calls: list[int] = []

    @executor
    async def flaky(n: int, ctx: WorkflowContext[Never, int]) -> None:
        calls.append(n)
        if len(calls) < 3:
            raise TransientError("try again")
        await ctx.yield_output(len(calls))

    policy = RetryPolicy(max_attempts=3, initial_delay=0.0)
    workflow = WorkflowBuilder(flaky, name="w").add(flaky, retry=policy).build()
    assert (await workflow.run(1)).output == 3

    calls.clear()

    @executor
    async def broken(n: int) -> None:
        calls.append(n)
        raise ValueError("not retryable")

    with pytest.raises(ExecutorFailedError):
        await WorkflowBuilder(broken, name="w").add(broken, retry=policy).build().run(1)
    assert calls == [1]


async def test_shared_state_conflict_names_both_writers_and_merge_folds_in_order() -> None:
    @executor
    async def split(n: int, ctx: WorkflowContext[int]) -> None:
        await ctx.send(n)

    class Writer:
        def __init__(self, ident: str) -> None:
            self.id = ident

        @handler
        async def on_int(self, n: int, ctx: WorkflowContext[str]) -> None:
            before = ctx.shared.get("notes")
            ctx.shared.set("notes", [self.id])
            assert ctx.shared.get("notes") == [self.id]  # own write visible
            await ctx.send(f"{self.id} saw {before}")

    @executor
    async def join(parts: Sequence[str], ctx: WorkflowContext[Never, tuple[Any, ...]]) -> None:
        await ctx.yield_output((tuple(parts), ctx.shared.get("notes")))

    a, b = Writer("a"), Writer("b")

    def build(merge: Any) -> Workflow[Any, Any]:
        return (
            WorkflowBuilder(split, name="w")
            .add_shared("notes", initial=["start"], merge=merge)
            .add_fan_out(split, [a, b])
            .add_fan_in([a, b], join)
            .build()
        )

    with pytest.raises(ExecutorFailedError) as info:
        await build(None).run(1)
    assert isinstance(info.value.__cause__, SharedStateConflictError)
    assert "'a' and 'b' both wrote the shared key 'notes'" in str(info.value.__cause__)
    merged = await build(lambda old, new: [*old, *new]).run(1)
    parts, notes_value = merged.output
    assert notes_value == ["start", "a", "b"]
    # snapshot reads (the declared initial before any write), not a sibling's write
    assert parts == ("a saw ['start']", "b saw ['start']")


async def test_undeclared_shared_key_and_non_json_value_are_refused() -> None:
    class Uses:
        id = "uses"

        async def handle(self, message: str, ctx: WorkflowContext) -> None:
            if message == "undeclared":
                ctx.shared.get("nope")
            else:
                ctx.shared.set("k", object())

    workflow = WorkflowBuilder(Uses(), name="w").add_shared("k").build()
    with pytest.raises(ExecutorFailedError) as info:
        await workflow.run("undeclared")
    assert "add_shared('nope'" in str(info.value.__cause__)
    with pytest.raises(ExecutorFailedError) as info:
        await workflow.run("object")
    assert "shared key 'k' must hold a JSON value" in str(info.value.__cause__)


async def test_concurrent_runs_of_one_definition_do_not_interfere() -> None:
    workflow = counting()
    results: dict[int, Any] = {}

    async def one(goal: int) -> None:
        results[goal] = (await workflow.run(Start(goal))).output

    async with anyio.create_task_group() as tg:
        for goal in range(1, 51):
            tg.start_soon(one, goal)
    assert results == {goal: goal for goal in range(1, 51)}


async def test_start_executor_refuses_a_message_it_cannot_take() -> None:
    with pytest.raises(TypeError, match="accepts str, not an int"):
        await notes().run(3)  # type: ignore[call-overload]  # the wrong input under test


async def test_run_needs_a_message_or_a_checkpoint() -> None:
    with pytest.raises(TypeError, match="needs a message"):
        await notes().run()


async def test_sync_function_without_ctx_runs_in_a_worker_thread() -> None:
    import threading

    main = threading.get_ident()

    @executor
    def upper(text: str) -> Draft:
        assert threading.get_ident() != main
        return Draft(text.upper())

    @executor
    async def show(d: Draft, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(d.text)

    workflow = WorkflowBuilder(upper, name="w").add_edge(upper, show).build()
    assert (await workflow.run("hi")).output == "HI"


async def test_most_specific_handler_wins() -> None:
    class Two:
        id = "two"

        @handler
        async def a_base(self, message: Base, ctx: WorkflowContext[Never, str]) -> None:
            await ctx.yield_output("base")

        @handler
        async def z_sub(self, message: Sub, ctx: WorkflowContext[Never, str]) -> None:
            await ctx.yield_output("sub")

    workflow = WorkflowBuilder(Two(), name="w").build()
    assert (await workflow.run(Sub())).output == "sub"
    assert (await workflow.run(Base())).output == "base"


async def test_inline_path_for_single_invocation_creates_no_task() -> None:
    caller = anyio.get_current_task().id
    seen: list[int] = []

    @executor
    async def one(text: str) -> Draft:
        seen.append(anyio.get_current_task().id)
        return Draft(text)

    @executor
    async def two(d: Draft, ctx: WorkflowContext[Never, str]) -> None:
        seen.append(anyio.get_current_task().id)
        await ctx.yield_output(d.text)

    await WorkflowBuilder(one, name="w").add_edge(one, two).build().run("x")
    assert seen == [caller, caller]


async def test_a_fast_branch_waits_at_the_barrier() -> None:
    order: list[str] = []

    @executor
    async def go(n: int, ctx: WorkflowContext[int]) -> None:
        await ctx.send(n)

    @executor(id="slow")
    async def slow(n: int, ctx: WorkflowContext[Never, str]) -> None:
        await anyio.sleep(0.02)
        order.append("slow done")
        await ctx.yield_output("slow")

    @executor(id="fast")
    async def fast(n: int) -> str:
        order.append("fast done")
        return "fast"

    @executor(id="next")
    async def after_fast(text: str, ctx: WorkflowContext[Never, str]) -> None:
        order.append("after fast")
        await ctx.yield_output(text)

    workflow = (
        WorkflowBuilder(go, name="w", outputs_from=[slow, after_fast])
        .add_fan_out(go, [slow, fast])
        .add_edge(fast, after_fast)
        .build()
    )
    await workflow.run(1)
    assert order == ["fast done", "slow done", "after fast"]


def test_retry_after_is_honoured() -> None:
    class Throttled(Exception):
        retry_after = 7.5

    policy = RetryPolicy(initial_delay=0.5, backoff=2.0, max_delay=30.0)
    assert policy.delay(1, Throttled()) == 7.5  # the server's wait beats the backoff
    assert policy.delay(1, RuntimeError()) == 0.5
    assert policy.delay(5, Throttled()) == 8.0  # the backoff, when it is longer
    assert RetryPolicy(max_delay=5.0).delay(1, Throttled()) == 5.0  # capped


@attrs.frozen
class Seen:
    count: int


async def test_concurrent_node_cannot_write_state_from_a_message_handler() -> None:
    @executor
    async def many(n: int, ctx: WorkflowContext[int]) -> None:
        for i in range(n):
            await ctx.send(i)

    class Counter:
        id = "counter"
        state_type = Seen

        @handler
        async def on_item(self, n: int, ctx: WorkflowContext[Never, int]) -> None:
            ctx.set_state(Seen(n))

    workflow = (
        WorkflowBuilder(many, name="w")
        .add(Counter(), max_concurrency=2)
        .add_edge(many, "counter")
        .build()
    )
    with pytest.raises(ExecutorFailedError) as info:
        await workflow.run(2)
    assert isinstance(info.value.__cause__, WorkflowTypeError)
    assert "may read state but not write it" in str(info.value.__cause__)
