"""Running one batch of tool calls: validation, function middleware, errors as results."""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

import attrs

from agentcore._concurrency import gather_in_order
from agentcore._fastpaths import function_context
from agentcore._types.contents import (
    DataContent,
    FunctionCallContent,
    FunctionResultContent,
    TextContent,
    UriContent,
)
from agentcore.errors import RunAbortedError, ToolCallRefused, UnknownToolError
from agentcore.middleware._contexts import FunctionInvocationContext
from agentcore.middleware._pipeline import MiddlewareTermination, run_pipeline
from agentcore.tools import ToolArgumentsError, ToolContext, ToolResult, UserInputRequired
from agentcore.tools._context import NO_ANSWERS

if TYPE_CHECKING:
    import logging

    from agentcore._loop.state import LoopState


_MEDIA_CONTENTS = (TextContent, DataContent, UriContent)


def _log() -> logging.Logger:
    """Where a tool's own failure is logged, with its traceback, at WARNING: the run goes
    on (the model is told the call failed) but the developer must be able to see why, and
    WARNING is what Python shows when nothing configured logging. ``logging`` loads on the
    first failure, not with ``import agentcore``."""
    import logging

    return logging.getLogger("agentcore.tools")


def result_value(value: Any, tool: str | None = None) -> Any:
    """A tool's return value in a form that survives JSON (what the model will see).

    A sequence of text, data and URI contents stays contents (a tuple): adapters
    send them as the API allows, so an image a tool returned reaches the model.
    attrs classes, dataclasses and pydantic models become dicts; dates and times
    become ISO 8601 text, UUIDs, decimals and paths their text, enums their value,
    sets lists. Anything else raises a ``TypeError`` naming ``tool``: the model must
    never be sent a Python repr.
    """
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    contents = _media_contents(value)
    if contents is not None:
        return contents
    if attrs.has(type(cast("object", value))):
        value = attrs.asdict(value)
    else:
        dump = getattr(value, "model_dump", None)
        if callable(dump):
            return dump(mode="json")
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        import dataclasses

        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            value = dataclasses.asdict(value)
        try:
            return json.loads(json.dumps(value, default=_known_json))
        except _NotJsonError as exc:
            where = "" if exc.obj is value else f"a {type(value).__name__} holding "
            name = f"tool {tool!r}" if tool is not None else "a tool"
            raise TypeError(
                f"{name} returned {where}a {type(exc.obj).__name__}, which cannot be sent to "
                "the model as JSON; return a str, number, bool, None, a list or dict of "
                "those, an attrs class, a dataclass, a pydantic model, or text/data/URI "
                "contents, or convert it yourself (for example a dict of its fields or "
                "its str())"
            ) from None
    return value


class _NotJsonError(TypeError):
    def __init__(self, obj: object) -> None:
        super().__init__(type(obj).__name__)
        self.obj = obj


def _known_json(obj: object) -> Any:
    """The JSON form of the few common types ``json`` lacks (see :func:`result_value`)."""
    import datetime
    import decimal
    import enum
    import pathlib
    import uuid

    if isinstance(obj, (datetime.date, datetime.time)):  # datetime is a date
        return obj.isoformat()
    if isinstance(obj, enum.Enum):
        return obj.value
    if isinstance(obj, (uuid.UUID, decimal.Decimal, pathlib.PurePath)):
        return str(obj)
    if isinstance(obj, (set, frozenset)):
        return list(cast("set[Any]", obj))
    if attrs.has(type(obj)):
        return attrs.asdict(cast("attrs.AttrsInstance", obj))
    raise _NotJsonError(obj)


def _media_contents(value: object) -> tuple[Any, ...] | None:
    if isinstance(value, _MEDIA_CONTENTS):
        return (value,)
    if not isinstance(value, (list, tuple)) or not value:
        return None
    items = tuple(cast("Sequence[object]", value))
    return items if all(isinstance(item, _MEDIA_CONTENTS) for item in items) else None


def tool_result_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, default=str)


def _on_function_termination(
    context: FunctionInvocationContext, termination: MiddlewareTermination
) -> None:
    context.terminated = True
    if termination.has_result:
        context.result = termination.result


class Outcome:
    """How one call ended: its result, and whether it failed, ended the loop, or
    asked the user something (``prompt``; the call has no result yet then)."""

    __slots__ = ("content", "errored", "prompt", "terminated")

    def __init__(
        self,
        content: FunctionResultContent,
        errored: bool,
        terminated: bool,
        prompt: str | None = None,
    ) -> None:
        self.content = content
        self.errored = errored
        self.terminated = terminated
        self.prompt = prompt


async def run_batch(
    state: LoopState, calls: list[FunctionCallContent], *, refuse_unknown: bool = True
) -> list[Outcome]:
    if refuse_unknown and state.config.terminate_on_unknown_calls:
        # Raised before any call of the batch starts, and not wrapped in an
        # exception group by the task group below.
        refuse_unknown_calls(state, calls)
    if len(calls) <= 1:
        return [await invoke_call(state, calls[0])] if calls else []
    durable = state.run.durable
    if durable is not None and durable.before_batch([call.call_id for call in calls]):
        # The engine cannot draw step positions ahead: one call at a time, in call
        # order, so a replay meets the steps in the order they were recorded.
        return [await invoke_call(state, call) for call in calls]
    return await gather_in_order(
        [functools.partial(invoke_call, state, call) for call in calls],
        limit=state.config.max_concurrency,
    )


def refuse_unknown_calls(state: LoopState, calls: list[FunctionCallContent]) -> None:
    """Raise :class:`UnknownToolError` for the first call to a tool this run does not
    have, under ``terminate_on_unknown_calls``."""
    if state.config.terminate_on_unknown_calls:
        for call in calls:
            if call.name not in state.function_tools:
                raise UnknownToolError(call.name, list(state.function_tools))


def tool_result_outcome(call: FunctionCallContent, result: ToolResult, terminated: bool) -> Outcome:
    """A :class:`ToolResult` as the call's outcome: its value for the model (an error
    result, counted as a failure, when ``is_error``), the rest kept for code."""
    extra: dict[str, Any] = {}
    if result.structured is not None:
        extra["structured"] = result.structured
    if result.meta is not None:
        extra["meta"] = result.meta
    content = FunctionResultContent(
        call.call_id,
        result=result_value(result.value, call.name),
        error="tool error" if result.is_error else None,
        additional_properties=extra or None,
    )
    return Outcome(content, result.is_error, terminated)


def error_outcome(call: FunctionCallContent, message: str, kind: str) -> Outcome:
    return Outcome(FunctionResultContent(call.call_id, result=message, error=kind), True, False)


async def invoke_call(state: LoopState, call: FunctionCallContent) -> Outcome:
    """Run one call through the function middleware.

    The tool's own failures (and ToolCallRefused) become error results for the
    model; any other exception raised by a function middleware propagates.
    """
    tool = state.function_tools.get(call.name)
    if tool is None:
        available = ", ".join(sorted(state.function_tools)) or "none"
        return error_outcome(
            call,
            f"Error: there is no tool named {call.name!r}. Available tools: {available}.",
            "unknown tool",
        )
    limit = tool.max_invocations
    count = 0
    if limit is not None:  # counted only for tools that have a limit
        counts = state.invocations
        if counts is None:
            counts = state.invocations = {}
        count = counts[call.name] = counts.get(call.name, 0) + 1
    if limit is not None and count > limit:
        return error_outcome(
            call,
            f"Error: {call.name} may be called at most {tool.max_invocations} times in one run.",
            "max invocations",
        )
    try:
        arguments = tool.parse_arguments(call.arguments)
    except ToolArgumentsError as exc:
        return error_outcome(
            call, f"Error: invalid arguments for {call.name}: {exc}", "invalid arguments"
        )
    except RecursionError:
        # A tool of another shape read the model's arguments with plain ``json``: nesting
        # too deep for it is the model's mistake to report, not a failure of the run.
        return error_outcome(
            call,
            f"Error: invalid arguments for {call.name}: arguments are nested too deeply to "
            "read; send a flatter JSON object",
            "invalid arguments",
        )

    observers = state.observers if state.observers else None
    run = state.run
    if observers is not None:
        await observers.tool_call_started(run.run_id, call.call_id, call.name, arguments)
    handlers = state.pipelines.function
    tool_failures: list[Exception] = []
    answers = state.answers.get(call.call_id)
    terminated = False
    context: FunctionInvocationContext | None = None
    try:
        if not handlers:
            # No function middleware: call the tool directly (no context to build).
            tool_context = ToolContext(call.call_id, tool.name, run, answers or NO_ANSWERS)
            try:
                result = await tool.invoke(arguments, context=tool_context)
            except Exception as exc:
                tool_failures.append(exc)
                raise
        else:
            context = function_context(tool, arguments, call.call_id, run)
            if call.call_id in state.approved:
                context.approved = True

            async def final(ctx: FunctionInvocationContext) -> None:
                try:
                    ctx.result = await ctx.function.invoke(
                        ctx.arguments,
                        context=ToolContext(
                            ctx.call_id, ctx.function.name, ctx.run, answers or NO_ANSWERS
                        ),
                    )
                except Exception as exc:
                    tool_failures.append(exc)
                    raise

            await run_pipeline(handlers, context, final, _on_function_termination)
            result = context.result
            terminated = context.terminated
    except UserInputRequired as exc:
        outcome = Outcome(FunctionResultContent(call.call_id), False, False, prompt=exc.prompt)
    except ToolCallRefused as exc:
        outcome = error_outcome(call, f"Error: {call.name} was refused: {exc}", "refused")
    except RunAbortedError:
        raise
    except Exception as exc:
        if not any(exc is failure for failure in tool_failures):
            raise  # raised by a function middleware: it propagates to the caller
        durable = run.durable
        if durable is not None and isinstance(exc, durable.errors):
            raise  # the durable engine's own failure: the run stops, the model is not told
        # The tool's own failure, passed back out through the middleware: the model is told.
        # A function middleware may replace the exception's text (context.error_detail,
        # e.g. to hide what an untrusted tool said).
        shown = context.error_detail if context is not None else None
        _log().warning(
            "tool %r raised %s (call %s); the model was told the call failed",
            call.name,
            type(exc).__name__,
            call.call_id,
            exc_info=exc,
        )
        if isinstance(exc, TimeoutError):
            text = shown if shown is not None else str(exc)
            outcome = error_outcome(call, f"Error: {call.name} timed out. {text}", "timeout")
        else:
            detail = ""
            if state.config.include_detailed_errors:
                detail = f" {shown}" if shown is not None else f" {type(exc).__name__}: {exc}"
            outcome = error_outcome(call, f"Error: {call.name} failed.{detail}", "exception")
    else:
        if isinstance(result, ToolResult):
            outcome = tool_result_outcome(call, result, terminated)
        else:
            outcome = Outcome(
                FunctionResultContent(call.call_id, result=result_value(result, call.name)),
                False,
                terminated,
            )
    if observers is not None:
        content = outcome.content
        await observers.tool_call_ended(
            run.run_id, call.call_id, call.name, content.result, content.error
        )
    return outcome
