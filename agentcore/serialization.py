"""JSON for every agentcore value: one cattrs converter and a versioned envelope.

:func:`to_dict` / :func:`to_json` wrap a value as
``{"schema_version": 1, "kind": "Message", "data": {...}}``; :func:`from_dict` /
:func:`from_json` check the envelope and rebuild the value.
:func:`unstructure` / :func:`structure` convert without the envelope, for values
nested inside other payloads (history stores, run state).

The JSON form:

- contents are tagged by their ``type`` field and hosted tools by ``kind``,
  exactly as the classes are;
- ``bytes`` are base64 strings; tuples become lists and mappings dicts;
- ``Any`` payloads (``FunctionResultContent.result``, ``CustomEvent.data``, a
  response's ``value``) must be JSON values and are written as they are. A
  typed ``value`` (structured output) is written in its JSON form and read back
  as plain JSON unless the caller names the type:
  ``from_json(text, ChatResponse[Weather])``;
- reading is strict about types (``"1"`` is not an int) and ignores keys it does
  not know, so a reader of the same schema version tolerates additive fields.

Other modules teach the converter their own types by registering hooks on
:data:`converter`.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Mapping
from collections.abc import Set as AbstractSet
from typing import Any, Literal, TypeVar, cast, get_args, get_origin

import attrs
import cattrs
from cattrs.errors import StructureHandlerNotFoundError
from cattrs.gen import make_dict_structure_fn, make_dict_unstructure_fn, override

from agentcore._converter_hooks import converter_loaded
from agentcore._types.contents import (
    CONTENT_TYPES,
    Content,
    DataContent,
    FunctionApprovalRequestContent,
    FunctionCallContent,
    FunctionResultContent,
    TextContent,
    UriContent,
    UserInputRequestContent,
)
from agentcore._types.embeddings import Embedding, GeneratedEmbeddings
from agentcore._types.hosted_tools import HOSTED_TOOL_TYPES, HostedTool
from agentcore._types.responses import AgentResponse, ChatResponse
from agentcore._types.usage import Usage
from agentcore.errors import AgentcoreError

__all__ = [
    "SCHEMA_VERSION",
    "SerializationError",
    "converter",
    "from_dict",
    "from_json",
    "structure",
    "to_dict",
    "to_json",
    "unstructure",
]

T = TypeVar("T")

SCHEMA_VERSION: int = 1
"""Version of the JSON form written by this agentcore; bumped on incompatible changes."""


class SerializationError(AgentcoreError, ValueError):
    """Data does not describe the agentcore value it was read as.

    The message names what was wrong and where (``@ $.messages[0].role``).
    """


converter: cattrs.Converter = cattrs.Converter(unstruct_collection_overrides={AbstractSet: list})
"""The one converter for agentcore values; register hooks on it for new types."""


# -- strict scalars ------------------------------------------------------------------


def _type_name(value: object) -> str:
    return "null" if value is None else type(value).__name__


def _structure_str(value: object, _: object) -> str:
    if not isinstance(value, str):
        raise SerializationError(f"expected a string, got {_type_name(value)}")
    return value


def _structure_int(value: object, _: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise SerializationError(f"expected an integer, got {_type_name(value)}")
    return value


def _structure_float(value: object, _: object) -> float:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise SerializationError(f"expected a number, got {_type_name(value)}")
    return float(value)


def _structure_bool(value: object, _: object) -> bool:
    if not isinstance(value, bool):
        raise SerializationError(f"expected true or false, got {_type_name(value)}")
    return value


def _unstructure_bytes(value: bytes) -> str:
    return base64.b64encode(value).decode("ascii")


def _structure_bytes(value: object, _: object) -> bytes:
    if not isinstance(value, str):
        raise SerializationError(f"expected a base64 string, got {_type_name(value)}")
    try:
        return base64.b64decode(value, validate=True)
    except binascii.Error as exc:
        raise SerializationError(f"expected a base64 string: {exc}") from None


def _is_literal(tp: Any) -> bool:
    return get_origin(tp) is Literal


def _structure_literal(value: object, tp: Any) -> object:
    allowed = get_args(tp)
    if not any(value == a and type(value) is type(a) for a in allowed):
        choices = ", ".join(repr(a) for a in allowed)
        raise SerializationError(f"expected one of {choices}, got {value!r}")
    return value


converter.register_structure_hook(str, _structure_str)
converter.register_structure_hook(int, _structure_int)
converter.register_structure_hook(float, _structure_float)
converter.register_structure_hook(bool, _structure_bool)
converter.register_unstructure_hook(bytes, _unstructure_bytes)
converter.register_structure_hook(bytes, _structure_bytes)
converter.register_structure_hook_func(_is_literal, _structure_literal)


# -- dates, times, durations, UUIDs, decimals and paths: exact JSON text --------------
# What a tool result already becomes (``_loop/tool_calls``), now also read back: ISO 8601
# for dates and times, ``P<days>DT<seconds>[.<micro>]S`` for a duration (``timedelta``'s
# own normalized fields, so nothing is rounded), the canonical text of a UUID, a
# decimal's own digits (``"1.10"`` stays ``1.10``) and a path's text (pure paths too).
# Recognized by module and name, so ``import agentcore`` loads neither ``uuid`` nor
# ``decimal``; reading asks for the exact class (a ``date`` is not read from a
# datetime's text).

_STDLIB_TEXT = {
    ("datetime", "datetime"),
    ("datetime", "date"),
    ("datetime", "time"),
    ("datetime", "timedelta"),
    ("uuid", "UUID"),
    ("decimal", "Decimal"),
    ("pathlib", "PurePath"),
}
_PATHS = {"PurePath", "PurePosixPath", "PureWindowsPath", "Path", "PosixPath", "WindowsPath"}
_DURATION_SHAPE = "P<days>DT<seconds>[.<microseconds>]S"


def _stdlib_base(tp: Any) -> tuple[str, str] | None:
    if not isinstance(tp, type):
        return None
    for base in tp.__mro__:
        key = (base.__module__, base.__qualname__)
        if key in _STDLIB_TEXT:
            return key
    return None


def _unstructure_stdlib(value: Any) -> str:
    if _stdlib_base(type(value)) == ("datetime", "timedelta"):
        micro = value.microseconds
        fraction = f".{micro:06d}" if micro else ""
        return f"P{value.days}DT{value.seconds}{fraction}S"
    if hasattr(value, "isoformat"):
        return str(value.isoformat())
    return str(value)


def _structure_stdlib(value: object, tp: Any) -> Any:
    base = _stdlib_base(tp)
    name = tp.__qualname__
    if not isinstance(value, str):
        raise SerializationError(f"expected {name} text, got {_type_name(value)}")
    try:
        if base == ("datetime", "timedelta"):
            return _parse_duration(value, tp)
        if base is not None and base[0] == "datetime":
            return tp.fromisoformat(value)
        return tp(value)
    except (ValueError, ArithmeticError) as exc:
        raise SerializationError(f"expected {name} text, got {value!r}: {exc}") from None


def _parse_duration(text: str, tp: Any) -> Any:
    if not (text.startswith("P") and "DT" in text and text.endswith("S")):
        raise ValueError(f"not of the form {_DURATION_SHAPE}")
    days, _, rest = text[1:-1].partition("DT")
    seconds, _, micro = rest.partition(".")
    if not seconds.isdigit() or (micro and not (micro.isdigit() and len(micro) == 6)):
        raise ValueError(f"not of the form {_DURATION_SHAPE}")
    return tp(days=int(days), seconds=int(seconds), microseconds=int(micro or 0))


def _is_stdlib_text(tp: Any) -> bool:
    return _stdlib_base(tp) is not None


def _is_stdlib_exact(tp: Any) -> bool:
    if not isinstance(tp, type):
        return False
    if tp.__module__ == "pathlib":
        return tp.__qualname__ in _PATHS
    return (tp.__module__, tp.__qualname__) in _STDLIB_TEXT


converter.register_unstructure_hook_func(_is_stdlib_text, _unstructure_stdlib)
converter.register_structure_hook_func(_is_stdlib_exact, _structure_stdlib)


# -- tagged unions: contents by ``type``, hosted tools by ``kind`` --------------------


def _tag_of(cls: type[Any], field: str) -> str:
    default: object = getattr(attrs.fields(cls), field).default
    assert isinstance(default, str)
    return default


_CONTENT_BY_TAG: dict[str, type[Any]] = {_tag_of(c, "type"): c for c in CONTENT_TYPES}
_TOOL_BY_TAG: dict[str, type[Any]] = {_tag_of(c, "kind"): c for c in HOSTED_TOOL_TYPES}
_TAG_FIELD: dict[type[Any], str] = {
    **dict.fromkeys(CONTENT_TYPES, "type"),
    **dict.fromkeys(HOSTED_TOOL_TYPES, "kind"),
}


def _json_object(data: object, what: str) -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        raise SerializationError(f"expected an object for {what}, got {_type_name(data)}")
    return cast("Mapping[str, Any]", data)


def _structure_arguments(value: object, _: object) -> str | dict[str, Any]:
    if isinstance(value, str):
        return value
    return dict(_json_object(value, "arguments (a JSON string or object)"))


_MEDIA_FIELDS: dict[str, tuple[type[Any], frozenset[str]]] = {
    _tag_of(c, "type"): (c, frozenset(f.name for f in attrs.fields(c)))
    for c in (TextContent, DataContent, UriContent)
}


def _structure_result(value: object, _: object) -> object:
    # A tool result that was a tuple of contents comes back as contents; any other
    # JSON value as it is. A list counts only when every item is exactly a text,
    # data or URI content (its tag, and no key the class lacks).
    contents = _media_contents(value)
    return value if contents is None else contents


def _media_contents(value: object) -> tuple[Any, ...] | None:
    if not isinstance(value, list) or not value:
        return None
    items = cast("list[object]", value)
    found: list[type[Any]] = []
    for item in items:
        if not isinstance(item, Mapping):
            return None
        fields = cast("Mapping[str, Any]", item)
        tag = fields.get("type")
        known = _MEDIA_FIELDS.get(tag) if isinstance(tag, str) else None
        if known is None or not known[1].issuperset(fields):
            return None
        found.append(known[0])
    return tuple(converter.structure(item, cls) for item, cls in zip(items, found, strict=True))


def _tagged_unstructure(cls: type[Any]) -> Callable[[Any], dict[str, Any]]:
    field = _TAG_FIELD[cls]
    tag = _tag_of(cls, field)
    fields = make_dict_unstructure_fn(cls, converter)

    def unstructure_tagged(value: Any) -> dict[str, Any]:
        return {field: tag, **fields(value)}

    return unstructure_tagged


def _tagged_structure(cls: type[Any]) -> Callable[[Any, Any], Any]:
    field = _TAG_FIELD[cls]
    tag = _tag_of(cls, field)
    if cls is FunctionCallContent:
        arguments = override(struct_hook=_structure_arguments)
        fields = make_dict_structure_fn(cls, converter, arguments=arguments)
    elif cls is FunctionResultContent:
        result = override(struct_hook=_structure_result)
        fields = make_dict_structure_fn(cls, converter, result=result)
    else:
        fields = make_dict_structure_fn(cls, converter)

    def structure_tagged(data: Any, _: Any) -> Any:
        obj = _json_object(data, cls.__name__)
        found = obj.get(field, tag)
        if found != tag:
            raise SerializationError(
                f"{field} {found!r} does not match {cls.__name__} (whose {field} is {tag!r})"
            )
        return fields(obj)

    return structure_tagged


def _union_structure(
    by_tag: Mapping[str, type[Any]], field: str, what: str
) -> Callable[[Any, Any], Any]:
    def structure_union(data: Any, _: Any) -> Any:
        obj = _json_object(data, f"a {what}")
        tag: object = obj.get(field)
        known = ", ".join(sorted(by_tag))
        if tag is None:
            raise SerializationError(f"a {what} needs a {field!r} field; known: {known}")
        cls = by_tag.get(tag) if isinstance(tag, str) else None
        if cls is None:
            raise SerializationError(f"unknown {what} {field} {tag!r}; known: {known}")
        return converter.structure(obj, cls)

    return structure_union


converter.register_unstructure_hook_factory(lambda t: t in _TAG_FIELD, _tagged_unstructure)
converter.register_structure_hook_factory(lambda t: t in _TAG_FIELD, _tagged_structure)
converter.register_structure_hook(Content, _union_structure(_CONTENT_BY_TAG, "type", "content"))
# What a paused run waits on (AgentSession.paused.requests): the two request contents.
_REQUESTS = (FunctionApprovalRequestContent, UserInputRequestContent)
converter.register_structure_hook(
    FunctionApprovalRequestContent | UserInputRequestContent,
    _union_structure(
        {tag: cls for tag, cls in _CONTENT_BY_TAG.items() if cls in _REQUESTS},
        "type",
        "pending request",
    ),
)
converter.register_structure_hook(HostedTool, _union_structure(_TOOL_BY_TAG, "kind", "hosted tool"))


# -- generic values: an unparametrized class reads its type variable as Any ---------

_GENERIC_VALUES: tuple[type[Any], ...] = (ChatResponse, AgentResponse, Embedding)


def _is_generic_value(tp: Any) -> bool:
    return (get_origin(tp) or tp) in _GENERIC_VALUES


def _concrete(tp: Any) -> Any:
    return tp if get_origin(tp) is not None else tp[Any]


def _generic_value_unstructure(tp: Any) -> Callable[[Any], dict[str, Any]]:
    return make_dict_unstructure_fn(_concrete(tp), converter)


def _generic_value_structure(tp: Any) -> Callable[[Any, Any], Any]:
    return make_dict_structure_fn(_concrete(tp), converter)


converter.register_unstructure_hook_factory(_is_generic_value, _generic_value_unstructure)
converter.register_structure_hook_factory(_is_generic_value, _generic_value_structure)


def _is_generated_embeddings(tp: Any) -> bool:
    origin = get_origin(tp) or tp
    return isinstance(origin, type) and issubclass(origin, GeneratedEmbeddings)


def _unstructure_generated(value: GeneratedEmbeddings[Any, Any]) -> dict[str, Any]:
    return {
        "embeddings": [converter.unstructure(e, Embedding) for e in value],
        "options": converter.unstructure(value.options),
        "usage": converter.unstructure(value.usage),
        "additional_properties": converter.unstructure(value.additional_properties),
    }


def _structure_generated(data: Any, tp: Any) -> GeneratedEmbeddings[Any, Any]:
    fields = _json_object(data, "GeneratedEmbeddings")
    args = get_args(tp)
    vector_type: Any = args[0] if args else Any
    options_type: Any = args[1] if len(args) > 1 else dict[str, Any]
    options = fields.get("options")
    properties = fields.get("additional_properties")
    usage = fields.get("usage")
    return GeneratedEmbeddings(
        converter.structure(fields.get("embeddings", []), list[Embedding[vector_type]]),
        options=None if options is None else converter.structure(options, options_type),
        usage=None if usage is None else converter.structure(usage, Usage),
        additional_properties=(
            None if properties is None else converter.structure(properties, dict[str, Any])
        ),
    )


converter.register_unstructure_hook_func(_is_generated_embeddings, _unstructure_generated)
converter.register_structure_hook_func(_is_generated_embeddings, _structure_generated)


# -- public API --------------------------------------------------------------------


def _format_error(exc: BaseException, tp: type[Any] | None) -> str:
    if isinstance(exc, SerializationError):
        return str(exc)
    return cattrs.v.format_exception(exc, tp)


def unstructure(value: object) -> Any:
    """``value`` as JSON-compatible dicts, lists and scalars, without an envelope."""
    return converter.unstructure(value)


def structure(data: Any, cls: type[T]) -> T:
    """Rebuild a ``cls`` from :func:`unstructure` output (no envelope).

    Raises :class:`SerializationError` (a ``ValueError``) naming each problem and
    its path when ``data`` does not fit ``cls``.
    """
    try:
        return converter.structure(data, cls)
    except StructureHandlerNotFoundError as exc:
        raise TypeError(
            f"agentcore.serialization does not know how to read {cls!r}; register a "
            "structure hook on agentcore.serialization.converter"
        ) from exc
    except SerializationError:
        raise
    except Exception as exc:
        problems = cattrs.transform_error(exc, format_exception=_format_error)
        name = getattr(get_origin(cls) or cls, "__name__", repr(cls))
        raise SerializationError(f"invalid {name}: " + "; ".join(problems)) from exc


def _kind(cls: Any) -> str:
    origin: Any = get_origin(cls) or cls
    return str(getattr(origin, "__name__", repr(origin)))


def to_dict(value: object) -> dict[str, Any]:
    """``value`` in a versioned envelope: ``{"schema_version", "kind", "data"}``."""
    data = converter.unstructure(value)
    if not isinstance(data, dict):
        raise TypeError(
            f"to_dict() takes an agentcore value such as a Message or a ChatResponse, "
            f"got {type(value).__name__}"
        )
    return {"schema_version": SCHEMA_VERSION, "kind": type(value).__name__, "data": data}


def from_dict(data: Mapping[str, Any], cls: type[T]) -> T:
    """Rebuild a ``cls`` from a :func:`to_dict` envelope.

    Raises :class:`SerializationError` when the envelope is missing, comes from a
    newer agentcore, holds another kind of value, or its data does not fit ``cls``.
    """
    if not isinstance(data, Mapping):
        raise SerializationError(
            f"expected a to_dict() envelope (a JSON object), got {_type_name(data)}"
        )
    if "schema_version" not in data:
        raise SerializationError(
            "not an agentcore envelope: 'schema_version' is missing (expected the output "
            "of agentcore.serialization.to_dict)"
        )
    version = data["schema_version"]
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise SerializationError(f"schema_version must be a positive integer, got {version!r}")
    if version > SCHEMA_VERSION:
        raise SerializationError(
            f"the data was written with schema version {version}, but this agentcore reads "
            f"up to version {SCHEMA_VERSION}; upgrade agentcore to read it"
        )
    kind = data.get("kind")
    expected = _kind(cls)
    if kind != expected:
        raise SerializationError(f"the envelope holds a {kind!r}, not a {expected!r}")
    if "data" not in data:
        raise SerializationError("the envelope has no 'data' field")
    return structure(data["data"], cls)


def to_json(value: object) -> str:
    """``value`` as a JSON document (the :func:`to_dict` envelope)."""
    return json.dumps(to_dict(value), ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def from_json(text: str | bytes, cls: type[T]) -> T:
    """Rebuild a ``cls`` from :func:`to_json` output."""
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SerializationError(f"not valid JSON: {exc}") from None
    return from_dict(data, cls)


# Last: the hooks of modules that did not import this one (agentcore.workflows, which
# loads it on first use) are registered now, before anything can use the converter.
converter_loaded(converter)
