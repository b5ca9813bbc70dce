"""Message contents: a tagged union of small frozen classes.

Every content class carries a ``type`` literal, so ``match`` statements and
``if content.type == "text"`` both narrow under pyright and mypy. Contents are
values: build new ones with :func:`attrs.evolve` instead of mutating.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from typing import Any, Literal, TypeAlias, cast

import attrs

from agentcore._equality import fields_eq, fields_hash
from agentcore._repr import fields_repr
from agentcore._types.json_arguments import STRICT_DECODER, NotJsonNumber
from agentcore._types.usage import Usage

__all__ = [
    "Annotation",
    "CompactionContent",
    "Content",
    "DataContent",
    "ErrorContent",
    "FunctionApprovalRequestContent",
    "FunctionApprovalResponseContent",
    "FunctionCallContent",
    "FunctionResultContent",
    "HostedToolCallContent",
    "HostedToolResultContent",
    "ReasoningContent",
    "TextContent",
    "UriContent",
    "UsageContent",
    "UserInputRequestContent",
    "UserInputResponseContent",
]


def _frozen_mapping(value: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    return None if value is None else dict(value)


@attrs.frozen
class Annotation:
    """A citation or other note attached to a span of text.

    ``start`` / ``end`` index into the text of the owning :class:`TextContent`
    when the provider reports them.
    """

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    kind: Literal["citation", "file_path", "other"] = "citation"
    url: str | None = None
    title: str | None = None
    file_id: str | None = None
    quote: str | None = None
    start: int | None = None
    end: int | None = None


def _to_annotations(value: Iterable[Annotation]) -> tuple[Annotation, ...]:
    return tuple(value)


def _must_be_text(_instance: object, _attribute: object, value: Any) -> None:
    if type(value) is not str and not isinstance(value, str):
        raise TypeError(
            f"TextContent takes a str, got {type(value).__name__} {value!r}; "
            "convert it first (str(value))"
        )


@attrs.frozen
class TextContent:
    """Plain text from a user or a model."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    text: str = attrs.field(validator=_must_be_text)
    annotations: tuple[Annotation, ...] = attrs.field(default=(), converter=_to_annotations)
    type: Literal["text"] = attrs.field(default="text", init=False)


@attrs.frozen
class ReasoningContent:
    """A model's reasoning, with the provider's opaque payload.

    ``protected_data`` holds what the provider needs to see again (an Anthropic
    thinking signature, OpenAI encrypted reasoning). It is only meaningful to the
    provider named in ``provider``; adapters drop reasoning that came from another.
    """

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    text: str = ""
    provider: str | None = None
    id: str | None = None
    protected_data: str | None = None
    type: Literal["reasoning"] = attrs.field(default="reasoning", init=False)


@attrs.frozen
class DataContent:
    """Inline binary data (an image, a PDF, audio) with its media type."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    data: bytes
    media_type: str
    name: str | None = None
    type: Literal["data"] = attrs.field(default="data", init=False)

    @property
    def uri(self) -> str:
        """The data as a ``data:`` URI (base64)."""
        import base64  # here, not at the top: ``import agentcore`` does not load it

        return f"data:{self.media_type};base64,{base64.b64encode(self.data).decode('ascii')}"

    @property
    def base64(self) -> str:
        """The data, base64-encoded."""
        import base64

        return base64.b64encode(self.data).decode("ascii")


@attrs.frozen
class UriContent:
    """A reference to content by URI (an image URL, a file id URI, an MCP resource link).

    ``name`` is what the content is called where it comes from (an MCP resource's
    name), for the model to read when its service cannot open the URI.
    """

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    uri: str
    media_type: str | None = None
    name: str | None = None
    type: Literal["uri"] = attrs.field(default="uri", init=False)


def _check_arguments(_instance: object, _attribute: object, value: str | Mapping[str, Any]) -> None:
    if not isinstance(value, (str, Mapping)):
        raise TypeError(
            "FunctionCallContent.arguments must be a JSON string or a mapping, "
            f"got {type(value).__name__}"
        )


@attrs.frozen
class FunctionCallContent:
    """A model's request to call a function tool.

    When streamed, a call arrives as several pieces that share ``call_id``; the
    first piece carries ``name`` and the ``arguments`` strings concatenate.
    ``index`` orders parallel calls of one turn when pieces interleave.
    """

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    call_id: str
    name: str = ""
    arguments: str | Mapping[str, Any] = attrs.field(default="", validator=_check_arguments)
    index: int | None = attrs.field(default=None, eq=False)
    type: Literal["function_call"] = attrs.field(default="function_call", init=False)

    def parse_arguments(self) -> dict[str, Any]:
        """The arguments as a dict.

        Raises ``ValueError`` if they are not a JSON object: text that is not JSON, a
        number JSON does not have (``NaN``, ``Infinity``), or nesting too deep to read
        (a model sends these; Python's ``json`` alone would read the first and raise
        ``RecursionError`` on the last).
        """
        args = self.arguments
        if isinstance(args, Mapping):
            return dict(args)
        if not args.strip():
            return {}
        try:
            parsed = STRICT_DECODER.decode(args)
        except json.JSONDecodeError as exc:
            raise ValueError(f"arguments of {self.name!r} are not valid JSON: {exc}") from exc
        except NotJsonNumber as exc:
            raise ValueError(
                f"arguments of {self.name!r} are not valid JSON: {exc} is not a JSON number"
            ) from None
        except RecursionError:
            raise ValueError(f"arguments of {self.name!r} are nested too deeply to read") from None
        if not isinstance(parsed, dict):
            raise ValueError(
                f"arguments of {self.name!r} must be a JSON object, got {type(parsed).__name__}"
            )
        return cast("dict[str, Any]", parsed)

    def arguments_json(self) -> str:
        """The arguments as JSON text, as most services send them back: a string as it
        is (a model's own text, even when streamed pieces left it partial), a mapping
        encoded (non-ASCII characters kept as they are)."""
        args = self.arguments
        return args if isinstance(args, str) else json.dumps(dict(args), ensure_ascii=False)


@attrs.frozen
class FunctionResultContent:
    """The result of a function call, matched to it by ``call_id``.

    ``error`` is set when the call failed; ``result`` then holds what the model
    is told about the failure. ``result`` is a JSON value, or a tuple of
    ``TextContent``/``DataContent``/``UriContent`` for a tool that returned media.
    ``additional_properties`` keeps what a :class:`~agentcore.ToolResult` carried
    for code rather than the model (``"structured"``, ``"meta"``); it is not sent.
    """

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    call_id: str
    result: Any = None
    error: str | None = None
    additional_properties: Mapping[str, Any] | None = attrs.field(
        default=None, converter=_frozen_mapping
    )
    type: Literal["function_result"] = attrs.field(default="function_result", init=False)


def _new_request_id() -> str:
    import base64

    return "apr_" + base64.urlsafe_b64encode(os.urandom(16)).rstrip(b"=").decode("ascii")


@attrs.frozen
class FunctionApprovalRequestContent:
    """A paused call that waits for the caller's decision.

    Answer it with :meth:`create_response`; the run accepts only a response whose
    ``id`` and ``function_call`` match a request it is waiting for.
    """

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    function_call: FunctionCallContent
    id: str = attrs.field(factory=_new_request_id)
    type: Literal["function_approval_request"] = attrs.field(
        default="function_approval_request", init=False
    )

    def create_response(
        self, approved: bool, *, reason: str | None = None
    ) -> FunctionApprovalResponseContent:
        """The caller's decision on this request."""
        return FunctionApprovalResponseContent(
            id=self.id, function_call=self.function_call, approved=approved, reason=reason
        )


@attrs.frozen
class FunctionApprovalResponseContent:
    """The caller's decision on a :class:`FunctionApprovalRequestContent`."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    id: str
    function_call: FunctionCallContent
    approved: bool
    reason: str | None = None
    type: Literal["function_approval_response"] = attrs.field(
        default="function_approval_response", init=False
    )


@attrs.frozen
class UserInputRequestContent:
    """A tool paused the run to ask the user something (``ToolContext.ask``).

    Answer it with :meth:`create_response`; the run re-runs the call with the
    answer once the caller sends the response in the same session.
    """

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    function_call: FunctionCallContent
    prompt: str
    id: str = attrs.field(factory=_new_request_id)
    type: Literal["user_input_request"] = attrs.field(default="user_input_request", init=False)

    def create_response(self, text: str) -> UserInputResponseContent:
        """The user's answer to this request."""
        return UserInputResponseContent(id=self.id, function_call=self.function_call, text=text)


@attrs.frozen
class UserInputResponseContent:
    """The user's answer to a :class:`UserInputRequestContent`."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    id: str
    function_call: FunctionCallContent
    text: str
    type: Literal["user_input_response"] = attrs.field(default="user_input_response", init=False)


@attrs.frozen
class HostedToolCallContent:
    """A tool call the provider ran on its side (web search, code execution, MCP).

    ``raw`` keeps the provider's own item so the same adapter can send it back.
    """

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    call_id: str
    tool_type: str
    arguments: Mapping[str, Any] | None = attrs.field(default=None, converter=_frozen_mapping)
    provider: str | None = None
    raw: Mapping[str, Any] | None = attrs.field(default=None, converter=_frozen_mapping, eq=False)
    type: Literal["hosted_tool_call"] = attrs.field(default="hosted_tool_call", init=False)


@attrs.frozen
class HostedToolResultContent:
    """The result of a :class:`HostedToolCallContent`, as the provider reported it."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    call_id: str
    tool_type: str
    result: Any = None
    provider: str | None = None
    raw: Mapping[str, Any] | None = attrs.field(default=None, converter=_frozen_mapping, eq=False)
    type: Literal["hosted_tool_result"] = attrs.field(default="hosted_tool_result", init=False)


@attrs.frozen
class ErrorContent:
    """An error reported inside a response (for example a mid-stream error event)."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    message: str
    code: str | None = None
    details: str | None = None
    type: Literal["error"] = attrs.field(default="error", init=False)


@attrs.frozen
class UsageContent:
    """Token usage reported inside a stream; the fold moves it to ``response.usage``."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    usage: Usage
    type: Literal["usage"] = attrs.field(default="usage", init=False)


def _to_call_ids(value: Iterable[str]) -> tuple[str, ...]:
    return tuple(value)


def _to_label(value: object) -> tuple[str, ...] | None:
    """A :class:`~agentcore.ContentLabel` (or its two values) as ``(integrity,
    confidentiality)``: read by attribute, so this module need not load the labels."""
    if value is None:
        return None
    integrity: object
    confidentiality: object
    if isinstance(value, tuple):
        pair = cast("tuple[object, ...]", value)
        integrity, confidentiality = pair if len(pair) == 2 else (None, None)
    else:
        integrity = getattr(value, "integrity", None)
        confidentiality = getattr(value, "confidentiality", None)
    integrity = getattr(integrity, "value", integrity)
    confidentiality = getattr(confidentiality, "value", confidentiality)
    if not isinstance(integrity, str) or not isinstance(confidentiality, str):
        raise TypeError(
            f"CompactionContent.label takes a ContentLabel or (integrity, confidentiality), "
            f"got {value!r}"
        )
    return (integrity, confidentiality)


@attrs.frozen
class CompactionContent:
    """A compaction record: the log positions ``[start, end)`` a summary replaces.

    Only records carry it: a record is a ``Message("user", (CompactionContent(...),))``
    the kernel appends with a run's turn when compaction summarized (or, when told to,
    dropped) part of the conversation. The stored originals are never rewritten;
    :func:`agentcore.compaction.compacted_view` replays the records into what the model
    sees. ``at`` is the log position the record was written for (a record found
    anywhere else is ignored); ``summary`` is ``None`` when the range was dropped;
    ``call_ids`` are the function calls whose call or result lies in the range;
    ``label`` is the summary's security label as ``(integrity, confidentiality)`` (a
    :class:`~agentcore.ContentLabel` given here is stored so).
    A caller's input may not hold one.
    """

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    start: int
    end: int
    at: int
    summary: str | None = None
    call_ids: tuple[str, ...] = attrs.field(default=(), converter=_to_call_ids)
    label: tuple[str, ...] | None = attrs.field(default=None, converter=_to_label)
    strategy: str = ""
    run_id: str | None = None
    model: str | None = None
    type: Literal["compaction"] = attrs.field(default="compaction", init=False)


Content: TypeAlias = (
    TextContent
    | ReasoningContent
    | DataContent
    | UriContent
    | FunctionCallContent
    | FunctionResultContent
    | FunctionApprovalRequestContent
    | FunctionApprovalResponseContent
    | UserInputRequestContent
    | UserInputResponseContent
    | HostedToolCallContent
    | HostedToolResultContent
    | ErrorContent
    | UsageContent
    | CompactionContent
)
"""Any content a message can hold."""

CONTENT_TYPES: tuple[type[Content], ...] = (
    TextContent,
    ReasoningContent,
    DataContent,
    UriContent,
    FunctionCallContent,
    FunctionResultContent,
    FunctionApprovalRequestContent,
    FunctionApprovalResponseContent,
    UserInputRequestContent,
    UserInputResponseContent,
    HostedToolCallContent,
    HostedToolResultContent,
    ErrorContent,
    UsageContent,
    CompactionContent,
)
