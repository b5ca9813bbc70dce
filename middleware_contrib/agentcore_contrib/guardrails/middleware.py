"""Guardrail middleware: input guards before the model call, output guards after it.

:class:`ChatGuardrails` guards every model call of a run (so tool results that come
back into the conversation are checked too); :class:`AgentGuardrails` guards a run's
input and its final answer. A block ends the call with a clear message
(``on_violation="terminate"``, the default) or raises :class:`GuardrailViolation`
(``"raise"``). A guard that fails raises :class:`GuardrailError`. Both fail closed.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, Literal, NoReturn

import attrs

from agentcore import (
    AgentContext,
    AgentResponse,
    AgentResponseUpdate,
    ChatContext,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    CustomEvent,
    FunctionResultContent,
    Message,
    MiddlewareTermination,
    ResponseStream,
    RunContext,
    TextContent,
)
from agentcore_contrib.guardrails._base import (
    GuardrailViolation,
    RequestGuard,
    TextGuard,
    check_guard,
    run_request_check,
    run_text_guards,
)
from agentcore_contrib.guardrails._holdback import guard_stream

__all__ = ["DEFAULT_BLOCK_MESSAGE", "AgentGuardrails", "ChatGuardrails"]

DEFAULT_BLOCK_MESSAGE = "Blocked by the {guard} guardrail ({stage})."
ViolationMessage = str | Callable[[GuardrailViolation], str]
OnViolation = Literal["terminate", "raise"]

_logger = logging.getLogger("agentcore_contrib.guardrails")


def _is_text_guard(guard: object) -> bool:
    return callable(getattr(guard, "check", None))


class _Guardrails:
    """What both scopes share: the guards, and how a block is reported."""

    def __init__(
        self,
        *,
        input: Sequence[TextGuard | RequestGuard] = (),
        output: Sequence[TextGuard] = (),
        on_violation: OnViolation = "terminate",
        message: ViolationMessage = DEFAULT_BLOCK_MESSAGE,
        holdback_chars: int = 128,
        input_roles: Iterable[str] = ("user", "tool"),
    ) -> None:
        for guard in input:
            check_guard(guard, output=False)
        for guard in output:
            check_guard(guard, output=True)
        if not (input or output):
            raise ValueError("give at least one input or output guard")
        if on_violation not in ("terminate", "raise"):
            raise ValueError(f"on_violation must be 'terminate' or 'raise', got {on_violation!r}")
        if isinstance(holdback_chars, bool) or not isinstance(holdback_chars, int):
            raise TypeError(f"holdback_chars must be an int, got {holdback_chars!r}")
        if holdback_chars < 0:
            raise ValueError(f"holdback_chars must be zero or more, got {holdback_chars}")
        if isinstance(message, str):
            try:
                message.format(guard="g", reason="r", stage="input")
            except (KeyError, IndexError, ValueError) as exc:
                raise ValueError(
                    "message may only use the {guard}, {reason} and {stage} fields"
                ) from exc
        elif not callable(message):
            raise TypeError("message must be a str template or a callable taking the violation")
        self.input: tuple[TextGuard | RequestGuard, ...] = tuple(input)
        self.output: tuple[TextGuard, ...] = tuple(output)
        self.on_violation: OnViolation = on_violation
        self.message = message
        self.holdback_chars = holdback_chars
        self.input_roles: frozenset[str] = frozenset(input_roles)

    def block_message(self, violation: GuardrailViolation) -> str:
        """What the caller reads instead of the blocked content."""
        if isinstance(self.message, str):
            return self.message.format(
                guard=violation.guard, reason=violation.reason, stage=violation.stage
            )
        return self.message(violation)

    async def report(self, run: RunContext, violation: GuardrailViolation) -> None:
        """Log the violation and emit a ``guardrail_violation`` event to the caller."""
        _logger.info("%s", violation)
        data = {"guard": violation.guard, "reason": violation.reason, "stage": violation.stage}
        await run.emit(CustomEvent("guardrail_violation", data, source="guardrails"))

    async def _guard_value(self, guard: TextGuard, value: Any) -> Any:
        if isinstance(value, str):
            return await run_text_guards((guard,), value, "input")
        if isinstance(value, list):
            items: list[Any] = value  # pyright: ignore[reportUnknownVariableType]  # isinstance on a generic
            checked: list[Any] = [await self._guard_value(guard, v) for v in items]
            unchanged = all(a is b for a, b in zip(checked, items, strict=True))
            return items if unchanged else checked
        if isinstance(value, dict):
            mapping: dict[Any, Any] = value  # pyright: ignore[reportUnknownVariableType]  # isinstance on a generic
            out: dict[Any, Any] = {k: await self._guard_value(guard, v) for k, v in mapping.items()}
            return mapping if all(out[k] is v for k, v in mapping.items()) else out
        return value

    async def _guard_message(self, guard: TextGuard, message: Message) -> Message:
        contents: list[Content] = []
        changed = False
        for content in message.contents:
            new: Content = content
            if isinstance(content, TextContent):
                text = await run_text_guards((guard,), content.text, "input")
                if text != content.text:
                    new = attrs.evolve(content, text=text)
            elif isinstance(content, FunctionResultContent):
                result = await self._guard_value(guard, content.result)
                if result is not content.result and result != content.result:
                    new = attrs.evolve(content, result=result)
            changed = changed or new is not content
            contents.append(new)
        return attrs.evolve(message, contents=tuple(contents)) if changed else message

    async def guard_input(
        self, messages: list[Message], start: int, *, client: object | None, options: Any
    ) -> list[Message]:
        """``messages`` after the input guards (redactions applied from ``start`` on)."""
        out = list(messages)
        for guard in self.input:
            if _is_text_guard(guard):
                text_guard: TextGuard = guard  # type: ignore[assignment]  # checked above
                for index in range(start, len(out)):
                    if out[index].role in self.input_roles:
                        out[index] = await self._guard_message(text_guard, out[index])
            else:
                request_guard: RequestGuard = guard  # type: ignore[assignment]  # checked above
                await run_request_check(
                    request_guard, out, client=client, options=options, stage="input"
                )
        return out

    async def guard_output(self, messages: Sequence[Message]) -> tuple[Message, ...]:
        """The assistant text of ``messages`` after the output guards."""
        out: list[Message] = []
        for message in messages:
            if message.role != "assistant":
                out.append(message)
                continue
            contents: list[Content] = []
            for content in message.contents:
                if isinstance(content, TextContent) and content.text:
                    text = await run_text_guards(self.output, content.text, "output")
                    if text != content.text:
                        content = attrs.evolve(content, text=text)
                contents.append(content)
            out.append(attrs.evolve(message, contents=tuple(contents)))
        return tuple(out)

    def _stop(self, violation: GuardrailViolation, result: object) -> MiddlewareTermination:
        return MiddlewareTermination(str(violation), result=result)


def _latest_turn_start(messages: Sequence[Message]) -> int:
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].role == "assistant":
            return index + 1
    return 0


class ChatGuardrails(_Guardrails):
    """Guards every model call: input guards on the messages new since the model last
    spoke (the user's turn, or the tool results it asked for), output guards on each
    answer.

    Redactions on input also rewrite the run's transcript (``rewrite_transcript``), so
    later calls of the run do not send the original; place this middleware outside any
    middleware that trims the messages of a single call. In a streaming call the output guards
    hold back ``holdback_chars`` of text until it passes (see the docs). Input guards
    see messages whose role is in ``input_roles`` (default user and tool).
    """

    async def process(self, context: ChatContext, call_next: Callable[[], Awaitable[None]]) -> None:
        if self.input:
            original = context.messages
            try:
                checked = await self.guard_input(
                    original,
                    _latest_turn_start(original),
                    client=context.client,
                    options=context.options,
                )
            except GuardrailViolation as violation:
                await self._block(context.run, violation)
            if any(a is not b for a, b in zip(original, checked, strict=True)):
                # Redactions stay for the rest of the run, or a later call would send
                # the original text again.
                context.rewrite_transcript(checked)
        await call_next()
        if not self.output:
            return
        result = context.result
        if isinstance(result, ResponseStream):
            run = context.run

            async def on_violation(
                violation: GuardrailViolation, template: ChatResponseUpdate | None
            ) -> ChatResponseUpdate:
                await self.report(run, violation)
                if self.on_violation == "raise":
                    raise violation
                return ChatResponseUpdate(
                    contents=(TextContent(self.block_message(violation)),),
                    role="assistant",
                    message_id=template.message_id if template is not None else None,
                    finish_reason="content_filter",
                )

            context.result = guard_stream(
                result,
                self.output,
                window=self.holdback_chars,
                fold=ChatResponse.from_updates,
                on_violation=on_violation,
            )
        elif isinstance(result, ChatResponse):
            try:
                messages = await self.guard_output(result.messages)
            except GuardrailViolation as violation:
                await self._block(context.run, violation)
            if messages != result.messages:
                context.result = attrs.evolve(result, messages=messages)

    async def _block(self, run: RunContext, violation: GuardrailViolation) -> NoReturn:
        await self.report(run, violation)
        if self.on_violation == "raise":
            raise violation
        answer = Message("assistant", self.block_message(violation))
        raise self._stop(
            violation, ChatResponse(messages=(answer,), finish_reason="content_filter")
        )


class AgentGuardrails(_Guardrails):
    """Guards a whole run: input guards on the run's input messages before it starts,
    output guards on its answer.

    Input redactions change the run's input (so the history store keeps the redacted
    text). The output is checked after the run, so history already holds what the
    model said; use :class:`ChatGuardrails` to stop output before the tool loop acts
    on it. Size guards count with the agent's chat client when it can count tokens.
    """

    async def process(
        self, context: AgentContext, call_next: Callable[[], Awaitable[None]]
    ) -> None:
        if self.input:
            try:
                context.messages = await self.guard_input(
                    context.messages,
                    0,
                    client=getattr(context.agent, "client", None),
                    options=context.options,
                )
            except GuardrailViolation as violation:
                await self._block(context, violation)
        await call_next()
        if not self.output:
            return
        result = context.result
        if isinstance(result, ResponseStream):
            run = context.run
            name = context.agent.name

            async def on_violation(
                violation: GuardrailViolation, template: AgentResponseUpdate | None
            ) -> AgentResponseUpdate:
                await self.report(run, violation)
                if self.on_violation == "raise":
                    raise violation
                return AgentResponseUpdate(
                    contents=(TextContent(self.block_message(violation)),),
                    role="assistant",
                    agent_name=name,
                    message_id=template.message_id if template is not None else None,
                    finish_reason="content_filter",
                )

            context.result = guard_stream(
                result,
                self.output,
                window=self.holdback_chars,
                fold=AgentResponse.from_updates,
                on_violation=on_violation,
            )
        elif isinstance(result, AgentResponse):
            try:
                messages = await self.guard_output(result.messages)
            except GuardrailViolation as violation:
                await self._block(context, violation)
            if messages != result.messages:
                context.result = attrs.evolve(result, messages=messages, value=None)

    async def _block(self, context: AgentContext, violation: GuardrailViolation) -> NoReturn:
        await self.report(context.run, violation)
        if self.on_violation == "raise":
            raise violation
        response = AgentResponse(
            messages=(Message("assistant", self.block_message(violation)),),
            agent_name=context.agent.name,
            finish_reason="content_filter",
            events=tuple(context.run.events),
        )
        raise self._stop(violation, response)
