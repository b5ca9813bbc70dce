"""``ResponseStream``: an async-iterable, awaitable stream of updates with a final value.

A stream is a source of updates plus a chain of stages. ``map`` adds a stage
(a per-update transform and, optionally, a new finalizer) without adding an
async-generator layer, so stacking middleware transforms stays cheap. The final
value is always computed from the updates *as the consumer saw them*: what was
streamed and what :meth:`ResponseStream.get_final_response` returns never disagree.
"""

from __future__ import annotations

import inspect
from collections.abc import (
    AsyncIterable,
    Awaitable,
    Callable,
    Generator,
    Sequence,
)
from types import FunctionType, TracebackType
from typing import Any, Generic, TypeVar, cast, overload

from agentcore._streams.reader import (
    COMPLETED,
    CONSUMING,
    ENDED,
    EXHAUSTED,
    UNUSED,
    Core,
    Delegate,
    Finalizer,
    Stage,
    StreamConsumedError,
    adopt,
    close_all,
    close_source,
    enter,
    finalize,
    flush_all,
    inject,
    leave,
    plan_of,
    pop_frame,
)
from agentcore._streams.replay import Relay, StreamEnd, one_by_one, replay_updates
from agentcore._types.responses import (
    AgentResponse,
    AgentResponseUpdate,
    ChatResponse,
    ChatResponseUpdate,
)

__all__ = ["ResponseStream", "StreamConsumedError"]

UpdateT = TypeVar("UpdateT")
FinalT = TypeVar("FinalT")
NewUpdateT = TypeVar("NewUpdateT")
NewFinalT = TypeVar("NewFinalT")
ValueT = TypeVar("ValueT")


class ResponseStream(Generic[UpdateT, FinalT]):
    """A stream of updates that also yields a final value.

    ``async for update in stream`` delivers updates; ``await
    stream.get_final_response()`` (or just ``await stream``) drains what is left
    and returns the final value, computed by ``finalizer`` from every update the
    consumer of this stream saw. One consumer at a time: a second concurrent
    iteration raises :class:`StreamConsumedError`. Leaving the loop early and
    dropping the iterator, ``aclose()``, ``async with`` or cancellation all close
    the source (and with it the provider connection).

    ``final``, when given, is the value the updates amount to without folding
    (say, the final value of a stream they were relayed from). It is used, instead
    of ``finalizer``, when the consumer read exactly ``updates`` to their end: not
    closed early, not failed, not transformed by a ``map``.
    """

    __slots__ = ("_core", "_depth")
    _core: Core[ResponseStream[Any, Any]]
    _depth: int

    @overload
    def __init__(
        self,
        updates: AsyncIterable[UpdateT],
        *,
        finalizer: Callable[[Sequence[UpdateT]], Awaitable[FinalT]],
        final: Callable[[], FinalT | Awaitable[FinalT]] | None = None,
    ) -> None: ...

    @overload
    def __init__(
        self,
        updates: AsyncIterable[UpdateT],
        *,
        finalizer: Callable[[Sequence[UpdateT]], FinalT],
        final: Callable[[], FinalT | Awaitable[FinalT]] | None = None,
    ) -> None: ...

    def __init__(
        self,
        updates: AsyncIterable[UpdateT],
        *,
        finalizer: Callable[[Sequence[UpdateT]], FinalT | Awaitable[FinalT]],
        final: Callable[[], FinalT | Awaitable[FinalT]] | None = None,
    ) -> None:
        # ``final``: the value known without folding, used when the consumer read
        # exactly ``updates`` to their end (see the class docstring).
        self._core = Core(updates, Stage(None, finalizer, [], final))
        self._depth = 0

    # -- construction -------------------------------------------------------------

    @staticmethod
    def from_awaitable(
        awaitable: Awaitable[ResponseStream[NewUpdateT, NewFinalT]],
    ) -> ResponseStream[NewUpdateT, NewFinalT]:
        """A stream whose setup is async: ``awaitable`` is awaited on first use.

        This lets a plain ``def`` return a stream at once and do its async
        preparation only when the caller starts consuming.
        """
        # A static method, so ``ResponseStream.from_awaitable(...)`` infers its types
        # without the class being parametrized first.
        stream = cast("ResponseStream[NewUpdateT, NewFinalT]", object.__new__(ResponseStream))
        core = Core(None, Stage(None, None, []))
        core.setup = awaitable
        stream._core = core
        stream._depth = 0
        return stream

    @overload
    @staticmethod
    def from_response(
        response: ChatResponse[ValueT],
    ) -> ResponseStream[ChatResponseUpdate, ChatResponse[ValueT]]: ...

    @overload
    @staticmethod
    def from_response(
        response: AgentResponse[ValueT],
    ) -> ResponseStream[AgentResponseUpdate, AgentResponse[ValueT]]: ...

    @staticmethod
    def from_response(response: ChatResponse[Any] | AgentResponse[Any]) -> ResponseStream[Any, Any]:
        """A finished response replayed as a stream.

        The updates are the response's events (agent responses), one update per
        message, then one with its usage and finish reason. Read unchanged to the
        end, the final value is ``response`` itself (``value`` included); closed
        early or mapped, it is the fold of what the consumer saw.
        """
        if not isinstance(response, (ChatResponse, AgentResponse)):
            raise TypeError(
                "from_response() replays a ChatResponse or an AgentResponse, "
                f"got {type(response).__name__}"
            )
        return ResponseStream(
            one_by_one(replay_updates(response)),
            finalizer=type(response).from_updates,
            final=lambda: response,
        )

    @staticmethod
    def _of(
        source: AsyncIterable[Any],
        *,
        finalizer: Finalizer,
        known_final: Callable[[], Any] | None = None,
        transform: Callable[[Any], Any] | None = None,
        folds_inputs: bool = False,
    ) -> ResponseStream[Any, Any]:
        """A stream whose first stage transforms the source's updates, and whose
        final value is ``known_final()`` if it is read unchanged to its end; otherwise
        ``finalizer`` folds what the consumer saw (or, with ``folds_inputs``,
        the source's updates the consumer saw, before ``transform``)."""
        stream: ResponseStream[Any, Any] = object.__new__(ResponseStream)  # pyright: ignore[reportUnknownVariableType]  # a bare instance, typed as the caller needs
        stage = Stage(transform, finalizer, [], known_final, folds_inputs)
        core = stream._core = Core(source, stage)
        core.may_delegate = True
        stream._depth = 0
        return stream

    @overload
    def map(
        self, transform: Callable[[UpdateT], UpdateT | None]
    ) -> ResponseStream[UpdateT, FinalT]: ...

    @overload
    def map(
        self,
        transform: Callable[[UpdateT], NewUpdateT | None],
        finalizer: Callable[[Sequence[NewUpdateT]], Awaitable[NewFinalT]],
    ) -> ResponseStream[NewUpdateT, NewFinalT]: ...

    @overload
    def map(
        self,
        transform: Callable[[UpdateT], NewUpdateT | None],
        finalizer: Callable[[Sequence[NewUpdateT]], NewFinalT],
    ) -> ResponseStream[NewUpdateT, NewFinalT]: ...

    def map(
        self,
        transform: Callable[[UpdateT], Any],
        finalizer: Callable[[Sequence[Any]], Any] | None = None,
    ) -> ResponseStream[Any, Any]:
        """A stream of ``transform(update)`` for each update; ``None`` drops one.

        Without ``finalizer`` the update type is unchanged and the final value is
        this stream's finalizer (and result hooks) applied to the *transformed*
        updates. With ``finalizer`` the new stream has its own final value; this
        stream's result hooks still run on its own final value when the new
        stream finishes. Either way this stream is taken over: consume the new one.
        """
        self._check_unused("map")
        _refuse_async_transform(transform)
        stage = self._core.stages[self._depth]
        if finalizer is None:
            new_stage = Stage(transform, stage.finalizer, stage.hooks)
            stage.hooks = []
        else:
            new_stage = Stage(transform, finalizer, [])
        return self._push(new_stage)

    def with_result_hook(
        self, hook: Callable[[FinalT], FinalT | Awaitable[FinalT] | None]
    ) -> ResponseStream[UpdateT, FinalT]:
        """Post-process the final value: ``hook(final)`` may return a replacement.

        Hooks run in the order they were added, once, when the final value is
        first computed. Returning ``None`` keeps the value unchanged.
        """
        self._check_unused("with_result_hook")
        self._core.stages[self._depth].hooks.append(hook)
        return self

    def relay(
        self, transform: Callable[[UpdateT], UpdateT | None] | None = None
    ) -> ResponseStream[UpdateT, FinalT]:
        """A stream of this one's updates passed through ``transform``.

        ``transform(update)`` returns the update to deliver (the same one, for an
        observer), a replacement, or ``None`` to drop it. The final value is this
        stream's own when the consumer read the relay to its end and ``transform``
        passed every update on unchanged; otherwise (an update replaced or dropped,
        the relay closed early or mapped) it is this stream's fold (its finalizer
        and result hooks) of what the consumer saw. Unlike :meth:`map`, which always
        folds, a relay keeps what only the inner stream knows (a parsed ``value``,
        a committed response). This stream is taken over: consume the relay.
        """
        self._check_unused("relay")
        return self._relayed(Relay(self, transform, None))

    def on_end(
        self, hook: Callable[[StreamEnd[FinalT]], Awaitable[None] | None]
    ) -> ResponseStream[UpdateT, FinalT]:
        """A stream of this one's updates that calls ``hook`` once, when it ends.

        ``hook`` gets a :class:`StreamEnd`: ``"completed"`` with this stream's final
        value (before the last ``async for`` step returns), ``"failed"`` with the
        exception (which then propagates), or ``"closed"`` when the consumer left
        early (``aclose()``, ``async with``) or was cancelled. It may be async; on
        failure and close it runs shielded from cancellation. An exception it raises
        on completion fails the stream. The final value is as with :meth:`relay`.
        This stream is taken over: consume the returned one.
        """
        if not callable(hook):
            raise TypeError(f"on_end() takes a callable hook (StreamEnd -> None), got {hook!r}")
        self._check_unused("on_end")
        return self._relayed(Relay(self, None, hook))

    def _relayed(self, relay: Relay) -> ResponseStream[UpdateT, FinalT]:
        self._core.phase = CONSUMING  # no more map() here: the relay reads this stream
        stream = ResponseStream._of(
            relay,
            finalizer=relay.fold,
            known_final=relay.final,
            transform=relay.step if relay.transform is not None else None,
        )
        return stream

    def _push(self, stage: Stage) -> ResponseStream[Any, Any]:
        core = self._core
        core.stages.append(stage)
        child: ResponseStream[Any, Any] = type(self).__new__(type(self))
        child._core = core
        child._depth = self._depth + 1
        return child

    def _check_unused(self, what: str) -> None:
        core = self._core
        if core.phase is not UNUSED or core.iterator is not None:
            raise StreamConsumedError(
                f"cannot call {what}() on a stream that is being consumed or was closed"
            )
        if len(core.stages) != self._depth + 1:
            raise StreamConsumedError(
                f"cannot call {what}() on a stream that was mapped; use the mapped stream"
            )

    # -- consumption ----------------------------------------------------------------

    def __aiter__(self) -> ResponseStream[UpdateT, FinalT]:
        # The stream is its own iterator: leaving an ``async for`` early leaves no
        # suspended generator behind, so ``aclose()`` (or ``async with``) closes
        # everything at once, and trio has nothing to warn about.
        if len(self._core.stages) != self._depth + 1:
            raise StreamConsumedError("this stream was mapped; iterate the mapped stream instead")
        core = self._core
        if core.phase is UNUSED:
            core.phase = CONSUMING
        return self

    async def __anext__(self) -> UpdateT:
        core = self._core
        if core.phase is not CONSUMING and core.phase >= EXHAUSTED:  # `is` first: per update
            raise StopAsyncIteration
        if core.pulling:
            raise StreamConsumedError(
                "another task is reading this stream right now; streams have one consumer"
            )
        plan = core.plan
        if plan is None:
            if len(core.stages) != self._depth + 1:
                raise StreamConsumedError(
                    "this stream was mapped; iterate the mapped stream instead"
                )
            plan = core.plan = plan_of(core)
        core.pulling = True
        try:
            iterator = core.iterator
            if iterator is None:
                setup = core.setup
                if setup is not None:
                    # ``from_awaitable``: run the setup now, then read the inner stream.
                    core.setup = None
                    inner = await setup
                    core.deferred = inner
                    if len(core.stages) == 1 and not core.stages[0].hooks:
                        # Nothing stacked on this stream: become the inner stream, so
                        # no layer is left between the caller and the updates.
                        core.pulling = False
                        self._core, self._depth = inner._core, inner._depth
                        return await self.__anext__()
                    iterator = core.iterator = inner.__aiter__()
                else:
                    assert core.source is not None
                    iterator = core.iterator = aiter(core.source)
            if not core.may_delegate:
                # A plain source: it never delegates and nothing is injected into it.
                # (The steps loop is written out again below for sources that may delegate,
                # on purpose: a helper call per update is what this path avoids.)
                while True:
                    try:
                        update = await iterator.__anext__()
                    except StopAsyncIteration:
                        core.phase = COMPLETED
                        raise
                    for transform, collected, _ in plan:
                        if transform is not None:
                            update = transform(update)
                            if update is None:
                                break
                        if collected is not None:
                            collected.append(update)
                    else:
                        return update  # type: ignore[no-any-return]  # the last stage's type
            thrown: BaseException | None = None
            while True:
                backlog = core.backlog
                if backlog and thrown is None:  # a failure to pass on goes first
                    flush_all(core.frames)  # what was read before it, first
                    update, steps = backlog.pop(0)
                else:
                    innermost = core.innermost
                    if innermost is not None:
                        source, steps, may_delegate = innermost
                    else:
                        source, steps, may_delegate = iterator, plan, True
                    try:
                        if thrown is None:
                            update = await source.__anext__()
                        else:
                            # A delegated stream failed: the generator that
                            # delegated to it sees the failure where it yielded.
                            failure, thrown = thrown, None
                            update = await cast("Any", source).athrow(failure)
                    except StopAsyncIteration:
                        frames = core.frames
                        if not frames:
                            if core.backlog:
                                iterator = core.iterator = ENDED  # deliver the rest first
                                continue
                            core.phase = COMPLETED
                            raise
                        leave(pop_frame(core, frames), completed=True)
                        continue
                    except BaseException as exc:
                        frames = core.frames
                        if not frames:
                            raise
                        frame = pop_frame(core, frames)
                        leave(frame)
                        await close_source(frame.iterator)
                        thrown = exc
                        continue
                    if may_delegate and type(update) is Delegate:
                        try:
                            target = update.target
                            if isinstance(target, ResponseStream):
                                delegated: ResponseStream[Any, Any] = target  # pyright: ignore[reportUnknownVariableType]  # isinstance on a generic
                                enter(core, delegated, steps, await adopt(delegated))
                            else:
                                enter(core, target, steps, None)
                        except BaseException as exc:
                            thrown = exc  # raised in the generator, as iterating would
                        continue
                    if core.backlog:
                        core.backlog.append((update, steps))  # injected ones go first
                        continue
                level = 0
                try:
                    for transform, collected, level in steps:  # noqa: B007  # read on failure
                        if transform is not None:
                            update = transform(update)
                            if update is None:
                                break
                        if collected is not None:
                            collected.append(update)
                    else:
                        return update  # type: ignore[no-any-return]  # the last stage's type
                except BaseException as exc:
                    frames = core.frames
                    if not level or not frames:
                        raise  # a transform of this stream itself: it fails
                    # A transform of a delegated stream: that stream (and what it
                    # delegated to) fails, and the generator that delegated to it
                    # sees the failure at its ``yield``.
                    while len(frames) >= level:
                        frame = pop_frame(core, frames)
                        leave(frame)
                        await close_source(frame.iterator)
                    thrown = exc
        except StopAsyncIteration:
            raise
        except BaseException:
            # A failing source or transform, or cancellation: nothing more will be read.
            core.phase = EXHAUSTED
            await close_all(core)
            raise
        finally:
            core.pulling = False

    def _inject(self, update: Any) -> None:
        """Deliver ``update`` (through this stream's own steps) before the next one read."""
        inject(self._core, update)

    async def get_final_response(self) -> FinalT:
        """Drain what the consumer has not read and return the final value."""
        core = self._core
        if len(core.stages) != self._depth + 1:
            raise StreamConsumedError("this stream was mapped; ask the mapped stream instead")
        stage = core.stages[self._depth]
        if stage.finalized:
            return stage.final  # type: ignore[no-any-return]  # stages keep their final value untyped
        if core.phase < EXHAUSTED:
            # Continue where the consumer stopped (or start): the same updates reach
            # the same collectors, so the final value covers the whole stream.
            core.phase = CONSUMING
            while True:
                try:
                    await self.__anext__()
                except StopAsyncIteration:
                    break
            # Reading may have turned a deferred stream into its inner one.
            core = self._core
            stage = core.stages[self._depth]
            if stage.finalized:
                return stage.final  # type: ignore[no-any-return]  # stages keep their final value untyped
        for i, each in enumerate(core.stages):
            if not each.finalized and (each.hooks or i == self._depth):
                await finalize(self, each)
        return stage.final  # type: ignore[no-any-return]  # stages keep their final value untyped

    def __await__(self) -> Generator[Any, None, FinalT]:
        return self.get_final_response().__await__()

    async def aclose(self) -> None:
        """Stop the stream and close its source."""
        core = self._core
        if core.phase < EXHAUSTED:
            core.phase = EXHAUSTED
            await close_all(core)
            setup, core.setup = core.setup, None
            if inspect.iscoroutine(setup):
                # ``from_awaitable`` setup that never started: close it so it is not
                # reported as "never awaited".
                setup.close()

    async def __aenter__(self) -> ResponseStream[UpdateT, FinalT]:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()


def _refuse_async_transform(transform: Callable[..., Any]) -> None:
    """Raise ``TypeError`` for a coroutine function: ``map`` calls its transform
    once per update without awaiting (that keeps a mapped update free)."""
    refused = inspect.iscoroutinefunction(transform)
    if not refused and type(transform) is not FunctionType:
        # An object whose own ``__call__`` may be async (a function's is a C wrapper,
        # not worth the look: ``map`` runs in every run of every stream middleware).
        call = getattr(transform, "__call__", None)  # noqa: B004  # a callable object's own method
        refused = inspect.iscoroutinefunction(call)
    if refused:
        raise TypeError(
            f"ResponseStream.map() takes a plain function, not the async function "
            f"{getattr(transform, '__qualname__', transform)!r}: the transform is called "
            "once per update and never awaited. Do the async work in an async generator "
            "that reads this stream, and wrap it: ResponseStream(your_generator(stream), "
            "finalizer=...)"
        )
