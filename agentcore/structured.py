"""Structured output: JSON schemas for ``response_format`` and parsing the answer."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from typing_extensions import Required, TypedDict

from agentcore._types.contents import FunctionCallContent
from agentcore._types.messages import Message
from agentcore._types.options import ToolChoice, ToolLike

__all__ = ["JsonSchemaOptions", "json_schema_for", "parse_answer", "parse_value"]


class JsonSchemaOptions(TypedDict, total=False):
    """:class:`~agentcore.ChatOptions` whose ``response_format`` is a JSON-schema dict.

    Only for static typing: ``Agent.run`` overloads on it so that such a run's
    ``response.value`` (the decoded JSON) is typed ``Any``, not ``None``. Keeps
    exactly the keys of ``ChatOptions`` (a test checks).
    """

    model: str | None
    instructions: str | None
    tools: Sequence[ToolLike] | None
    tool_choice: ToolChoice | None
    parallel_tool_calls: bool | None
    response_format: Required[Mapping[str, Any]]
    temperature: float | None
    top_p: float | None
    max_tokens: int | None
    stop: str | Sequence[str] | None
    seed: int | None
    frequency_penalty: float | None
    presence_penalty: float | None
    conversation_id: str | None
    user: str | None
    metadata: Mapping[str, str] | None


def json_schema_for(response_format: type[Any] | Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """The ``(name, JSON schema)`` an adapter sends for ``options["response_format"]``.

    A mapping is either a bare JSON schema or ``{"name": ..., "schema": {...}}``;
    a type (attrs class, dataclass, TypedDict, pydantic model) gets a schema built
    from its fields and its class name as the name.
    """
    if isinstance(response_format, Mapping):
        schema = response_format.get("schema")
        if isinstance(schema, Mapping) and "name" in response_format:
            return str(response_format["name"]), dict(schema)  # pyright: ignore[reportUnknownArgumentType]  # isinstance on a generic
        return "response", dict(response_format)
    from agentcore.tools._schema import schema_for_type

    return response_format.__name__, schema_for_type(response_format)


def _structure(data: Any, tp: type[Any]) -> Any:
    # The strict converter that checks tool arguments: the schema the model saw came
    # from the same type rules, so the answer is held to them too ("21" is no int).
    from agentcore.tools._validation import (
        _CONVERTER,  # pyright: ignore[reportPrivateUsage] # one converter for tools and answers
        _describe,  # pyright: ignore[reportPrivateUsage] # its error wording
    )

    try:
        return _CONVERTER.structure(data, tp)
    except Exception as exc:
        raise ValueError("; ".join(_describe(exc, "$"))) from exc


def parse_value(response_format: type[Any] | Mapping[str, Any] | None, text: str) -> Any:
    """Parse the model's final text into ``response_format``.

    A type gives an instance of it; a JSON-schema mapping gives the decoded JSON.
    Raises :class:`~agentcore.errors.StructuredOutputError` carrying the raw text
    when the output does not fit.
    """
    import json

    from agentcore.errors import StructuredOutputError

    if response_format is None:
        return None
    stripped = text.strip()
    if stripped.startswith("```"):
        # Some models wrap JSON in a fenced block despite the schema.
        stripped = stripped.strip("`")
        stripped = stripped.split("\n", 1)[1] if "\n" in stripped else stripped
    try:
        data = json.loads(stripped)
    except json.JSONDecodeError as exc:
        raise StructuredOutputError(
            f"the model's answer is not valid JSON ({exc.msg} at position {exc.pos})",
            raw_text=text,
        ) from exc
    if isinstance(response_format, Mapping):
        return data
    try:
        return _structure(data, response_format)
    except Exception as exc:
        raise StructuredOutputError(
            f"the model's answer does not fit {response_format.__name__}: {exc}", raw_text=text
        ) from exc


def parse_answer(
    response_format: type[Any] | Mapping[str, Any] | None,
    messages: Sequence[Message],
    *,
    from_tool: str | None = None,
) -> Any:
    """Structured output from a run's answer: its last message, when that is an
    assistant message without calls (a run that ended on a tool call or a tool
    result has no answer to parse, and gives ``None``).

    ``from_tool`` names the ``return_directly`` tool whose result is the answer: an
    answer that does not fit then says it came from that tool, not from the model.
    """
    if response_format is None or not messages:
        return None
    answer = messages[-1]
    if answer.role != "assistant" or any(
        isinstance(c, FunctionCallContent) for c in answer.contents
    ):
        return None
    if from_tool is None:
        return parse_value(response_format, answer.text)
    from agentcore.errors import StructuredOutputError

    try:
        return parse_value(response_format, answer.text)
    except StructuredOutputError as exc:
        detail = str(exc).removeprefix("the model's answer ")
        raise StructuredOutputError(
            f"the answer came from the return_directly tool {from_tool!r}, not from the "
            f"model, and it {detail}; make the tool return JSON that fits the response_format, or "
            "drop return_directly so the model writes the answer",
            raw_text=exc.raw_text,
        ) from exc
