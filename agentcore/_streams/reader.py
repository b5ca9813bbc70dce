"""The engine a :class:`~agentcore.ResponseStream` runs on.

A stream is a source plus a chain of stages (``Stage``) sharing one consumption
state (``Core``). A source may hand over to another stream (``Delegate``); the
stream being read then keeps a stack of delegated sources (``Frame``). The
operations on that state are functions here: the plan an update follows
(``plan_of``), taking a delegated stream in place (``adopt``, ``enter``), injecting
an update (``inject``), closing (``close_all``) and the final value (``finalize``,
``refinalize``). They reach a stream through :class:`Readable`, what they use of
it, so this module never imports the public class; ``stream.py`` keeps the class and
its per-update loop.
"""

from __future__ import annotations

import inspect
import weakref
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Sequence
from enum import IntEnum
from types import GeneratorType
from typing import Any, Generic, Protocol, cast

import anyio
from typing_extensions import TypeVar

StreamT = TypeVar("StreamT", default=Any)
"""The stream type a :class:`Core` holds for ``from_awaitable`` (``ResponseStream``, which
this module does not import: the engine sits below the public class)."""
Finalizer = Callable[[Sequence[Any]], Any]
ResultHook = Callable[[Any], Any]
Plan = list[tuple[Callable[[Any], Any] | None, list[Any] | None, int]]
"""The steps an update takes: per stage, its transform, the list collecting what
reaches it (if needed), and the level of the stream the stage belongs to (0: the
stream being read; n: its n-th delegated stream, see :class:`Delegate`)."""


class StreamConsumedError(RuntimeError):
    """A stream was iterated twice at once, or after another stream took it over."""


class Phase(IntEnum):
    """How far the consumption of a stream has got. It only moves forward, so
    ``phase >= EXHAUSTED`` reads "nothing more will be read"."""

    UNUSED = 0
    """Nothing reads it yet: ``map``, ``with_result_hook`` and ``relay`` may stack on it."""
    CONSUMING = 1
    """Being read (or taken over by a relay or a delegating stream): no more stacking."""
    EXHAUSTED = 2
    """Nothing more will be read: it failed or was closed early."""
    COMPLETED = 3
    """The source ran to its end: only then is a stage's ``known_final`` value the
    fold of what was read."""


UNUSED, CONSUMING, EXHAUSTED, COMPLETED = Phase  # the hot loop reads these as globals


class NotKnown:
    """The type of :data:`NOT_KNOWN`."""

    __slots__ = ()


NOT_KNOWN = NotKnown()
"""What a stage's ``known_final`` returns when, after all, it does not know the final
value (a relay whose transform changed an update): the stage's finalizer folds what
was read instead. This keeps the relay from pointing back at its stage."""


class Delegate:
    """Yielded by a stream's source generator: "deliver this stream's updates here".

    The stream reading the source delivers ``target``'s updates in its place, as if
    the generator had written ``async for u in target: yield u``, without the extra
    generator step per update. When ``target`` ends the generator resumes; when it
    fails, its exception is raised in the generator at the ``yield``. ``target``
    is a ``ResponseStream`` (its transforms and collectors apply, so its own
    final value is ready afterwards) or any async iterator.

    Internal: only agentcore's own sources yield it.
    """

    __slots__ = ("target",)

    def __init__(self, target: AsyncIterable[Any]) -> None:
        self.target = target


class Ended:
    """An iterator that has ended (stands in for a finished source)."""

    __slots__ = ()

    def __aiter__(self) -> Ended:
        return self

    async def __anext__(self) -> Any:
        raise StopAsyncIteration


ENDED = Ended()


class Frame:
    """A delegated source being read: its iterator and the steps its updates take.

    When the delegated stream's last step collects its updates and the reading
    stream's next step would only collect the same updates again (a fold kept for a
    stream closed early), that second step is left out: ``shared`` holds both lists,
    and what the first collected is copied to the second in one go (:func:`flush`)
    when the frame is left, or before anything else reaches the second list.
    """

    __slots__ = (
        "__weakref__",
        "copied",
        "core",
        "iterator",
        "may_delegate",
        "reader",
        "shared",
        "steps",
    )

    def __init__(self, core: Core[Any] | None, iterator: AsyncIterator[Any], steps: Plan) -> None:
        self.core = core  # the delegated stream's, to mark it read (None: a bare iterator)
        self.iterator = iterator
        self.steps = steps
        # Whether the source may delegate in turn (a plain stream's source never does).
        self.may_delegate = core is None or core.may_delegate
        # The core of the stream reading this frame, for injections into ``core``; weak,
        # as the reader holds its frames.
        self.reader: weakref.ref[Core[Any]] | None = None
        # The delegated stream's collector and the reading stream's, when the latter's
        # step is left out (see the class docstring); how much of the first is copied.
        self.shared: tuple[list[Any], list[Any]] | None = None
        self.copied = 0


def flush(frame: Frame) -> None:
    """Copy what ``frame``'s delegated stream collected since the last copy to the
    reading stream's collector that shares it (see :class:`Frame`)."""
    shared = frame.shared
    if shared is not None:
        collected, also = shared
        also.extend(collected[frame.copied :])
        frame.copied = len(collected)


def flush_all(frames: list[Frame] | None) -> None:
    """:func:`flush` every frame, innermost first (an inner frame's copies land in a
    list an outer frame copies in turn): before an update that does not come from the
    innermost frame reaches a collector, so each list keeps the order of reading."""
    if frames:
        for frame in reversed(frames):
            flush(frame)


class Stage:
    """One layer of a stream: a transform, a finalizer and result hooks."""

    __slots__ = (
        "collected",
        "final",
        "finalized",
        "finalizer",
        "folds_inputs",
        "hooks",
        "known_final",
        "transform",
    )

    def __init__(
        self,
        transform: Callable[[Any], Any] | None,
        finalizer: Finalizer | None,
        hooks: list[ResultHook],
        known_final: Callable[[], Any] | None = None,
        folds_inputs: bool = False,
    ) -> None:
        self.transform = transform
        self.finalizer = finalizer  # None: the final value comes from a deferred stream
        self.hooks = hooks
        # The final value without folding: what the source already knows its
        # updates amount to once it has run to its end. Only valid for this stage's
        # own updates, so a ``map`` without a finalizer (which moves the finalizer
        # up) does not carry it; a stream closed early folds what was read instead.
        self.known_final = known_final
        # Whether this stage collects what reaches its transform rather than what
        # the transform returns (its finalizer then transforms them itself). A
        # stage whose final value is usually ``known_final`` need not keep every
        # transformed update alive for a fold that is only needed if the stream
        # closes early.
        self.folds_inputs = folds_inputs
        self.collected: list[Any] | None = None
        self.final: Any = None
        self.finalized = False


class Core(Generic[StreamT]):
    """What the stages of one stream share: the source and the consumption state."""

    __slots__ = (
        "__weakref__",  # a run's event sink reaches its stream weakly (no cycle)
        "backlog",
        "deferred",
        "frames",
        "host",
        "innermost",
        "iterator",
        "may_delegate",
        "phase",
        "plan",
        "pulling",
        "setup",
        "source",
        "stages",
    )

    def __init__(self, source: AsyncIterable[Any] | None, stage: Stage) -> None:
        self.source = source
        self.iterator: AsyncIterator[Any] | None = None
        self.stages: list[Stage] = [stage]
        self.phase = UNUSED
        # Per stage: its transform and where what reaches it is collected.
        self.plan: Plan | None = None
        # Someone is awaiting the source's next update right now.
        self.pulling = False
        # For ``from_awaitable``: the setup awaitable until it starts, then the inner
        # stream it resolved to.
        self.setup: Awaitable[StreamT] | None = None
        self.deferred: StreamT | None = None
        # Whether the source may delegate or be injected into (agentcore's own
        # sources: ``_of``); other streams take the plain path.
        self.may_delegate = False
        # Delegated sources being read, innermost last (see Delegate); None until one.
        self.frames: list[Frame] | None = None
        # What the innermost frame reads, with which steps and whether it may
        # delegate in turn; None when there is no frame. Kept in step with
        # ``frames`` (see push_frame and pop_frame) so a read looks it up in one go.
        self.innermost: tuple[AsyncIterator[Any], Plan, bool] | None = None
        # Updates to deliver before the next one read: injected ones, and what was
        # read meanwhile (with the steps each still takes). None until an injection.
        self.backlog: list[tuple[Any, Plan]] | None = None
        # While another stream reads this one in place (see Delegate): the frame it
        # is read through there (the reader's core and the steps this one's updates
        # take there), where injections go. Weak: the reader holds the frame, and
        # the steps may lead back here (a relay's transform holds the stream it reads).
        self.host: weakref.ref[Frame] | None = None


async def maybe_await(value: object) -> Any:
    # What inspect.isawaitable accepts, without its ABC checks for the common
    # case of a plain value.
    kind = type(value)
    if hasattr(kind, "__await__") or (kind is GeneratorType and inspect.isawaitable(value)):
        return await cast("Awaitable[Any]", value)
    return value


async def apply_hooks(hooks: Sequence[ResultHook], value: Any) -> Any:
    for hook in hooks:
        replaced = await maybe_await(hook(value))
        if replaced is not None:
            value = replaced
    return value


async def close_source(iterator: object) -> None:
    # Sources without ``aclose`` (plain async iterables) have nothing to close.
    aclose = getattr(iterator, "aclose", None)
    if aclose is not None:
        with anyio.CancelScope(shield=True):
            await aclose()


def push_frame(core: Core[Any], frames: list[Frame], frame: Frame) -> None:
    """Put ``frame`` on ``core``'s stack (``frames``), keeping ``innermost`` in step."""
    frames.append(frame)
    core.innermost = (frame.iterator, frame.steps, frame.may_delegate)


def pop_frame(core: Core[Any], frames: list[Frame]) -> Frame:
    """Take the innermost frame off ``core``'s stack (``frames``), keeping ``innermost`` in step."""
    frame = frames.pop()
    if frames:
        below = frames[-1]
        core.innermost = (below.iterator, below.steps, below.may_delegate)
    else:
        core.innermost = None
    return frame


def leave(frame: Frame, *, completed: bool = False) -> None:
    """A delegated source is done: its stream has been read to its end (``completed``),
    or has failed or been closed, for good."""
    flush(frame)
    core = frame.core
    if core is not None:
        core.phase = COMPLETED if completed else EXHAUSTED
        core.pulling = False
        core.host = None


class Readable(Protocol):
    """What the engine uses of a ``ResponseStream``: its core, the stage it is at,
    and its public reading methods."""

    _core: Core[Any]
    _depth: int

    def __aiter__(self) -> AsyncIterator[Any]: ...

    async def get_final_response(self) -> Any: ...


def plan_of(core: Core[Any]) -> Plan:
    """The steps an update takes through ``core``'s stages; creates the lists that
    collect what a finalizer (the last stage's, or one with hooks) will fold."""
    plan: Plan = []
    stages = core.stages
    last = len(stages) - 1
    for i, stage in enumerate(stages):
        if stage.collected is None and (i == last or stage.hooks):
            stage.collected = []
        if stage.folds_inputs and stage.collected is not None:
            plan.append((None, stage.collected, 0))
            plan.append((stage.transform, None, 0))
        elif stage.transform is not None or stage.collected is not None:
            plan.append((stage.transform, stage.collected, 0))
    return plan


async def adopt(stream: Readable) -> tuple[AsyncIterator[Any], Plan, Core[Any]] | None:
    """Hand ``stream``'s source and steps to the stream delegating to it.

    ``None`` when ``stream`` is part way through delegating itself: then it is read
    through its own ``__anext__``.
    """
    core = stream._core
    if len(core.stages) != stream._depth + 1:
        raise StreamConsumedError("this stream was mapped; delegate to the mapped stream")
    if core.pulling:
        raise StreamConsumedError(
            "another task is reading this stream right now; streams have one consumer"
        )
    if core.phase >= EXHAUSTED:
        return ENDED, [], core
    core.phase = CONSUMING
    iterator = core.iterator
    if iterator is None:
        setup = core.setup
        if setup is not None:
            core.setup = None
            try:
                inner = await setup
            except BaseException:
                core.phase = EXHAUSTED
                raise
            core.deferred = inner
            if len(core.stages) == 1 and not core.stages[0].hooks:
                # Nothing stacked on it: the stream becomes its inner one.
                stream._core, stream._depth = inner._core, inner._depth
                return await adopt(stream)
            iterator = core.iterator = inner.__aiter__()
        else:
            assert core.source is not None
            iterator = core.iterator = aiter(core.source)
    if core.frames or core.backlog:
        return None
    plan = core.plan
    if plan is None:
        plan = core.plan = plan_of(core)
    core.pulling = True
    return iterator, plan, core


def enter(
    core: Core[Any],
    target: AsyncIterable[Any],
    below: Plan,
    adopted: tuple[AsyncIterator[Any], Plan, Core[Any]] | None,
) -> None:
    """Start reading a delegated ``target`` in ``core``; its updates then take
    ``below``'s steps. ``adopted`` is what :func:`adopt` handed over for a stream
    (its own steps run first), ``None`` to iterate ``target`` as it is."""
    frames = core.frames
    if frames is None:
        frames = core.frames = []
    if adopted is not None:
        iterator, inner_plan, inner_core = adopted
        level = len(frames) + 1
        steps = [(t, c, level) for t, c, _ in inner_plan]
        shared = _collected_twice(steps, below)
        frame = Frame(inner_core, iterator, [*steps, *(below[1:] if shared else below)])
        frame.shared = shared
        frame.reader = weakref.ref(core)
        inner_core.host = weakref.ref(frame)  # injections into it go here
    else:
        frame = Frame(None, aiter(target), below)
    push_frame(core, frames, frame)


def _collected_twice(inner: Plan, below: Plan) -> tuple[list[Any], list[Any]] | None:
    """The two lists, when ``below``'s first step only collects what ``inner``'s last
    step collected (see :class:`Frame`)."""
    if inner and below:
        collected = inner[-1][1]
        transform, also, _ = below[0]
        if collected is not None and transform is None and also is not None:
            return collected, also
    return None


def inject(core: Core[Any], update: Any) -> None:
    """Deliver ``update`` (through ``core``'s own steps) before the next one read."""
    host = core.host
    if host is not None:
        # Read in place by a stream delegating to it: that stream delivers it,
        # with the steps this stream's updates take there.
        frame = host()
        reader = None if frame is None or frame.reader is None else frame.reader()
        if frame is None or reader is None:  # the reading stream was dropped: nobody reads
            return
        core, steps = reader, frame.steps
    else:
        steps = core.plan if core.plan is not None else plan_of(core)
    if core.backlog is None:
        core.backlog = []
    core.backlog.append((update, steps))


async def close_all(core: Core[Any]) -> None:
    """Close every delegated source of ``core``, innermost first, then its own."""
    frames = core.frames
    while frames:
        frame = pop_frame(core, frames)
        leave(frame)
        await close_source(frame.iterator)
    iterator = core.iterator
    await close_source(iterator if iterator is not None else core.source)


async def finalize(stream: Readable, stage: Stage) -> None:
    """Compute ``stage``'s final value (once) and run its result hooks on it."""
    value: Any = NOT_KNOWN
    if stage.known_final is not None and stream._core.phase is COMPLETED:
        value = await maybe_await(stage.known_final())
    if value is NOT_KNOWN:
        if stage.finalizer is None:
            value = await _deferred_final(stream, stage)
        else:
            value = await maybe_await(stage.finalizer(stage.collected or []))
    stage.final = await apply_hooks(stage.hooks, value)
    stage.finalized = True
    stage.collected = None


async def refinalize(stream: Readable, updates: Sequence[Any]) -> Any:
    """``stream``'s final value computed from ``updates`` instead of its own."""
    core = stream._core
    for each in core.stages[: stream._depth]:
        if each.hooks and not each.finalized:
            await finalize(stream, each)
    stage = core.stages[stream._depth]
    if stage.finalizer is None:
        value = await refinalize(_resolved(core), updates)
    else:
        value = await maybe_await(stage.finalizer(updates))
    return await apply_hooks(stage.hooks, value)


def _resolved(core: Core[Any]) -> Readable:
    # For ``from_awaitable``: the inner stream, once the setup produced it.
    deferred = core.deferred
    if deferred is None:
        raise StreamConsumedError(
            "the stream ended before its setup produced a stream, so it has no final value"
        )
    return deferred  # type: ignore[no-any-return]  # Core[Any] holds a stream


async def _deferred_final(stream: Readable, stage: Stage) -> Any:
    # The final value is the inner stream's, unless transforms were stacked on
    # top; then the inner stream folds the transformed updates the way it folds
    # its own (its finalizer, then its result hooks).
    inner = _resolved(stream._core)
    stages = stream._core.stages
    if all(s.transform is None for s in stages[: stages.index(stage) + 1]):
        return await inner.get_final_response()
    return await refinalize(inner, stage.collected or [])
