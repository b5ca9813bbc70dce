"""SchemaValidator: check the model's answer against a JSON schema or a Python type.

The chat middleware validates each final answer (a model turn without function
calls), stores the parsed value in the response's ``value`` slot, and can ask the
model again with the validation error. The agent middleware puts the value on the
run's :class:`~agentcore.AgentResponse`.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncGenerator, Mapping, Sequence
from typing import Any, cast, get_origin

import attrs

from agentcore import (
    AgentContext,
    AgentResponse,
    ChatContext,
    ChatResponse,
    ChatResponseUpdate,
    FunctionCallContent,
    Message,
    ResponseStream,
    Usage,
    UsageContent,
)
from agentcore.errors import StructuredOutputError
from agentcore.middleware import CallNext
from agentcore.structured import parse_value

__all__ = ["AgentSchemaValidator", "SchemaValidator", "schema_errors"]

ChatStream = ResponseStream[ChatResponseUpdate, ChatResponse[Any]]

DEFAULT_RETRY_PROMPT = (
    "Your previous answer did not match the required format: {error}\n"
    "Answer again with only the corrected JSON."
)

_TYPE_NAMES = ("null", "boolean", "integer", "number", "string", "array", "object")


def _type_name(value: object) -> str:
    for name in _TYPE_NAMES:
        if _is_type(value, name):
            return name
    return type(value).__name__


def _is_type(value: object, name: str) -> bool:
    if name == "null":
        return value is None
    if name == "boolean":
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    if name == "string":
        return isinstance(value, str)
    if name == "number":
        return isinstance(value, (int, float))
    if name == "integer":
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if name == "object":
        return isinstance(value, dict)
    if name == "array":
        return isinstance(value, list)
    return True  # a type name outside JSON Schema's: not checked


def _same(a: object, b: object) -> bool:
    """JSON equality: ``1 == True`` in Python but not in JSON."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    return a == b


def _check(value: object, schema: object, path: str, errors: list[str]) -> None:
    if schema is True or schema == {}:
        return
    if schema is False:
        errors.append(f"{path}: no value is allowed here")
        return
    if not isinstance(schema, Mapping):
        return
    rules = cast("Mapping[str, Any]", schema)
    if "anyOf" in rules or "oneOf" in rules:
        key = "anyOf" if "anyOf" in rules else "oneOf"
        options = cast("Sequence[object]", rules[key])
        fits = sum(not _errors_of(value, option) for option in options)
        if fits == 0 or (key == "oneOf" and fits > 1):
            errors.append(f"{path}: {json.dumps(value)[:80]} matches none of the allowed shapes")
            return
    for part in cast("Sequence[object]", rules.get("allOf", ())):
        _check(value, part, path, errors)
    if "const" in rules and not _same(value, rules["const"]):
        errors.append(f"{path}: must be {json.dumps(rules['const'])}")
    if "enum" in rules:
        allowed = cast("Sequence[object]", rules["enum"])
        if not any(_same(value, option) for option in allowed):
            choices = ", ".join(json.dumps(option) for option in allowed)
            errors.append(f"{path}: must be one of {choices}, got {json.dumps(value)}")
            return
    expected = rules.get("type")
    if expected is not None:
        names = [expected] if isinstance(expected, str) else cast("list[str]", expected)
        if not any(_is_type(value, name) for name in names):
            errors.append(f"{path}: expected {' or '.join(names)}, got {_type_name(value)}")
            return
    if isinstance(value, dict):
        _check_object(cast("dict[str, object]", value), rules, path, errors)
    elif isinstance(value, list):
        _check_array(cast("list[object]", value), rules, path, errors)
    elif isinstance(value, str):
        _check_string(value, rules, path, errors)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        _check_number(value, rules, path, errors)


def _check_object(
    value: dict[str, object], rules: Mapping[str, Any], path: str, errors: list[str]
) -> None:
    properties = cast("Mapping[str, object]", rules.get("properties", {}))
    for name in cast("Sequence[str]", rules.get("required", ())):
        if name not in value:
            errors.append(f"{path}: missing required property {name!r}")
    extra = rules.get("additionalProperties", True)
    for name, item in value.items():
        where = f"{path}.{name}" if re.fullmatch(r"[A-Za-z_]\w*", name) else f"{path}[{name!r}]"
        if name in properties:
            _check(item, properties[name], where, errors)
        elif extra is False:
            errors.append(f"{path}: unexpected property {name!r}")
        else:
            _check(item, extra, where, errors)


def _check_array(
    value: list[object], rules: Mapping[str, Any], path: str, errors: list[str]
) -> None:
    prefix = cast("Sequence[object]", rules.get("prefixItems", ()))
    items = rules.get("items")
    for index, item in enumerate(value):
        if index < len(prefix):
            _check(item, prefix[index], f"{path}[{index}]", errors)
        elif items is not None:
            _check(item, items, f"{path}[{index}]", errors)
    low, high = rules.get("minItems"), rules.get("maxItems")
    if isinstance(low, int) and len(value) < low:
        errors.append(f"{path}: needs at least {low} items, got {len(value)}")
    if isinstance(high, int) and len(value) > high:
        errors.append(f"{path}: allows at most {high} items, got {len(value)}")
    if rules.get("uniqueItems") is True:
        seen = [json.dumps(item, sort_keys=True) for item in value]
        if len(set(seen)) < len(seen):
            errors.append(f"{path}: items must be unique")


def _check_string(value: str, rules: Mapping[str, Any], path: str, errors: list[str]) -> None:
    low, high, pattern = rules.get("minLength"), rules.get("maxLength"), rules.get("pattern")
    if isinstance(low, int) and len(value) < low:
        errors.append(f"{path}: needs at least {low} characters")
    if isinstance(high, int) and len(value) > high:
        errors.append(f"{path}: allows at most {high} characters")
    if isinstance(pattern, str):
        try:
            found = re.search(pattern, value)
        except re.error:
            return  # a pattern Python cannot read is not checked
        if found is None:
            errors.append(f"{path}: does not match the pattern {pattern!r}")


def _check_number(value: float, rules: Mapping[str, Any], path: str, errors: list[str]) -> None:
    for key, words in (
        ("minimum", "at least"),
        ("maximum", "at most"),
        ("exclusiveMinimum", "more than"),
        ("exclusiveMaximum", "less than"),
    ):
        bound = rules.get(key)
        if not isinstance(bound, (int, float)) or isinstance(bound, bool):
            continue
        fits = {
            "minimum": value >= bound,
            "maximum": value <= bound,
            "exclusiveMinimum": value > bound,
            "exclusiveMaximum": value < bound,
        }[key]
        if not fits:
            errors.append(f"{path}: must be {words} {bound}, got {value}")


def _errors_of(value: object, schema: object) -> list[str]:
    errors: list[str] = []
    _check(value, schema, "$", errors)
    return errors


def schema_errors(value: object, schema: Mapping[str, Any] | bool) -> list[str]:
    """What is wrong with ``value`` (decoded JSON) under ``schema``; ``[]`` when it fits.

    Covers the subset agentcore's schema generator writes: ``type``, ``enum``,
    ``const``, ``anyOf`` / ``oneOf`` / ``allOf``, ``properties``, ``required``,
    ``additionalProperties``, ``items``, ``prefixItems``, ``minItems``,
    ``maxItems``, ``uniqueItems``, and the string and number bounds. Other
    keywords (``$ref``, ``format``, ...) are not checked. Each error names its
    path, as in ``$.items[2].name: expected string, got integer``.
    """
    return _errors_of(value, schema)


class _Parser:
    """Turns answer text into the target: a JSON-schema mapping or a Python type."""

    def __init__(self, target: object) -> None:
        if isinstance(target, Mapping):
            schema = cast("Mapping[str, Any]", target)
            inner = schema.get("schema")
            if "name" in schema and isinstance(inner, Mapping):
                schema = cast("Mapping[str, Any]", inner)  # the {"name", "schema"} form
            self.schema: Mapping[str, Any] | None = dict(schema)
            self.type: Any = None
        elif isinstance(target, type) or get_origin(target) is not None:
            self.schema = None
            self.type = target
        else:
            raise TypeError(
                "SchemaValidator needs a JSON schema (a dict) or a type (an attrs class, "
                f"dataclass, TypedDict, ...), got {target!r}"
            )

    def __call__(self, text: str) -> Any:
        if self.schema is None:
            return parse_value(self.type, text)
        value = parse_value(self.schema, text)
        errors = schema_errors(value, self.schema)
        if errors:
            raise StructuredOutputError("; ".join(errors), raw_text=text)
        return value


def _has_calls(contents: Sequence[object]) -> bool:
    return any(isinstance(c, FunctionCallContent) for c in contents)


def _answer_text(messages: Sequence[Message]) -> str:
    """The text of the trailing assistant messages that call no function."""
    parts: list[str] = []
    for message in reversed(messages):
        if message.role != "assistant" or _has_calls(message.contents):
            break
        parts.append(message.text)
    return "".join(reversed(parts))


def _retries(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"max_retries must be an int >= 0, got {value!r}")
    return value


class AgentSchemaValidator:
    """Agent middleware that parses a run's final answer into ``response.value``.

    It does not ask again: pair it with :class:`SchemaValidator` (whose
    ``middleware`` gives both) for that. Raises
    :class:`~agentcore.errors.StructuredOutputError` when the answer does not fit.
    A run paused for approval, or one without an answer, is left as it is.
    """

    def __init__(self, target: type[Any] | Mapping[str, Any]) -> None:
        self._parse = _Parser(target)

    async def process(self, context: AgentContext, call_next: CallNext) -> None:
        """Run, then attach the parsed answer."""
        await call_next()
        result = context.result
        if isinstance(result, AgentResponse):
            context.result = self._with_value(result)  # pyright: ignore[reportUnknownArgumentType]  # isinstance on a generic
        elif isinstance(result, ResponseStream):
            context.result = result.with_result_hook(self._with_value)

    def _with_value(self, response: AgentResponse[Any]) -> AgentResponse[Any]:
        text = _answer_text(response.messages)
        if response.approval_requests or not text:
            return response
        return attrs.evolve(response, value=self._parse(text))


class SchemaValidator:
    """Chat middleware that validates each final answer and stores it in ``value``.

    ``target`` is a JSON schema (checked by :func:`schema_errors`) or a type
    (parsed with cattrs, as ``response_format`` is). A model turn that calls
    functions is not an answer and passes unchecked. An answer that does not fit
    is sent back with ``retry_prompt`` (``{error}`` is the validation error) up
    to ``max_retries`` times, for this call only; after the last failure
    :class:`~agentcore.errors.StructuredOutputError` carrying ``raw_text`` is
    raised. The returned response's usage includes the failed attempts.

    In a streaming run the answer is held back until it validates, so the caller
    never sees an answer that is then taken back; a turn that calls a function
    streams as usual. In an :class:`~agentcore.Agent`, use ``middleware`` (this
    object and an :class:`AgentSchemaValidator`) so the run's response carries
    the value too. ``context.metadata["schema_attempts"]`` counts the answers.
    """

    def __init__(
        self,
        target: type[Any] | Mapping[str, Any],
        *,
        max_retries: int = 0,
        retry_prompt: str = DEFAULT_RETRY_PROMPT,
    ) -> None:
        self._parse = _Parser(target)
        self.target = target
        self.max_retries: int = _retries(max_retries)
        if "{error}" not in retry_prompt:
            raise ValueError("retry_prompt must contain '{error}', where the error is written")
        self.retry_prompt = retry_prompt

    @property
    def middleware(self) -> tuple[AgentSchemaValidator, SchemaValidator]:
        """This validator and its agent-scope partner, for an agent's middleware list."""
        return (AgentSchemaValidator(self.target), self)

    def parse(self, text: str) -> Any:
        """The value ``text`` holds; raises ``StructuredOutputError`` if it does not fit."""
        return self._parse(text)

    async def process(self, context: ChatContext, call_next: CallNext) -> None:
        """Call inward; validate the answer, asking again on failure."""
        session = _Session(self, context, call_next)
        if context.stream:
            await session.call()
            context.result = session.stream(_as_stream(context.result))
            return
        while True:
            await session.call()
            result = context.result
            if not isinstance(result, ChatResponse):
                return
            response: ChatResponse[Any] = result  # pyright: ignore[reportUnknownVariableType]  # isinstance on a generic
            if _has_calls([c for m in response.messages for c in m.contents]):
                return
            value = session.check(response)
            if value is not _INVALID:
                context.result = session.accepted(response, value)
                return


_INVALID: Any = object()


def _as_stream(result: object) -> ChatStream:
    if isinstance(result, ResponseStream):
        return cast("ChatStream", result)
    if isinstance(result, ChatResponse):
        response: ChatResponse[Any] = result  # pyright: ignore[reportUnknownVariableType]  # isinstance on a generic
        return ResponseStream.from_response(response)
    return ResponseStream.from_response(ChatResponse())


class _Session:
    """The attempts of one model call: what was asked, what failed, what it cost."""

    def __init__(self, owner: SchemaValidator, context: ChatContext, call_next: CallNext) -> None:
        self._owner = owner
        self._context = context
        self._call_next = call_next
        self._messages = list(context.messages)
        self._options = dict(context.options)
        self._extra: list[Message] = []
        self._spent: list[Usage | None] = []
        self._final: ChatResponse[Any] | None = None
        self.attempts = 0

    async def call(self) -> None:
        context = self._context
        if self.attempts:
            context.messages = [*self._messages, *self._extra]
            context.options = dict(self._options)
            context.result = None
        self.attempts += 1
        context.metadata["schema_attempts"] = self.attempts
        await self._call_next()

    def check(self, response: ChatResponse[Any]) -> Any:
        """The parsed value, or ``_INVALID`` after preparing the next attempt."""
        text = response.text
        try:
            return self._owner.parse(text)
        except StructuredOutputError as error:
            if self.attempts > self._owner.max_retries:
                raise StructuredOutputError(
                    f"the model's answer did not fit after {self.attempts} attempt(s): {error}",
                    raw_text=text,
                ) from error
            prompt = self._owner.retry_prompt.replace("{error}", str(error))
            self._extra.extend([*response.messages, Message("user", prompt)])
            self._spent.append(response.usage)
            return _INVALID

    def spent(self) -> Usage | None:
        return Usage.sum(self._spent)

    def accepted(self, response: ChatResponse[Any], value: Any) -> ChatResponse[Any]:
        usage = Usage.sum([self.spent(), response.usage])
        return attrs.evolve(response, value=value, usage=usage)

    def stream(self, first: ChatStream) -> ChatStream:
        return ResponseStream(
            self._updates(first), finalizer=ChatResponse.from_updates, final=self._validated
        )

    async def _updates(self, stream: ChatStream) -> AsyncGenerator[ChatResponseUpdate, None]:
        while True:
            held: list[ChatResponseUpdate] = []
            passing = False
            updates = stream.__aiter__()
            try:
                async for update in updates:
                    if not passing and _has_calls(update.contents):
                        passing = True  # a function-calling turn: no answer to check
                        for earlier in held:
                            yield earlier
                        held.clear()
                    if passing:
                        yield update
                    else:
                        held.append(update)
            finally:
                await updates.aclose()
            final = await stream.get_final_response()
            if passing:
                self._final = final
                return
            value = self.check(final)
            if value is not _INVALID:
                for update in held:
                    yield update
                spent = self.spent()
                if spent is not None:
                    yield ChatResponseUpdate(contents=UsageContent(spent))
                self._final = self.accepted(final, value)
                return
            await self.call()
            stream = _as_stream(self._context.result)

    def _validated(self) -> ChatResponse[Any]:
        # Read unchanged to the end: the validated response, with its value.
        assert self._final is not None  # set before the updates end
        return self._final
