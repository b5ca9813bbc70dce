"""JSON schema of a tool's parameters, built from the function's type hints.

Nested classes are written inline (no ``$ref``): every provider accepts that,
and the model reads one self-contained object. The price is that a type may not
contain itself; such a type is refused with a ``TypeError`` at decoration time,
as is any hint the validator could not enforce.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

import attrs
import typing_extensions

from agentcore.tools._signature import MISSING, ToolSignature
from agentcore.tools._types import (
    ARRAY_ORIGINS,
    MAPPING_ORIGINS,
    SET_ORIGINS,
    NoneType,
    PydanticModel,
    annotated_description,
    is_enum_class,
    is_list,
    is_literal,
    is_mapping,
    is_pydantic_model,
    is_record_class,
    is_typeddict,
    is_union,
    json_type_of,
    render_type,
    strip_wrappers,
    typeddict_fields,
    unwrap,
)

__all__ = ["parameters_schema", "schema_for_type"]

_SUPPORTED = (
    "supported are str, int, float, bool, None, Any, list/Sequence/tuple/set/frozenset of "
    "those, dict[str, X], unions and Optional, Literal, Enum, attrs classes, dataclasses, "
    "TypedDict, pydantic models, and Annotated[X, 'description'] of any of them"
)
_SCALARS: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}


def parameters_schema(signature: ToolSignature, *, tool_name: str) -> dict[str, Any]:
    """The ``parameters`` object of a tool: one property per non-injected parameter."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    for parameter in signature.parameters:
        if parameter.injected:
            continue
        builder = _SchemaBuilder(f"parameter {parameter.name!r} of tool {tool_name!r}")
        schema = builder.build(parameter.hint)
        described = signature.docstring.params.get(parameter.name)
        if described and "description" not in schema:
            schema["description"] = described
        if parameter.default is MISSING:
            required.append(parameter.name)
        else:
            _set_default(schema, parameter.default)
        properties[parameter.name] = schema
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


def schema_for_type(hint: Any, *, where: str | None = None) -> dict[str, Any]:
    """The JSON schema of one type hint (for ``response_format`` too).

    Raises ``TypeError`` for a type without a schema; ``where`` names the hint in it.
    """
    return _SchemaBuilder(where or "the requested type").build(hint)


def _set_default(schema: dict[str, Any], default: Any) -> None:
    """Record a default in the schema when it has a JSON spelling; omit it otherwise."""
    representable, value = _json_value(default)
    if representable:
        schema["default"] = value


def _json_value(value: Any) -> tuple[bool, Any]:
    if isinstance(value, enum.Enum):
        return _json_value(value.value)
    if value is None or isinstance(value, (bool, int, str)):
        return True, value
    if isinstance(value, float):
        return math.isfinite(value), value
    if isinstance(value, (list, tuple)):
        items = [_json_value(item) for item in cast("Sequence[Any]", value)]
        return all(ok for ok, _ in items), [item for _, item in items]
    if is_mapping(value):
        pairs = {key: _json_value(item) for key, item in value.items()}
        ok = all(isinstance(key, str) and good for key, (good, _) in pairs.items())
        return ok, {key: item for key, (_, item) in pairs.items()}
    return False, None


class _SchemaBuilder:
    """Walks one parameter's hint; remembers the path for error messages."""

    def __init__(self, where: str) -> None:
        self._where = where
        self._path: list[str] = []
        self._open: list[type] = []

    def build(self, hint: Any) -> dict[str, Any]:
        bare, metadata = unwrap(hint)
        schema = self._bare(bare)
        description = annotated_description(metadata)
        if description:
            schema["description"] = description
        return schema

    def _bare(self, hint: Any) -> dict[str, Any]:
        if hint is Any:
            return {}
        if hint is None or hint is NoneType:
            return {"type": "null"}
        scalar = _SCALARS.get(hint) if isinstance(hint, type) else None
        if scalar is not None:
            return {"type": scalar}
        supertype = getattr(hint, "__supertype__", None)
        if supertype is not None:  # typing.NewType
            return self.build(supertype)
        if is_union(hint):
            return {"anyOf": [self.build(arg) for arg in typing_extensions.get_args(hint)]}
        if is_literal(hint):
            return self._enum(hint, list(typing_extensions.get_args(hint)))
        if is_enum_class(hint):
            return self._enum(hint, list(hint))
        if is_pydantic_model(hint):
            return self._pydantic(hint)
        if is_typeddict(hint):
            return self._typeddict(hint)
        if is_record_class(hint):
            return self._record(hint)
        return self._container(hint)

    def _container(self, hint: Any) -> dict[str, Any]:
        origin = typing_extensions.get_origin(hint)
        args = typing_extensions.get_args(hint)
        kind = hint if origin is None else origin
        if not _hashable(kind):
            raise self._unsupported(hint, "it is not a type")
        if kind is tuple:
            return self._tuple(hint, bare=origin is None)
        if kind in ARRAY_ORIGINS or kind in SET_ORIGINS:
            schema: dict[str, Any] = {"type": "array"}
            if args:
                schema["items"] = self._nested(args[0], "[]")
            if kind in SET_ORIGINS:
                schema["uniqueItems"] = True
            return schema
        if kind in MAPPING_ORIGINS:
            if not args:
                return {"type": "object"}
            key = strip_wrappers(args[0])
            if key is not str:
                raise self._unsupported(hint, "JSON object keys are strings, so use dict[str, X]")
            return {"type": "object", "additionalProperties": self._nested(args[1], "[]")}
        if is_record_class(origin) or is_typeddict(origin):
            raise self._unsupported(hint, "generic classes are not supported")
        raise self._unsupported(hint, "agentcore has no JSON schema for it")

    def _tuple(self, hint: Any, *, bare: bool) -> dict[str, Any]:
        args = typing_extensions.get_args(hint)
        if bare:
            return {"type": "array"}
        if len(args) == 2 and args[1] is Ellipsis:
            return {"type": "array", "items": self._nested(args[0], "[]")}
        if args in ((), ((),)):
            return {"type": "array", "maxItems": 0}
        return {
            "type": "array",
            "prefixItems": [self._nested(arg, f"[{i}]") for i, arg in enumerate(args)],
            "minItems": len(args),
            "maxItems": len(args),
        }

    def _enum(self, hint: Any, members: list[Any]) -> dict[str, Any]:
        values = [member.value if isinstance(member, enum.Enum) else member for member in members]
        kinds = {json_type_of(value) for value in values}
        if None in kinds:
            raise self._unsupported(hint, "its values must be str, int, float, bool or None")
        schema: dict[str, Any] = {"enum": values}
        if len(kinds) == 1:
            schema["type"] = kinds.pop()
        return schema

    def _nested(self, hint: Any, step: str) -> dict[str, Any]:
        self._path.append(step)
        try:
            return self.build(hint)
        finally:
            self._path.pop()

    def _object(self, cls: type, fields: list[tuple[str, Any, Any]]) -> dict[str, Any]:
        """An inline object for ``cls`` from ``(name, hint, default)`` triples."""
        if cls in self._open:
            raise self._unsupported(
                cls,
                "it contains itself; tool schemas are written inline, so recursive types "
                "cannot be described",
            )
        self._open.append(cls)
        try:
            properties: dict[str, Any] = {}
            required: list[str] = []
            for name, hint, default in fields:
                schema = self._nested(hint, f".{name}")
                if default is MISSING:
                    required.append(name)
                elif default is not _NO_SCHEMA_DEFAULT:
                    _set_default(schema, default)
                properties[name] = schema
        finally:
            self._open.pop()
        return {
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": False,
        }

    def _hints_of(self, cls: type) -> dict[str, Any]:
        try:
            return typing_extensions.get_type_hints(cls, include_extras=True)
        except Exception as exc:
            raise self._unsupported(cls, f"its annotations cannot be resolved ({exc})") from None

    def _record(self, cls: type) -> dict[str, Any]:
        hints = self._hints_of(cls)
        fields: list[tuple[str, Any, Any]] = []
        if attrs.has(cls):
            for attribute in attrs.fields(cls):
                if not attribute.init:
                    continue
                default: Any = attribute.default
                if default is attrs.NOTHING:
                    default = MISSING
                elif isinstance(default, _ATTRS_FACTORY):
                    default = _NO_SCHEMA_DEFAULT
                fields.append((attribute.name, hints.get(attribute.name, Any), default))
        else:
            import dataclasses  # a dataclass's author has loaded it; ``import agentcore`` does not

            for field in dataclasses.fields(cls):
                if not field.init:
                    continue
                default = field.default
                if default is dataclasses.MISSING:
                    no_factory = field.default_factory is dataclasses.MISSING
                    default = MISSING if no_factory else _NO_SCHEMA_DEFAULT
                fields.append((field.name, hints.get(field.name, Any), default))
        return self._object(cls, fields)

    def _typeddict(self, cls: type) -> dict[str, Any]:
        try:
            listed = typeddict_fields(cls)
        except Exception as exc:
            raise self._unsupported(cls, f"its annotations cannot be resolved ({exc})") from None
        fields = [
            (key, hint, MISSING if required else _NO_SCHEMA_DEFAULT)
            for key, hint, required in listed
        ]
        return self._object(cls, fields)

    def _pydantic(self, cls: type[PydanticModel]) -> dict[str, Any]:
        try:
            schema: dict[str, Any] = cls.model_json_schema()
        except Exception as exc:
            raise self._unsupported(cls, f"its model_json_schema() failed ({exc})") from None
        definitions: dict[str, Any] = schema.pop("$defs", {})
        inlined: dict[str, Any] = _inline(
            schema, definitions, (), lambda: self._unsupported(cls, _RECURSIVE_MODEL)
        )
        return inlined

    def _unsupported(self, hint: Any, reason: str) -> TypeError:
        where = self._where
        if self._path:
            where += f" (at {''.join(self._path).lstrip('.')})"
        return TypeError(
            f"{where} has type {render_type(hint)}, which is not supported: {reason}; {_SUPPORTED}"
        )


_ATTRS_FACTORY: type[object] = type(attrs.Factory(str))
"""The class of ``attrs.Factory`` (its stubs present it as a function)."""

_NO_SCHEMA_DEFAULT: Any = object()
"""An optional field whose default has no fixed value (a factory, a total=False key)."""

_RECURSIVE_MODEL = (
    "it contains itself; tool schemas are written inline, so recursive models cannot be described"
)


def _inline(
    node: Any,
    definitions: Mapping[str, Any],
    open_refs: tuple[str, ...],
    recursive: Callable[[], TypeError],
) -> Any:
    """Replace ``{"$ref": "#/$defs/Name"}`` by the definition itself, recursively."""
    if is_list(node):
        return [_inline(item, definitions, open_refs, recursive) for item in node]
    if not is_mapping(node):
        return node
    mapping = node
    ref = mapping.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        name = ref.removeprefix("#/$defs/")
        if name in open_refs:
            raise recursive()
        target = _inline(definitions[name], definitions, (*open_refs, name), recursive)
        siblings = {key: value for key, value in mapping.items() if key != "$ref"}
        return {**target, **_inline(siblings, definitions, open_refs, recursive)}
    return {
        key: _inline(value, definitions, open_refs, recursive) for key, value in mapping.items()
    }


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True
